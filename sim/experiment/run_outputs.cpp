#include "sim/experiment/run_outputs.hpp"

#include <algorithm>
#include <numeric>

#include "sim/output/json_writer.hpp"
#include "sim/output/resource_usage.hpp"

namespace pssim::experiment {
namespace {

const char* mode_name(scenario::ProtocolConfig::Mode m) {
  switch (m) {
    case scenario::ProtocolConfig::Mode::Sync: return "sync";
    case scenario::ProtocolConfig::Mode::Async: return "async";
    case scenario::ProtocolConfig::Mode::Ssp: return "ssp";
  }
  return "?";
}

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
  for (net::ResourceId r = 0; r < t.resource_count(); ++r)
    f.mean[r] = seconds > 0 ? net.resource_bytes()[r] / (t.capacity(r) * seconds) : 0.0;
  const auto& recorded = net.recorded_resources();
  for (std::size_t i = 0; i < recorded.size(); ++i) {
    double m = 0;
    for (const auto& row : net.link_utilization()) m = std::max(m, static_cast<double>(row[i]));
    f.max[recorded[i]] = m;
  }
  return f;
}

void write_workers(const std::filesystem::path& dir, const Experiment& e) {
  output::CsvWriter csv(dir / "workers.csv",
                        {"worker", "host", "speed_factor", "iterations", "compute_s", "push_s", "pull_s", "blocked_s"});
  const auto& engine = e.engine();
  for (std::size_t w = 0; w < engine.workers(); ++w) {
    const auto& s = engine.worker_stats(w);
    csv.cell(static_cast<std::int64_t>(w))
        .cell(e.topology().node_name(e.layout().worker_hosts[w]))
        .cell(e.compute().speed_factors()[w])
        .cell(s.iterations)
        .cell(to_seconds(s.computing))
        .cell(to_seconds(s.pushing))
        .cell(to_seconds(s.pulling))
        .cell(to_seconds(s.blocked));
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

  output::CsvWriter series(dir / "link_utilization.csv", {"time_s", "link", "utilization"});
  const auto& net = e.network();
  const auto& recorded = net.recorded_resources();
  for (std::size_t b = 0; b < net.link_utilization().size(); ++b) {
    const double start = to_seconds(static_cast<TimeNs>(b) * net.utilization_bin());
    for (std::size_t i = 0; i < recorded.size(); ++i) {
      series.cell(start).cell(t.resource_name(recorded[i])).cell(static_cast<double>(net.link_utilization()[b][i]));
      series.end_row();
    }
  }
  series.commit();
}

void write_summary(const std::filesystem::path& dir, const Experiment& e, const RunStats& stats,
                   const MetricsRecorder& recorder, const LinkFigures& links) {
  const auto& s = e.scenario();
  const auto& engine = e.engine();
  const auto& totals = engine.totals();
  const auto& net = e.network();
  const double wall = std::max(stats.wall_seconds, 1e-9);
  output::JsonWriter j;
  j.begin_object();
  j.key("scenario").value(s.name);
  j.key("seed").value(static_cast<std::uint64_t>(s.seed));
  j.key("protocol").value(mode_name(s.protocol.mode));
  j.key("workers").value(s.cluster.workers.count);
  j.key("shards").value(s.cluster.servers.shards);
  j.key("stopped_by").value(stats.stopped_by == StopReason::SimTime ? "sim_time" : "updates");
  j.key("sim_time_s").value(to_seconds(stats.sim_time));
  j.key("wall_time_s").value(stats.wall_seconds);
  j.key("events").value(stats.events);
  j.key("events_per_s").value(static_cast<double>(stats.events) / wall);
  j.key("peak_rss_bytes").value(output::peak_rss_bytes());
  j.key("rounds").value(totals.rounds);
  if (recorder.rounds() > 0) j.key("mean_round_s").value(to_seconds(recorder.round_time_sum()) / static_cast<double>(recorder.rounds()));
  j.key("updates").value(totals.updates);
  j.key("gradients_applied").value(totals.gradients_applied);
  j.key("gradients_dropped").value(totals.gradients_dropped);
  j.key("messages").value(net.messages());
  j.key("bytes_sent").value(net.bytes_sent());
  j.key("flows").value(net.flows());
  j.key("flows_per_s").value(static_cast<double>(net.flows()) / wall);

  const auto& h = totals.staleness_histogram;
  const double count = static_cast<double>(std::accumulate(h.begin(), h.end(), std::int64_t{0}));
  double sum = 0;
  for (std::size_t tau = 0; tau < h.size(); ++tau) sum += static_cast<double>(tau) * static_cast<double>(h[tau]);
  j.key("mean_staleness").value(count > 0 ? sum / count : 0.0);
  std::int64_t max_tau = 0;
  for (std::size_t tau = 0; tau < h.size(); ++tau)
    if (h[tau] > 0) max_tau = static_cast<std::int64_t>(tau);
  j.key("max_staleness").value(max_tau);
  j.key("staleness_histogram").begin_array();
  for (auto c : h) j.value(c);
  j.end_array();

  // Share of simulated time the workers spent in each state: mean, least and most.
  const double sim_seconds = std::max(to_seconds(stats.sim_time), 1e-12);
  j.key("worker_time_share").begin_object();
  const std::pair<const char*, TimeNs ps::WorkerStats::*> states[] = {{"computing", &ps::WorkerStats::computing},
                                                                       {"pushing", &ps::WorkerStats::pushing},
                                                                       {"pulling", &ps::WorkerStats::pulling},
                                                                       {"blocked", &ps::WorkerStats::blocked}};
  for (const auto& [name, field] : states) {
    double total = 0, lo = 1e300, hi = 0;
    for (std::size_t w = 0; w < engine.workers(); ++w) {
      const double share = to_seconds(engine.worker_stats(w).*field) / sim_seconds;
      total += share, lo = std::min(lo, share), hi = std::max(hi, share);
    }
    j.key(name).begin_object();
    j.key("mean").value(total / static_cast<double>(engine.workers()));
    j.key("min").value(lo);
    j.key("max").value(hi);
    j.end_object();
  }
  j.end_object();

  // The busiest link directions by mean utilization; the first is the bottleneck.
  std::vector<net::ResourceId> order(links.mean.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return links.mean[a] > links.mean[b]; });
  const auto& t = e.topology();
  if (!order.empty()) {
    j.key("bottleneck_link").begin_object();
    j.key("name").value(t.resource_name(order[0]));
    j.key("mean_utilization").value(links.mean[order[0]]);
    j.end_object();
  }
  j.key("busiest_links").begin_array();
  for (std::size_t i = 0; i < std::min<std::size_t>(10, order.size()); ++i) {
    const auto r = order[i];
    j.begin_object();
    j.key("name").value(t.resource_name(r));
    j.key("mean_utilization").value(links.mean[r]);
    if (links.max[r] >= 0) j.key("max_utilization").value(links.max[r]);
    j.end_object();
  }
  j.end_array();
  j.key("solver").begin_object();
  j.key("incremental_updates").value(net.solver_stats().incremental_updates);
  j.key("full_solves").value(net.solver_stats().full_solves);
  j.end_object();
  j.end_object();
  output::write_file_atomically(dir / "summary.json", j.str());
}

}  // namespace

