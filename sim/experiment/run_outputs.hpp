// The files a run writes into its output directory.
//
//   scenario.yaml          resolved scenario (written by the caller before the run)
//   metrics.csv            one row per applied update: time_s, shard, version, worker,
//                          gradients, staleness_mean, staleness_max
//   rounds.csv             sync and SSP: one row per round (clock applied by every shard)
//   workers.csv            per worker: speed factor, iterations, time split
//   links.csv              per link direction: capacity, bytes, mean and max utilization
//   link_utilization.csv   utilization per time bin of the recorded link directions
//   summary.json           headline figures; written last, so its presence marks a
//                          complete run
// Every file appears atomically (temporary file, then rename).
#pragma once

#include <filesystem>
#include <memory>

#include "sim/experiment/experiment.hpp"
#include "sim/output/csv_writer.hpp"
#include "sim/ps/observer.hpp"

namespace pssim::experiment {

/// Streams metrics.csv and rounds.csv while the simulation runs.
class MetricsRecorder : public ps::PsObserver {
 public:
  MetricsRecorder(const std::filesystem::path& dir, bool rounds_table);
  void on_update(const ps::UpdateRecord& u) override;
  void on_round(const ps::RoundRecord& r) override;
  /// Renames the files into place.
  void commit();

  std::int64_t rounds() const { return rounds_; }
  TimeNs round_time_sum() const { return round_time_sum_; }

 private:
  output::CsvWriter metrics_;
  std::unique_ptr<output::CsvWriter> rounds_csv_;
  std::int64_t rounds_ = 0;
  TimeNs round_time_sum_ = 0;
};

/// Writes workers.csv, links.csv, link_utilization.csv and, last, summary.json.
void write_run_outputs(const std::filesystem::path& dir, const Experiment& experiment, const RunStats& stats,
                       const MetricsRecorder& recorder);

}  // namespace pssim::experiment
