#include "sim/experiment/run_outputs.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/experiment/utilization_csv.hpp"
#include "sim/output/json_writer.hpp"
#include "sim/output/resource_usage.hpp"

#include <fmt/format.h>

namespace pssim::experiment {
namespace {

struct LinkFigures {
  std::vector<double> mean;  // per resource
  std::vector<double> max;   // per resource; negative when not recorded
};

LinkFigures link_figures(const Experiment& e, TimeNs sim_time) {
  const auto& t = e.topology();
  const auto& net = e.network();
  LinkFigures f;
  f.mean.assign(t.resource_count(), 0.0);
  f.max.assign(t.resource_count(), -1.0);
  const double seconds = to_seconds(sim_time);
  // Over the capacity the link offered: capacity x time, or its integral once it changed.
  for (net::ResourceId r = 0; r < t.resource_count(); ++r) {
    const double offered = net.capacity_changed(r) ? net.capacity_seconds(r) : t.capacity(r) * seconds;
    f.mean[r] = seconds > 0 && offered > 0 ? net.resource_bytes()[r] / offered : 0.0;
  }
  const auto& recorded = net.recorded_resources();
  const auto& series = net.link_utilization();
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    double m = 0;
    for (std::size_t b = 0; b < series.bins(); ++b) m = std::max(m, static_cast<double>(series.at(b, i)));
    f.max[recorded[i]] = m;
  }
  return f;
}

void write_workers(const std::filesystem::path& dir, const Experiment& e) {
  std::vector<std::string> columns = {"worker", "host",   "speed_factor", "iterations",
                                      "compute_s", "push_s", "pull_s",       "blocked_s"};
  const bool dynamics = e.dynamics() != nullptr;
  if (dynamics) columns.insert(columns.end(), {"down_s", "lost_compute_s", "crashes"});
  output::CsvWriter csv(dir / "workers.csv", columns);
  const auto& protocol = e.protocol();
  for (std::size_t w = 0; w < protocol.workers(); ++w) {
    const auto& s = protocol.worker_stats(w);
    csv.cell(static_cast<std::int64_t>(w))
        .cell(e.topology().node_name(e.worker_hosts()[w]))
        .cell(e.compute().speed_factors()[w])
        .cell(s.iterations)
        .cell(to_seconds(s.computing))
        .cell(to_seconds(s.pushing))
        .cell(to_seconds(s.pulling))
        .cell(to_seconds(s.blocked));
    if (dynamics) csv.cell(to_seconds(s.down)).cell(to_seconds(s.lost_compute)).cell(s.crashes);
    csv.end_row();
  }
  csv.commit();
}

void write_links(const std::filesystem::path& dir, const Experiment& e, const LinkFigures& f) {
  const auto& t = e.topology();
  output::CsvWriter csv(dir / "links.csv", {"link", "capacity_Bps", "bytes", "mean_utilization", "max_utilization"});
  for (net::ResourceId r = 0; r < t.resource_count(); ++r) {
    csv.cell(t.resource_name(r)).cell(t.capacity(r)).cell(e.network().resource_bytes()[r]).cell(f.mean[r]);
    if (f.max[r] >= 0) csv.cell(f.max[r]);
    else csv.empty_cell();
    csv.end_row();
  }
  csv.commit();

  write_link_utilization(dir / "link_utilization.csv", e.network());
}

RunReport make_report(const Experiment& e, const RunStats& stats, const MetricsRecorder& recorder,
                      const LinkFigures& links) {
  const auto& s = e.scenario();
  const auto& protocol = e.protocol();
  const auto& totals = protocol.totals();
  const auto& net = e.network();
  RunReport r;
  r.stats = stats;
  r.rounds = totals.rounds;
  if (recorder.rounds() > 0) r.mean_round_s = to_seconds(recorder.round_time_sum()) / static_cast<double>(recorder.rounds());
  r.updates = protocol.least_updates();
  r.part_updates = totals.updates;
  if (e.dynamics()) {
    RunReport::Dynamics& d = r.dynamics.emplace();
    for (std::size_t w = 0; w < protocol.workers(); ++w) {
      d.downtime_s += to_seconds(protocol.worker_stats(w).down);
      d.lost_compute_s += to_seconds(protocol.worker_stats(w).lost_compute);
    }
    d.lost_updates = protocol.failure_totals().lost_updates;
    d.lost_gradients = protocol.failure_totals().lost_gradients;
    if (s.cluster.servers.checkpoint) d.checkpoints = protocol.failure_totals().checkpoints;
  }
  r.gradients_applied = totals.worker_gradients_applied;
  r.gradients_dropped = totals.worker_gradients_dropped;
  r.gradient_parts_applied = totals.gradients_applied;
  r.gradient_parts_dropped = totals.gradients_dropped;
  // Samples the applied gradients covered (every batch of a computation: local SGD's H).
  const std::int64_t per_gradient = s.data.batch_size() * e.batches_per_computation();
  r.samples = r.gradients_applied * per_gradient;
  r.samples_per_s = stats.sim_time > 0 ? static_cast<double>(r.samples) / to_seconds(stats.sim_time) : 0.0;
  r.messages = net.messages();
  r.push_bytes = net.bytes_moved(net::ByteAccount::Push);
  r.pull_bytes = net.bytes_moved(net::ByteAccount::Pull);
  r.bytes_sent = r.push_bytes + r.pull_bytes;
  r.flows = net.flows();
  r.staleness_histogram = totals.staleness_histogram;
  const auto& h = totals.staleness_histogram;
  double count = 0, sum = 0;
  for (std::size_t tau = 0; tau < h.size(); ++tau) {
    count += static_cast<double>(h[tau]);
    sum += static_cast<double>(tau) * static_cast<double>(h[tau]);
    if (h[tau] > 0) r.max_staleness = static_cast<std::int64_t>(tau);
  }
  r.mean_staleness = count > 0 ? sum / count : 0.0;

  // Share of simulated time the workers spent in each state: mean, least and most.
  const double sim_seconds = std::max(to_seconds(stats.sim_time), 1e-12);
  const TimeNs protocol::WorkerStats::*fields[] = {&protocol::WorkerStats::computing, &protocol::WorkerStats::pushing,
                                                   &protocol::WorkerStats::pulling, &protocol::WorkerStats::blocked};
  for (std::size_t k = 0; k < 4; ++k) {
    double total = 0, lo = 1e300, hi = 0;
    for (std::size_t w = 0; w < protocol.workers(); ++w) {
      const double share = to_seconds(protocol.worker_stats(w).*fields[k]) / sim_seconds;
      total += share, lo = std::min(lo, share), hi = std::max(hi, share);
    }
    r.time_share[k] = {total / static_cast<double>(protocol.workers()), lo, hi};
  }

  // The busiest link directions by mean utilization; the first is the bottleneck.
  std::vector<net::ResourceId> order(links.mean.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return links.mean[a] > links.mean[b]; });
  for (std::size_t i = 0; i < std::min<std::size_t>(10, order.size()); ++i)
    r.busiest_links.push_back({e.topology().resource_name(order[i]), links.mean[order[i]], links.max[order[i]]});
  r.solver = net.solver_stats();
  r.math = e.has_math();
  r.language_model = stats.training.final_eval.language_model;
  r.final_train_loss = recorder.last_train_loss();
  return r;
}