MetricsRecorder::MetricsRecorder(const std::filesystem::path& dir, bool rounds_table)
    : metrics_(dir / "metrics.csv",
               {"time_s", "shard", "version", "worker", "gradients", "staleness_mean", "staleness_max"}) {
  if (rounds_table)
    rounds_csv_ = std::make_unique<output::CsvWriter>(
        dir / "rounds.csv", std::vector<std::string>{"round", "end_s", "duration_s", "dropped_gradients"});
}

void MetricsRecorder::on_update(const ps::UpdateRecord& u) {
  metrics_.cell(to_seconds(u.time)).cell(u.shard).cell(u.version);
  if (u.worker >= 0) metrics_.cell(u.worker);
  else metrics_.empty_cell();
  metrics_.cell(u.gradients).cell(u.staleness_mean).cell(u.staleness_max);
  metrics_.end_row();
}

void MetricsRecorder::on_round(const ps::RoundRecord& r) {
  ++rounds_;
  round_time_sum_ += r.duration;
  if (!rounds_csv_) return;
  rounds_csv_->cell(r.round).cell(to_seconds(r.end)).cell(to_seconds(r.duration)).cell(r.dropped);
  rounds_csv_->end_row();
}

void MetricsRecorder::commit() {
  metrics_.commit();
  if (rounds_csv_) rounds_csv_->commit();
}

void write_run_outputs(const std::filesystem::path& dir, const Experiment& experiment, const RunStats& stats,
                       const MetricsRecorder& recorder) {
  const LinkFigures links = link_figures(experiment, stats.sim_time);
  write_workers(dir, experiment);
  write_links(dir, experiment, links);
  write_summary(dir, experiment, stats, recorder, links);
}

}  // namespace pssim::experiment
