#include "sim/sweep/sweep_runner.hpp"

#include <atomic>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "sim/experiment/run_job.hpp"
#include "sim/output/atomic_file.hpp"
#include "sim/output/csv_writer.hpp"

namespace pssim::sweep {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> columns(const SweepSpec& spec) {
  std::vector<std::string> c = {"point", "seed"};
  c.insert(c.end(), spec.axes.begin(), spec.axes.end());
  c.push_back("status");
  c.push_back("error");
  for (const auto& f : experiment::figure_names()) c.push_back(f);
  return c;
}

// One CSV line as written by CsvWriter: cells quoted when they hold a comma, quote or
// newline, quotes doubled. Returns false on a malformed line.
bool split_csv_line(const std::string& line, std::vector<std::string>& cells) {
  cells.clear();
  std::string cell;
  bool quoted = false, in_quotes = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') in_quotes = false;
      else cell += c;
    } else if (c == '"' && cell.empty() && !quoted) {
      in_quotes = quoted = true;
    } else if (c == ',') {
      cells.push_back(cell);
      cell.clear();
      quoted = false;
    } else {
      cell += c;
    }
  }
  cells.push_back(cell);
  return !in_quotes;
}

// The data row of a point's point.csv, if it is there and well-formed.
std::optional<std::vector<std::string>> read_marker(const fs::path& file, std::size_t width) {
  std::ifstream in(file);
  std::string header, row;
  if (!std::getline(in, header) || !std::getline(in, row)) return std::nullopt;
  std::vector<std::string> cells;
  if (!split_csv_line(row, cells) || cells.size() != width) return std::nullopt;
  return cells;
}

bool same_definition(const std::vector<std::string>& row, const SweepPoint& p) {
  if (row[0] != std::to_string(p.index) || row[1] != std::to_string(p.seed)) return false;
  for (std::size_t i = 0; i < p.values.size(); ++i)
    if (row[2 + i] != p.values[i]) return false;
  return true;
}

void write_row(output::CsvWriter& csv, const SweepPoint& p, const std::string& status, const std::string& error,
               const std::vector<experiment::Figure>& figures) {
  csv.cell(static_cast<std::int64_t>(p.index)).cell(static_cast<std::uint64_t>(p.seed));
  for (const auto& v : p.values) csv.cell(std::string_view(v));
  csv.cell(std::string_view(status)).cell(std::string_view(error));
  const auto names = experiment::figure_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i < figures.size()) csv.cell(std::string_view(figures[i].value));
    else csv.empty_cell();
  }
  csv.end_row();
}

void run_point(const SweepSpec& spec, const SweepPoint& p, const fs::path& dir, unsigned threads, bool& failed) {
  const fs::path point_dir = point_directory(dir, p.index);
  std::string status = "ok", error;
  std::vector<experiment::Figure> figures;
  try {
    output::prepare_output_directory(point_dir);
    std::error_code ignored;
    fs::remove(point_dir / "point.csv", ignored);
    fs::remove(point_dir / "error.txt", ignored);
    experiment::JobOptions job;
    job.threads = threads;
    figures = experiment::run_to_directory(p.scenario, point_dir, job).figures;
  } catch (const std::exception& e) {
    status = "failed";
    error = e.what();
  }
  failed = status != "ok";
  try {
    if (failed) output::write_file_atomically(point_dir / "error.txt", error + "\n");
    output::CsvWriter marker(point_dir / "point.csv", columns(spec));
    write_row(marker, p, status, error, figures);
    marker.commit();
  } catch (const std::exception&) {
    failed = true;  // the point cannot be recorded: it will run again next time
  }
}

}  // namespace

fs::path point_directory(const fs::path& dir, std::size_t index) {
  return dir / "points" / fmt::format("{:04}", index);
}

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options) {
  const fs::path& dir = options.output_dir;
  output::prepare_output_directory(dir);
  const std::size_t width = columns(spec).size();
  std::vector<const SweepPoint*> todo;
  SweepOutcome outcome;
  for (const auto& p : spec.points) {
    if (options.shard && p.index % options.shard->count != options.shard->index - 1) continue;
    const auto marker = read_marker(point_directory(dir, p.index) / "point.csv", width);
    if (marker && (*marker)[2 + spec.axes.size()] == "ok" && same_definition(*marker, p)) {
      ++outcome.skipped;
      continue;
    }
    todo.push_back(&p);
  }
  std::atomic<std::size_t> next{0};
  std::mutex report;
  std::size_t finished = 0;
  const auto worker = [&] {
    for (std::size_t i = next++; i < todo.size(); i = next++) {
      bool failed = false;
      run_point(spec, *todo[i], dir, options.threads_per_point, failed);
      const std::lock_guard<std::mutex> lock(report);
      ++finished;
      ++outcome.ran;
      outcome.failed += failed ? 1 : 0;
      if (options.on_point_done) options.on_point_done(finished, todo.size(), outcome.failed);
    }
  };
  std::vector<std::thread> threads;
  const unsigned jobs = std::max(1u, std::min<unsigned>(options.jobs, static_cast<unsigned>(todo.size())));
  for (unsigned j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  return outcome;
}

std::size_t write_sweep_table(const SweepSpec& spec, const fs::path& dir) {
  const auto cols = columns(spec);
  output::CsvWriter csv(dir / "sweep.csv", cols);
  std::size_t missing = 0;
  for (const auto& p : spec.points) {
    const auto marker = read_marker(point_directory(dir, p.index) / "point.csv", cols.size());
    if (marker && same_definition(*marker, p)) {
      for (const auto& cell : *marker) csv.cell(std::string_view(cell));
      csv.end_row();
    } else {
      ++missing;
      write_row(csv, p, "missing", "", {});
    }
  }
  csv.commit();
  return missing;
}

}  // namespace pssim::sweep