void write_summary(const std::filesystem::path& dir, const Experiment& e, const RunReport& r) {
  const auto& s = e.scenario();
  const double wall = std::max(r.stats.wall_seconds, 1e-9);
  output::JsonWriter j;
  j.begin_object();
  j.key("scenario").value(s.name);
  j.key("seed").value(static_cast<std::uint64_t>(s.seed));
  j.key("protocol").value(s.protocol.scheme);
  j.key("workers").value(s.cluster.workers.count);
  j.key("shards").value(static_cast<std::int64_t>(e.protocol().shards()));
  j.key("parameters").value(e.model_parameters());
  j.key("flops_per_sample").value(e.flops_per_sample());
  j.key("stopped_by").value(to_string(r.stats.stopped_by));
  j.key("sim_time_s").value(to_seconds(r.stats.sim_time));
  j.key("wall_time_s").value(r.stats.wall_seconds);
  j.key("events").value(r.stats.events);
  j.key("events_per_s").value(static_cast<double>(r.stats.events) / wall);
  j.key("peak_rss_bytes").value(output::peak_rss_bytes());
  j.key("rounds").value(r.rounds);
  if (r.mean_round_s) j.key("mean_round_s").value(*r.mean_round_s);
  j.key("updates").value(r.updates);
  j.key("part_updates").value(r.part_updates);
  j.key("gradients_applied").value(r.gradients_applied);
  j.key("gradients_dropped").value(r.gradients_dropped);
  j.key("gradient_parts_applied").value(r.gradient_parts_applied);
  j.key("gradient_parts_dropped").value(r.gradient_parts_dropped);
  j.key("samples").value(r.samples);
  j.key("samples_per_s").value(r.samples_per_s);
  j.key("messages").value(r.messages);
  j.key("bytes_sent").value(r.bytes_sent);
  j.key("push_bytes").value(r.push_bytes);
  j.key("pull_bytes").value(r.pull_bytes);
  j.key("flows").value(r.flows);
  j.key("flows_per_s").value(static_cast<double>(r.flows) / wall);
  j.key("mean_staleness").value(r.mean_staleness);
  j.key("max_staleness").value(r.max_staleness);
  j.key("staleness_histogram").begin_array();
  for (auto c : r.staleness_histogram) j.value(c);
  j.end_array();
  j.key("worker_time_share").begin_object();
  const char* names[] = {"computing", "pushing", "pulling", "blocked"};
  for (std::size_t k = 0; k < 4; ++k) {
    j.key(names[k]).begin_object();
    j.key("mean").value(r.time_share[k].mean);
    j.key("min").value(r.time_share[k].min);
    j.key("max").value(r.time_share[k].max);
    j.end_object();
  }
  j.end_object();
  if (!r.busiest_links.empty()) {
    j.key("bottleneck_link").begin_object();
    j.key("name").value(r.busiest_links[0].name);
    j.key("mean_utilization").value(r.busiest_links[0].mean);
    j.end_object();
  }
  j.key("busiest_links").begin_array();
  for (const auto& l : r.busiest_links) {
    j.begin_object();
    j.key("name").value(l.name);
    j.key("mean_utilization").value(l.mean);
    if (l.max >= 0) j.key("max_utilization").value(l.max);
    j.end_object();
  }
  j.end_array();
  if (r.math) {
    const auto& t = r.stats.training;
    j.key("evaluations").value(t.evaluations);
    j.key("epochs").value(t.final_eval.epochs);
    j.key("final_test_accuracy").value(t.final_eval.test_accuracy);
    j.key("best_test_accuracy").value(t.best_accuracy);
    j.key("final_test_loss").value(t.final_eval.test_loss);
    j.key("final_train_loss").value(r.final_train_loss);
    if (r.language_model) j.key("final_perplexity").value(t.final_eval.perplexity);
    if (s.training.target_accuracy) {
      j.key("target_accuracy").value(*s.training.target_accuracy);
      j.key("time_to_target_s");
      if (t.time_to_target) j.value(to_seconds(*t.time_to_target));
      else j.null();
    }
    // "diverged": the run failed, by a NaN or infinite loss (stopped_by diverged) or a
    // collapse (stopped_by collapsed, and why in "collapse").
    j.key("diverged").value(t.diverged_at_update.has_value());
    if (t.diverged_at_update) j.key("diverged_at_update").value(*t.diverged_at_update);
    if (t.collapse) j.key("collapse").value(*t.collapse);
  }
  if (const auto* d = e.dynamics()) {  // what failures cost
    const auto& f = e.protocol().failure_totals();
    TimeNs down = 0, lost = 0;
    std::int64_t crashes = 0;
    for (std::size_t w = 0; w < e.protocol().workers(); ++w) {
      const auto& ws = e.protocol().worker_stats(w);
      down += ws.down, lost += ws.lost_compute, crashes += ws.crashes;
    }
    j.key("downtime_s").value(to_seconds(down));
    j.key("server_downtime_s").value(d->server_downtime_s());
    j.key("worker_crashes").value(crashes);
    j.key("lost_compute_s").value(to_seconds(lost));
    j.key("lost_updates").value(f.lost_updates);
    j.key("lost_gradients").value(f.lost_gradients);
    j.key("abandoned_computations").value(f.abandoned);
  }
  if (s.cluster.servers.checkpoint) j.key("checkpoints").value(e.protocol().failure_totals().checkpoints);
  j.key("solver").begin_object();
  j.key("incremental_updates").value(r.solver.incremental_updates);
  j.key("full_solves").value(r.solver.full_solves);
  j.end_object();
  j.end_object();
  output::write_file_atomically(dir / "summary.json", j.str());
}

}  // namespace

