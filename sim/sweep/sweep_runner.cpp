#include "sim/sweep/sweep_runner.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "sim/experiment/run_job.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/output/csv_writer.hpp"
#include "sim/output/directory_lock.hpp"
#include "sim/output/output_directory.hpp"
#include "sim/sweep/point_record.hpp"

namespace pssim::sweep {
namespace {

namespace fs = std::filesystem;
using output::DirectoryLock;

std::string message_of(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e)) return "out of memory (std::bad_alloc)";
  const std::string what = e.what();
  return what.empty() ? "an error without a message" : what;
}

// Runs one point into its directory, under the point's own lock. Returns the error, empty
// when the point ran and was recorded.
std::string run_point(const SweepSpec& spec, const SweepPoint& p, const fs::path& dir, const SweepOptions& options) {
  const fs::path point_dir = point_directory(dir, p.index);
  std::optional<DirectoryLock> lock;
  try {
    output::prepare_output_directory(point_dir);
    lock.emplace(point_dir, DirectoryLock::Mode::exclusive, fmt::format("point {} of sweep {}", p.index, spec.name));
    // The marker first: a point without a current record runs again, whatever happens next.
    std::vector<std::string> previous = {"point.csv", "error.txt"};
    for (const auto& name : experiment::run_output_files()) previous.push_back(name);
    output::remove_outputs(point_dir, previous);
  } catch (const std::exception& e) {
    return message_of(e);  // another writer holds the point, or it cannot be written: nothing to record
  }
  std::string error;
  std::vector<experiment::Figure> figures;
  try {
    experiment::JobOptions job;
    job.threads = options.threads_per_point;
    job.caller_holds_lock = true;
    job.external = options.external;
    job.interrupt = options.interrupt;
    figures = experiment::run_to_directory(p.scenario, point_dir, job).figures;
  } catch (const experiment::Interrupted&) {
    return "interrupted";  // no record: the point runs again next time
  } catch (const std::exception& e) {
    error = message_of(e);
  }
  try {
    if (!error.empty()) {
      output::write_file_atomically(point_dir / "error.txt", error + "\n");
      // The record's identity, also when the run failed before writing it.
      output::write_file_atomically(point_dir / "scenario.yaml", scenario::resolved_yaml(p.scenario));
    }
    output::CsvWriter marker(point_dir / "point.csv", record_columns(spec));
    write_record_row(marker, p, error.empty() ? "ok" : "failed", error, figures, has_dynamics(spec));
    marker.commit();
  } catch (const std::exception& e) {
    error = (error.empty() ? "" : error + "; ") + "the point cannot be recorded: " + message_of(e);
  }
  return error;
}

}  // namespace

fs::path point_directory(const fs::path& dir, std::size_t index) {
  return dir / "points" / fmt::format("{:04}", index);
}

std::vector<std::size_t> points_to_run(const SweepSpec& spec, const fs::path& dir, const std::optional<Shard>& shard) {
  std::vector<std::size_t> todo;
  for (const auto& p : spec.points) {
    if (shard && p.index % shard->count != shard->index - 1) continue;
    const auto record = current_record(spec, p, point_directory(dir, p.index));
    if (!record || (*record)[status_column(spec)] != "ok") todo.push_back(p.index);
  }
  return todo;
}

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options) {
  const fs::path& dir = options.output_dir;
  output::prepare_output_directory(dir);
  const auto& shard = options.shard;
  const bool part = shard || !options.points.empty();
  for (const std::size_t index : options.points)
    if (index >= spec.points.size())
      throw std::invalid_argument(fmt::format("sweep {} has no point {} (it has {})", spec.name, index,
                                              spec.points.size()));
  const std::string who = shard                   ? fmt::format("shard {}/{} of sweep {}", shard->index, shard->count,
                                                                spec.name)
                          : options.points.empty() ? "sweep " + spec.name
                                                   : fmt::format("points of sweep {}", spec.name);
  const DirectoryLock lock(dir, part ? DirectoryLock::Mode::shared : DirectoryLock::Mode::exclusive, who);
  SweepOutcome outcome;
  outcome.lock_unsupported = lock.unsupported();
  // The table describes the points as they were when it was written: once points change
  // it is stale, and must not survive this sweep being killed.
  output::remove_outputs(dir, {"sweep.csv"});
  std::vector<const SweepPoint*> todo;
  for (const std::size_t index : points_to_run(spec, dir, shard))
    if (options.points.empty() ||
        std::find(options.points.begin(), options.points.end(), index) != options.points.end())
      todo.push_back(&spec.points[index]);
  const std::size_t owned = shard ? (spec.points.size() + shard->count - shard->index) / shard->count
                            : options.points.empty() ? spec.points.size()
                                                     : options.points.size();
  outcome.skipped = owned - todo.size();
  std::atomic<std::size_t> next{0};
  const auto interrupted = [&] { return options.interrupt && options.interrupt->load(); };
  std::mutex report;
  std::size_t finished = 0;
  const auto worker = [&] {
    for (std::size_t i = next++; i < todo.size(); i = next++) {
      if (interrupted()) return;
      const std::string error = run_point(spec, *todo[i], dir, options);
      if (interrupted()) return;
      const std::lock_guard<std::mutex> guard(report);
      ++finished;
      ++outcome.ran;
      if (!error.empty()) {
        ++outcome.failed;
        if (options.on_point_failed) options.on_point_failed(*todo[i], error);
      }
      if (options.on_point_done) options.on_point_done(finished, todo.size(), outcome.failed);
    }
  };
  std::vector<std::thread> threads;
  const unsigned jobs = std::max(1u, std::min<unsigned>(options.jobs, static_cast<unsigned>(todo.size())));
  try {
    for (unsigned j = 1; j < jobs; ++j) threads.emplace_back(worker);
  } catch (const std::exception& e) {
    // The jobs started finish the point they run (kept) and take no other; a joinable
    // std::thread must not be destroyed by the unwinding (std::terminate).
    next = todo.size();
    for (auto& t : threads) t.join();
    throw std::runtime_error(fmt::format("cannot start {} sweep jobs: the system refused after {} ({}); use fewer "
                                         "jobs (-j) or raise the limit on processes or memory",
                                         jobs, threads.size() + 1, e.what()));
  }
  worker();
  for (auto& t : threads) t.join();
  if (interrupted()) throw experiment::Interrupted();
  if (!part) outcome.table = write_sweep_table(spec, dir);
  return outcome;
}

TableCounts merge_sweep(const SweepSpec& spec, const fs::path& dir) {
  output::prepare_output_directory(dir);
  const DirectoryLock lock(dir, DirectoryLock::Mode::exclusive, "merge of sweep " + spec.name);
  output::remove_outputs(dir, {"sweep.csv"});
  return write_sweep_table(spec, dir);
}

TableCounts write_sweep_table(const SweepSpec& spec, const fs::path& dir) {
  output::CsvWriter csv(dir / "sweep.csv", record_columns(spec));
  TableCounts counts;
  for (const auto& p : spec.points) {
    if (const auto record = current_record(spec, p, point_directory(dir, p.index))) {
      counts.failed += (*record)[status_column(spec)] == "ok" ? 0 : 1;
      for (const auto& cell : *record) csv.cell(std::string_view(cell));
      csv.end_row();
    } else {
      ++counts.missing;
      write_record_row(csv, p, "missing", "", {}, has_dynamics(spec));
    }
  }
  csv.commit();
  return counts;
}

}  // namespace pssim::sweep
