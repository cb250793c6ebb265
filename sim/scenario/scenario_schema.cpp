#include "sim/scenario/scenario_schema.hpp"

#include "sim/scenario/schema_markdown.hpp"

namespace pssim::scenario {
namespace {

using VT = ValueType;

// Limits that keep a typo from asking for absurd resources; far above real clusters.
constexpr double kMaxWorkers = 100'000;
constexpr double kMaxServers = 10'000;
constexpr double kMaxParams = 1e11;
constexpr double kMaxBatch = 1'000'000;

SchemaPtr model_schema() {
  return variant(
      "kind", "What is trained.", std::nullopt,
      {{"synthetic",
        "A model that exists only as sizes: parameter count and compute per sample. Timing only, no math.",
        {required("params", scalar(VT::Count, 1, kMaxParams),
                  "Number of float32 parameters (4 bytes each on the wire)."),
         required("flops_per_sample", scalar_above(VT::Flops, 0, 1e18),
                  "Forward + backward operations for one sample."),
         omittable("layer_params", list_of(scalar(VT::Count, 1, kMaxParams), 1, 100'000),
                   "Parameter count of each layer (tensor), in order; must sum to `params`. Used by "
                   "`cluster.servers.partition: layer`. Absent: one layer.")}}});
}

SchemaPtr data_schema() {
  return map_of({optional("batch_size", scalar(VT::Count, 1, kMaxBatch), "32",
                          "Samples per worker per iteration (the compute of one iteration is "
                          "batch_size x flops_per_sample).")});
}

SchemaPtr training_schema() {
  return map_of({section(
      "stop",
      map_of({omittable("sim_time", scalar_above(VT::Duration, 0),
                        "Stop when simulated time reaches this."),
              omittable("updates", scalar(VT::Count, 1, 1e12),
                        "Stop when every shard has applied this many updates (sync and SSP: rounds; "
                        "async: gradients).")}),
      "When the run ends: at the first condition reached. At least one is required.")});
}

SchemaPtr speed_schema() {
  return variant(
      "dist", "How worker speed factors are drawn (a factor of 0.5 means half as fast).", "constant",
      {{"constant", "Every worker has the same factor.",
        {optional("factor", scalar_above(VT::Real, 0, 1e6), "1", "The speed factor of every worker.")}},
       {"list", "One factor per worker, in worker order.",
        {required("factors", list_of(scalar_above(VT::Real, 0, 1e6), 1, static_cast<std::size_t>(kMaxWorkers)),
                  "Speed factors; as many as `cluster.workers.count`.")}},
       {"uniform", "Factors drawn uniformly from [min, max] (one random stream per worker).",
        {required("min", scalar_above(VT::Real, 0, 1e6), "Smallest factor."),
         required("max", scalar_above(VT::Real, 0, 1e6), "Largest factor (at least `min`).")}},
       {"lognormal", "Factors exp(N(0, sigma^2)): median 1, heavy tail of slow and fast workers.",
        {required("sigma", scalar(VT::Real, 0, 10), "Standard deviation of the log of the factor.")}},
       {"stragglers", "A fixed set of workers is persistently slow.",
        {required("fraction", scalar(VT::Ratio, 0, 1),
                  "Share of workers that are slow (rounded to the nearest count; chosen at random)."),
         required("slowdown", scalar(VT::Real, 1, 1e6), "A slow worker takes this many times longer.")}},
       {"transient-stragglers", "Any worker may be slow in any iteration.",
        {required("probability", scalar(VT::Ratio, 0, 1), "Chance that a worker is slow in an iteration."),
         required("slowdown", scalar(VT::Real, 1, 1e6), "A slow iteration takes this many times longer.")}}});
}

SchemaPtr workers_schema() {
  return map_of(
      {required("count", scalar(VT::Count, 1, kMaxWorkers), "Number of workers (one per host)."),
       optional("throughput", scalar_above(VT::FlopRate, 0, 1e18), "10TFLOPS",
                "Sustained compute of a worker at speed factor 1."),
       section("speed", speed_schema(), "Per-worker speed heterogeneity."),
       section("noise",
               map_of({optional("sigma", scalar(VT::Real, 0, 10), "0",
                                "Per-iteration noise: each iteration's speed is multiplied by exp(N(0, "
                                "sigma^2)). 0: no noise.")}),
               "Iteration-to-iteration variation of each worker's speed.")});
}

SchemaPtr servers_schema() {
  return map_of(
      {optional("count", scalar(VT::Count, 1, kMaxServers), "1",
                "Number of server hosts (not used with `placement: colocated`)."),
       omittable("shards", scalar(VT::Count, 1, kMaxServers),
                 "Number of parameter shards. Absent: one per server host (one per worker when colocated)."),
       optional("placement", enumeration({"round-robin", "balanced", "colocated"}), "round-robin",
                "Where shards live: `round-robin` (shard k on server k mod count), `balanced` (largest "
                "shards first onto the least-loaded server, by bytes), `colocated` (one server process on "
                "every worker host; shard k on worker k mod workers)."),
       optional("partition", enumeration({"bytes", "layer"}), "bytes",
                "How the flat parameter vector is cut into shards: `bytes` (contiguous ranges of equal "
                "size, +-1 parameter) or `layer` (whole layers dealt round-robin to shards, as "
                "TensorFlow's replica_device_setter does; shows layer-wise imbalance)."),
       omittable("apply_bandwidth", scalar_above(VT::Bandwidth, 0),
                 "Server apply cost: bytes of its slice a shard updates per second (one update at a "
                 "time per shard). Absent: applying is instantaneous.")});
}

SchemaPtr cluster_schema() {
  return map_of({section("workers", workers_schema(), "The workers that compute gradients."),
                 section("servers", servers_schema(), "The parameter servers and the sharding of parameters.")});
}

SchemaPtr nic_schema(const std::string& default_bandwidth) {
  return map_of({optional("bandwidth", scalar_above(VT::Bandwidth, 0), default_bandwidth,
                          "Capacity in each direction (full duplex)."),
                 omittable("up", scalar_above(VT::Bandwidth, 0), "Sending capacity, if not `bandwidth`."),
                 omittable("down", scalar_above(VT::Bandwidth, 0), "Receiving capacity, if not `bandwidth`."),
                 optional("latency", scalar(VT::Duration, 0, 10), "20us",
                          "One-way latency of the host's link to its switch.")});
}

std::vector<Field> host_network_fields() {
  return {section("worker_nic", nic_schema("10Gbps"), "The network interface of every worker host."),
          section("server_nic", nic_schema("25Gbps"), "The network interface of every server host."),
          optional("nic_overrides",
                   list_of(map_of({required("host", scalar(VT::Name), "Host name: `worker-<i>` or `server-<i>`."),
                                   omittable("bandwidth", scalar_above(VT::Bandwidth, 0), "Capacity both ways."),
                                   omittable("up", scalar_above(VT::Bandwidth, 0), "Sending capacity."),
                                   omittable("down", scalar_above(VT::Bandwidth, 0), "Receiving capacity."),
                                   omittable("latency", scalar(VT::Duration, 0, 10), "Link latency.")})),
                   "[]", "Per-host exceptions to the NIC settings (one slow NIC, say).")};
}

SchemaPtr network_schema() {
  std::vector<Field> two_tier = host_network_fields();
  two_tier.push_back(required("racks", scalar(VT::Count, 1, kMaxServers), "Number of worker racks."));
  two_tier.push_back(optional("oversubscription", scalar(VT::Real, 1, 1e6), "1",
                              "Rack uplink capacity = sum of the rack's host NIC capacities / this ratio."));
  two_tier.push_back(optional("uplink_latency", scalar(VT::Duration, 0, 10), "1us",
                              "Latency of each top-of-rack to core link."));
  two_tier.push_back(optional("server_racks", enumeration({"own-rack", "spread"}), "own-rack",
                              "`own-rack`: servers share a rack of their own (all traffic crosses the core); "
                              "`spread`: server k joins worker rack k mod racks."));
  const auto names = list_of(scalar(VT::Name), 1);
  return variant(
      "topology", "The shape of the network.", "star",
      {{"star", "Every host on one non-blocking switch: the NICs are the only constraints.",
        host_network_fields()},
       {"two-tier",
        "Workers in racks under top-of-rack switches joined by a core switch; rack uplinks may be "
        "oversubscribed. Workers fill racks in order (worker i in rack i * racks / count).",
        two_tier},
       {"explicit", "Nodes and links listed one by one. Hosts are the names in `workers` and `servers`.",
        {optional("switches", list_of(scalar(VT::Name)), "[]", "Names of the switches."),
         required("links",
                  list_of(map_of({required("from", scalar(VT::Name), "One end (host or switch)."),
                                  required("to", scalar(VT::Name), "The other end."),
                                  required("bandwidth", scalar_above(VT::Bandwidth, 0),
                                           "Capacity from -> to (and to -> from unless `reverse` is set)."),
                                  omittable("reverse", scalar_above(VT::Bandwidth, 0), "Capacity to -> from."),
                                  optional("latency", scalar(VT::Duration, 0, 10), "0us", "One-way latency.")}),
                          1),
                  "Full-duplex links; routes follow the lowest total latency (then fewest hops)."),
         required("workers", names, "Host of each worker, in worker order (as many as workers.count)."),
         required("servers", names, "Server hosts, in server order (as many as servers.count).")}}});
}

SchemaPtr protocol_schema() {
  return variant(
      "mode", "How workers and servers synchronize.", "sync",
      {{"sync",
        "Bulk synchronous (BSP): each shard waits for a gradient from every worker (all but the "
        "slowest `backup_workers`), averages, applies, and sends its new slice to every worker.",
        {optional("backup_workers", scalar(VT::Count, 0, kMaxWorkers), "0",
                  "Gradients a round may go without: each round proceeds with the first N - b; later "
                  "ones are dropped.")}},
       {"async",
        "Asynchronous (ASP): each gradient is applied on arrival; the shard then sends its current slice "
        "back to that worker. Staleness = updates applied since the worker's copy.",
        {}},
       {"ssp",
        "Stale synchronous: as sync, every shard applies one averaged update per clock, but a worker may "
        "start up to `staleness` clocks ahead of the slowest, on the newest parameters it has.",
        {required("staleness", scalar(VT::Count, 0, 1'000'000),
                  "Bound s: a worker starts iteration c only when every worker has finished c - s. "
                  "0 is sync.")}}});
}

SchemaPtr output_schema() {
  return map_of({optional("utilization_interval", scalar_above(VT::Duration, 0), "10ms",
                          "Bin width of the per-link utilization time series (link_utilization.csv).")});
}

SchemaPtr build() {
  return map_of({
      required("name", scalar(VT::Name), "Name of the experiment; results go to results/<name> by default."),
      omittable("description", scalar(VT::String), "Free text: what the scenario shows."),
      optional("seed", scalar(VT::Count, 0, 4.6e18), "1",
               "Root of every random stream. Same scenario and seed: same output, byte for byte."),
      required("model", model_schema(), "What is trained."),
      section("data", data_schema(), "The data each worker draws batches from."),
      section("training", training_schema(), "Optimization and stopping."),
      section("cluster", cluster_schema(), "Workers and servers."),
      section("network", network_schema(), "Topology, links and NICs."),
      section("protocol", protocol_schema(), "The parameter-server protocol."),
      section("output", output_schema(), "What is recorded besides the standard outputs."),
  });
}

}  // namespace

const Schema& scenario_schema() {
  static const SchemaPtr schema = build();
  return *schema;
}

std::string scenario_reference_markdown() {
  return schema_markdown(
      scenario_schema(), "Scenario file reference",
      "A scenario is one YAML file describing one experiment. This page lists every key, generated\n"
      "from the schema the validator uses (`pssim schema` prints it). Quantities take units as\n"
      "people write them: durations `50us`, `2ms`, `120s`; bandwidths `10Gbps` (bits) or\n"
      "`1.25GB/s` (bytes); sizes `4.8MB`, `512KiB`; counts `16`, `25M`; operations `4GFLOP`;\n"
      "throughputs `2TFLOPS`. A value with a dimension must have a unit.\n\n"
      "Keys marked *required* have no default. Every other key may be left out; its default is\n"
      "shown. The resolved scenario written next to the results (`scenario.yaml`) states every\n"
      "key with the value the run used. `--set path.to.key=value` overrides any key from the\n"
      "command line; `--seed N` overrides `seed`.");
}

}  // namespace pssim::scenario