MetricsRecorder::MetricsRecorder(const std::filesystem::path& dir, bool rounds_table, bool events_table)
    : metrics_(dir / "metrics.csv", {"time_s", "event", "shard", "version", "worker", "gradients", "staleness_mean",
                                     "staleness_max", "train_loss", "test_loss", "test_accuracy", "perplexity",
                                     "bytes_sent", "push_bytes", "epochs"}) {
  if (rounds_table)
    rounds_csv_ = std::make_unique<output::CsvWriter>(
        dir / "rounds.csv", std::vector<std::string>{"round", "end_s", "duration_s", "dropped_gradients"});
  if (events_table)
    events_csv_ = std::make_unique<output::CsvWriter>(
        dir / "events.csv", std::vector<std::string>{"time_s", "kind", "target", "value", "note"});
}

void MetricsRecorder::on_event(const protocol::EventRecord& e) {
  if (!events_csv_) return;
  events_csv_->cell(to_seconds(e.time)).cell(e.kind).cell(e.target);
  if (std::isnan(e.value)) events_csv_->empty_cell();
  else events_csv_->cell(e.value);
  events_csv_->cell(e.note);
  events_csv_->end_row();
}

namespace {
void loss_cell(output::CsvWriter& csv, double v) {
  if (std::isnan(v)) csv.empty_cell();
  else csv.cell(v);
}
}  // namespace

