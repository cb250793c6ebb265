#include "sim/schemes/registry.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/output/json_writer.hpp"
#include "sim/ps/partition.hpp"
#include "sim/schemes/collective_keys.hpp"

namespace pssim::schemes {

// The entries, each in its scheme's file (sim/schemes/<name>.cpp).
Scheme sync_scheme();
Scheme async_scheme();
Scheme ssp_scheme();
Scheme local_sgd_scheme();
Scheme allreduce_scheme();
Scheme hybrid_scheme();
Scheme easgd_scheme();

namespace {

using scenario::ValueType;

// In documentation order; the first is the default.
std::vector<Scheme> build_registry() {
  std::vector<Scheme> s;
  s.push_back(sync_scheme());
  s.push_back(async_scheme());
  s.push_back(ssp_scheme());
  s.push_back(local_sgd_scheme());
  s.push_back(allreduce_scheme());
  s.push_back(hybrid_scheme());
  s.push_back(easgd_scheme());
  return s;
}

std::vector<net::NodeId> place(const std::vector<training::Part>& shards, const LayoutInputs& in) {
  const bool colocated = in.placement == LayoutInputs::Placement::Colocated;
  const std::vector<net::NodeId>& hosts = colocated ? in.worker_hosts : in.server_hosts;
  const auto count = static_cast<std::int64_t>(hosts.size());
  if (count < 1) throw std::invalid_argument("the shards have no host to live on");
  const std::vector<std::int64_t> placement = in.placement == LayoutInputs::Placement::Balanced
                                                  ? ps::place_balanced(shards, count)
                                                  : ps::place_round_robin(shards.size(), count);
  std::vector<net::NodeId> out;
  for (std::int64_t h : placement) out.push_back(hosts[static_cast<std::size_t>(h)]);
  return out;
}

}  // namespace

const char* to_string(Layout layout) {
  switch (layout) {
    case Layout::ServerShards: return "server-shards";
    case Layout::AllReduced: return "all-reduced";
    case Layout::Hybrid: return "hybrid";
  }
  return "?";
}

std::unique_ptr<training::WorkerRule> gradient_rule(const protocol::ProtocolConfig&, const RuleInputs&) {
  return std::make_unique<training::GradientRule>();
}

std::unique_ptr<training::ServerRule> optimizer_rule(const protocol::ProtocolConfig&, const RuleInputs& in) {
  return std::make_unique<training::OptimizerRule>(in.optimizer, in.lr.delay_compensation);
}

const std::vector<Scheme>& all() {
  static const std::vector<Scheme> schemes = build_registry();
  return schemes;
}

const Scheme& default_scheme() { return all().front(); }

const Scheme& find(const std::string& name) {
  std::string names;
  for (const auto& s : all()) {
    if (s.name == name) return s;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  throw std::invalid_argument(fmt::format("unknown protocol mode '{}' (known: {})", name, names));
}

std::string names_where(const std::function<bool(const Scheme&)>& has, const char* last) {
  std::vector<std::string> names;
  for (const auto& s : all())
    if (has(s)) names.push_back(s.name);
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? fmt::format(" {} ", last) : ", ") + names[i];
  return out;
}

scenario::SchemaPtr protocol_schema() {
  std::vector<scenario::Alternative> alternatives;
  for (const auto& s : all()) alternatives.push_back({s.name, s.doc, s.fields});
  // Dynamics keys, shared by every scheme.
  const std::string rounds = names_where([](const Scheme& s) { return s.capabilities.has_rounds; });
  const std::string abandons = names_where([](const Scheme& s) { return s.capabilities.abandons_stale; });
  std::vector<scenario::Field> shared = {
      scenario::optional("failure_timeout", scenario::scalar(ValueType::Duration, 0, 1e6), "0s",
                         fmt::format("Failure detection delay: the barriers and all-reduce rings of the schemes with "
                                     "rounds ({}) keep waiting for a crashed worker this long before they go on "
                                     "without it (0: at once).",
                                     rounds)),
      scenario::optional("abandon_stale", scenario::scalar(ValueType::Bool), "false",
                         fmt::format("{}: a straggler abandons a computation whose round has already closed (every "
                                     "shard moved on without it) and starts on the new parameters. With backup "
                                     "workers and shifted-exponential noise of shift 0, a round then takes FLOP time "
                                     "x mean x (H_N - H_(N-K)) on average, K = N - backup_workers.",
                                     abandons))};
  return scenario::variant("mode", "The training scheme: how workers exchange gradients and parameters.",
                           default_scheme().name, alternatives, shared);
}

std::string schemes_json() {
  output::JsonWriter j;
  j.begin_object();
  j.key("default").value(default_scheme().name);
  j.key("schemes").begin_array();
  for (const auto& s : all()) {
    const Capabilities& c = s.capabilities;
    j.begin_object();
    j.key("name").value(s.name);
    j.key("label").value(s.label);
    j.key("summary").value(s.summary.empty() ? s.label : s.summary);
    j.key("layout").value(to_string(s.layout));
    j.key("has_rounds").value(c.has_rounds);
    j.key("stale_gradients").value(c.stale_gradients);
    j.key("applies_each_gradient").value(c.applies_each_gradient);
    j.key("sparse_pulls").value(c.sparse_pulls);
    j.key("abandons_stale").value(c.abandons_stale);
    j.key("bulk_synchronous").value(c.bulk_synchronous);
    j.key("adaptive_batches").value(c.no_adaptive_batches.empty());
    j.key("server_crashes").value(c.no_server_crashes.empty());
    j.key("worker_crashes").value(c.no_worker_crashes.empty());
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.str();
}

std::unique_ptr<protocol::TrainingProtocol> build(const Scheme& scheme, BuildContext context) {
  context.config.has_rounds = scheme.capabilities.has_rounds;
  return scheme.create(std::move(context));
}

ps::PsLayout make_layout(const Scheme& scheme, const protocol::ProtocolConfig& protocol, const LayoutInputs& in) {
  ps::PsLayout out;
  out.worker_hosts = in.worker_hosts;
  switch (scheme.layout) {
    case Layout::ServerShards: {
      if (in.shards > in.params)
        throw std::invalid_argument(
            fmt::format("{} shards for {} parameters: some shards would be empty", in.shards, in.params));
      if (in.partition_by_layer && in.shards > static_cast<std::int64_t>(in.tensor_params.size()))
        throw std::invalid_argument(fmt::format("{} shards but the model has {} tensors: with partition: layer some "
                                                "shards would be empty (use fewer shards or partition: bytes)",
                                                in.shards, in.tensor_params.size()));
      out.shards = in.partition_by_layer ? ps::partition_by_layer(in.tensor_params, in.shards)
                                         : ps::partition_by_bytes(in.params, in.shards);
      out.shard_hosts = place(out.shards, in);
      break;
    }
    case Layout::AllReduced:
      out.all_reduced =
          all_reduced_part({{{0, in.params}}, in.params}, settings_as<CollectiveSettings>(protocol), in.racks);
      break;
    case Layout::Hybrid: {
      if (!in.embedding) throw std::invalid_argument("protocol hybrid needs a model with an embedding table");
      const training::EmbeddingTable& t = *in.embedding;
      if (in.shards > t.rows)
        throw std::invalid_argument(fmt::format("{} shards for an embedding table of {} rows: some shards would be "
                                                "empty",
                                                in.shards, t.rows));
      for (const auto& rows : ps::partition_by_bytes(t.rows, in.shards)) {  // rows, near-equal counts
        const training::Range r{t.offset + rows.ranges[0].begin * t.width, t.offset + rows.ranges[0].end * t.width};
        out.shards.push_back({{r}, r.size()});
      }
      out.shard_hosts = place(out.shards, in);
      training::Part rest;
      const std::int64_t table_end = t.offset + t.rows * t.width;
      if (t.offset > 0) rest.ranges.push_back({0, t.offset});
      if (table_end < in.params) rest.ranges.push_back({table_end, in.params});
      rest.params = in.params - t.rows * t.width;
      if (rest.params < 1) throw std::invalid_argument("protocol hybrid: the model has nothing besides its embedding");
      out.all_reduced = all_reduced_part(std::move(rest), settings_as<CollectiveSettings>(protocol), in.racks);
      break;
    }
  }
  return out;
}

}  // namespace pssim::schemes
