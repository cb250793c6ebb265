// The files a run writes into its output directory.
//
//   scenario.yaml          resolved scenario (written by the caller before the run)
//   metrics.csv            time series: one "update" row per applied update (time_s, shard,
//                          version, worker, gradients, staleness_mean, staleness_max,
//                          train_loss) and one "eval" row per evaluation (model updates
//                          done, i.e. applied by every part, in `version`, train_loss since the previous one, test_loss,
//                          test_accuracy, perplexity, bytes_sent, push_bytes and epochs
//                          so far)
//   rounds.csv             schemes with rounds (sync, SSP, all-reduce, hybrid): one row per
//                          round (clock applied by every part)
//   workers.csv            per worker: speed factor, iterations, time split (with events:
//                          downtime, lost computation, crashes)
//   events.csv             with events: every event as it happened (time_s, kind, target,
//                          value, note), injected ones and what the protocol did about them
//   links.csv              per link direction: capacity, bytes, mean and max utilization
//   link_utilization.csv   utilization per time bin of the recorded link directions
//   summary.json           headline figures; written last, so its presence marks a
//                          complete run
// Every file appears atomically (temporary file, then rename).
#pragma once

#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/experiment/experiment.hpp"
#include "sim/experiment/run_job.hpp"
#include "sim/output/csv_writer.hpp"
#include "sim/protocol/observer.hpp"

namespace pssim::experiment {

/// Streams metrics.csv and rounds.csv while the simulation runs.
class MetricsRecorder : public protocol::Observer {
 public:
  MetricsRecorder(const std::filesystem::path& dir, bool rounds_table, bool events_table = false);
  void on_update(const protocol::UpdateRecord& u) override;
  void on_round(const protocol::RoundRecord& r) override;
  void on_eval(const protocol::EvalRecord& e) override;
  void on_event(const protocol::EventRecord& e) override;
  bool wants_spans() const override { return false; }
  /// Renames the files into place.
  void commit();

  std::int64_t rounds() const { return rounds_; }
  TimeNs round_time_sum() const { return round_time_sum_; }
  /// Mean training loss of shard 0's updates in the last evaluation interval (NaN if none).
  double last_train_loss() const { return last_train_loss_; }

 private:
  output::CsvWriter metrics_;
  std::unique_ptr<output::CsvWriter> rounds_csv_;
  std::unique_ptr<output::CsvWriter> events_csv_;
  std::int64_t rounds_ = 0;
  TimeNs round_time_sum_ = 0;
  double loss_sum_ = 0;
  std::int64_t loss_count_ = 0;
  double last_train_loss_ = std::numeric_limits<double>::quiet_NaN();
};

/// The figures summary.json reports, gathered once.
struct RunReport {
  RunStats stats;
  /// What failures cost (runs with a timeline: scenario::has_dynamics).
  struct Dynamics {
    double downtime_s = 0, lost_compute_s = 0;  ///< workers', summed
    std::int64_t lost_updates = 0, lost_gradients = 0;
    std::optional<std::int64_t> checkpoints;  ///< with cluster.servers.checkpoint
  };
  std::optional<Dynamics> dynamics;
  std::int64_t rounds = 0;
  std::optional<double> mean_round_s;
  std::int64_t updates = 0;       ///< model updates: every part has applied this many
  std::int64_t part_updates = 0;  ///< updates applied, summed over the parts (shards, all-reduced part)
  std::int64_t gradients_applied = 0, gradients_dropped = 0;  ///< workers' gradients (each counted once)
  std::int64_t gradient_parts_applied = 0, gradient_parts_dropped = 0;  ///< summed over the parts
  std::int64_t samples = 0;       ///< training samples of the applied gradients
  double samples_per_s = 0;       ///< per simulated second
  std::uint64_t messages = 0, flows = 0;
  double bytes_sent = 0;  ///< bytes that crossed links (a message to its own host crosses none)
  double push_bytes = 0, pull_bytes = 0;  ///< of bytes_sent: gradients (pushes, reduce steps), parameters back
  double mean_staleness = 0;
  std::int64_t max_staleness = 0;
  std::vector<std::int64_t> staleness_histogram;
  struct Share {
    double mean = 0, min = 0, max = 0;
  };
  Share time_share[4];  ///< computing, pushing, pulling, blocked
  struct Link {
    std::string name;
    double mean = 0;
    double max = -1;  ///< < 0: not recorded over time
  };
  std::vector<Link> busiest_links;  ///< by mean utilization, at most 10
  net::SharingSolver::Stats solver;
  // Real models with math
  bool math = false;
  bool language_model = false;
  double final_train_loss = 0;  ///< NaN: no update in the last evaluation interval
};

/// Writes workers.csv, links.csv, link_utilization.csv and, last, summary.json.
RunReport write_run_outputs(const std::filesystem::path& dir, const Experiment& experiment, const RunStats& stats,
                            const MetricsRecorder& recorder);

/// The headline figures of a report as text, in figure_names() order (run_job.hpp).
std::vector<Figure> report_figures(const RunReport& report);

}  // namespace pssim::experiment