void MetricsRecorder::on_update(const protocol::UpdateRecord& u) {
  metrics_.cell(to_seconds(u.time)).cell(std::string_view("update")).cell(u.shard).cell(u.version);
  if (u.worker >= 0) metrics_.cell(u.worker);
  else metrics_.empty_cell();
  metrics_.cell(u.gradients).cell(u.staleness_mean).cell(u.staleness_max);
  loss_cell(metrics_, u.train_loss);
  metrics_.empty_cell().empty_cell().empty_cell().empty_cell().empty_cell().empty_cell();
  metrics_.end_row();
  if (u.shard == 0 && !std::isnan(u.train_loss)) {
    loss_sum_ += u.train_loss;
    ++loss_count_;
  }
}

void MetricsRecorder::on_eval(const protocol::EvalRecord& e) {
  // An evaluation row: the training loss is the mean over shard 0's updates since the
  // previous evaluation.
  metrics_.cell(to_seconds(e.time)).cell(std::string_view("eval"));
  metrics_.empty_cell().cell(e.steps).empty_cell().empty_cell().empty_cell().empty_cell();
  const double train_loss = loss_count_ > 0 ? loss_sum_ / static_cast<double>(loss_count_) : std::nan("");
  loss_cell(metrics_, train_loss);
  metrics_.cell(e.test_loss).cell(e.test_accuracy);
  if (e.language_model) metrics_.cell(e.perplexity);
  else metrics_.empty_cell();
  metrics_.cell(e.bytes_sent).cell(e.push_bytes).cell(e.epochs);
  metrics_.end_row();
  if (loss_count_ > 0) last_train_loss_ = train_loss;
  loss_sum_ = 0;
  loss_count_ = 0;
}

void MetricsRecorder::on_round(const protocol::RoundRecord& r) {
  ++rounds_;
  round_time_sum_ += r.duration;
  if (!rounds_csv_) return;
  rounds_csv_->cell(r.round).cell(to_seconds(r.end)).cell(to_seconds(r.duration)).cell(r.dropped);
  rounds_csv_->end_row();
}

void MetricsRecorder::commit() {
  metrics_.commit();
  if (rounds_csv_) rounds_csv_->commit();
  if (events_csv_) events_csv_->commit();
}

RunReport write_run_outputs(const std::filesystem::path& dir, const Experiment& experiment, const RunStats& stats,
                            const MetricsRecorder& recorder) {
  const LinkFigures links = link_figures(experiment, stats.sim_time);
  write_workers(dir, experiment);
  write_links(dir, experiment, links);
  RunReport report = make_report(experiment, stats, recorder, links);
  write_summary(dir, experiment, report);
  return report;
}

std::vector<std::string> figure_names(bool dynamics) {
  std::vector<std::string> names = {"sim_time_s",        "stopped_by",         "rounds",          "mean_round_s",
          "updates",           "gradients_applied",  "gradients_dropped", "samples_per_s", "bytes_sent",
          "push_bytes",        "pull_bytes",         "flows",             "mean_staleness",     "max_staleness",   "computing_share",
          "blocked_share",     "bottleneck_link",    "bottleneck_utilization", "epochs",
          "final_test_accuracy", "best_test_accuracy", "final_train_loss", "time_to_target_s",
          "final_perplexity",  "diverged"};
  if (dynamics)
    names.insert(names.end(), {"downtime_s", "lost_compute_s", "lost_updates", "lost_gradients", "checkpoints"});
  return names;
}

std::vector<Figure> report_figures(const RunReport& r) {
  const auto num = [](double v) { return fmt::format("{}", v); };
  const auto integer = [](std::int64_t v) { return fmt::format("{}", v); };
  std::vector<Figure> f = {
      {"sim_time_s", num(to_seconds(r.stats.sim_time))},
      {"stopped_by", to_string(r.stats.stopped_by)},
      {"rounds", integer(r.rounds)},
      {"mean_round_s", r.mean_round_s ? num(*r.mean_round_s) : ""},
      {"updates", integer(r.updates)},
      {"gradients_applied", integer(r.gradients_applied)},
      {"gradients_dropped", integer(r.gradients_dropped)},
      {"samples_per_s", num(r.samples_per_s)},
      {"bytes_sent", num(r.bytes_sent)},
      {"push_bytes", num(r.push_bytes)},
      {"pull_bytes", num(r.pull_bytes)},
      {"flows", integer(static_cast<std::int64_t>(r.flows))},
      {"mean_staleness", num(r.mean_staleness)},
      {"max_staleness", integer(r.max_staleness)},
      {"computing_share", num(r.time_share[0].mean)},
      {"blocked_share", num(r.time_share[3].mean)},
      {"bottleneck_link", r.busiest_links.empty() ? "" : r.busiest_links[0].name},
      {"bottleneck_utilization", r.busiest_links.empty() ? "" : num(r.busiest_links[0].mean)},
  };
  const auto& t = r.stats.training;
  const auto maybe = [&](bool present, double v) { return present ? num(v) : std::string(); };
  f.push_back({"epochs", maybe(r.math, t.final_eval.epochs)});
  f.push_back({"final_test_accuracy", maybe(r.math && !r.language_model, t.final_eval.test_accuracy)});
  f.push_back({"best_test_accuracy", maybe(r.math && !r.language_model, t.best_accuracy)});
  f.push_back({"final_train_loss", maybe(r.math && !std::isnan(r.final_train_loss), r.final_train_loss)});
  f.push_back({"time_to_target_s", t.time_to_target ? num(to_seconds(*t.time_to_target)) : ""});
  f.push_back({"final_perplexity", maybe(r.math && r.language_model, t.final_eval.perplexity)});
  f.push_back({"diverged", r.math ? (t.diverged_at_update ? "true" : "false") : ""});
  if (const auto& d = r.dynamics) {
    f.push_back({"downtime_s", num(d->downtime_s)});
    f.push_back({"lost_compute_s", num(d->lost_compute_s)});
    f.push_back({"lost_updates", integer(d->lost_updates)});
    f.push_back({"lost_gradients", integer(d->lost_gradients)});
    f.push_back({"checkpoints", d->checkpoints ? integer(*d->checkpoints) : ""});
  }
  return f;
}

}  // namespace pssim::experiment
