#include "sim/sweep/point_record.hpp"

#include <fstream>
#include <sstream>

namespace pssim::sweep {
namespace {

namespace fs = std::filesystem;

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

// The data row of a point.csv, if it is there and well-formed.
std::optional<std::vector<std::string>> read_marker(const fs::path& file, std::size_t width) {
  std::ifstream in(file);
  std::string header, row;
  if (!std::getline(in, header) || !std::getline(in, row)) return std::nullopt;
  std::vector<std::string> cells;
  if (!split_csv_line(row, cells) || cells.size() != width) return std::nullopt;
  return cells;
}

bool names_point(const std::vector<std::string>& row, const SweepPoint& p) {
  if (row[0] != std::to_string(p.index) || row[1] != std::to_string(p.seed)) return false;
  for (std::size_t i = 0; i < p.values.size(); ++i)
    if (row[2 + i] != p.values[i]) return false;
  return true;
}

bool file_holds(const fs::path& file, const std::string& text) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::ostringstream content;
  content << in.rdbuf();
  return content.str() == text;
}

}  // namespace

std::vector<std::string> record_columns(const SweepSpec& spec) {
  std::vector<std::string> c = {"point", "seed"};
  c.insert(c.end(), spec.axes.begin(), spec.axes.end());
  c.push_back("status");
  c.push_back("error");
  for (const auto& f : experiment::figure_names(has_dynamics(spec))) c.push_back(f);
  return c;
}

bool has_dynamics(const SweepSpec& spec) { return spec.dynamics; }

void write_record_row(output::CsvWriter& csv, const SweepPoint& p, const std::string& status,
                      const std::string& error, const std::vector<experiment::Figure>& figures, bool dynamics) {
  csv.cell(static_cast<std::int64_t>(p.index)).cell(static_cast<std::uint64_t>(p.seed));
  for (const auto& v : p.values) csv.cell(std::string_view(v));
  csv.cell(std::string_view(status)).cell(std::string_view(error));
  const auto names = experiment::figure_names(dynamics);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i < figures.size()) csv.cell(std::string_view(figures[i].value));
    else csv.empty_cell();
  }
  csv.end_row();
}

std::optional<std::vector<std::string>> current_record(const SweepSpec& spec, const SweepPoint& p,
                                                       const fs::path& point_dir) {
  auto row = read_marker(point_dir / "point.csv", record_columns(spec).size());
  if (!row || !names_point(*row, p)) return std::nullopt;
  if (!file_holds(point_dir / "scenario.yaml", scenario::resolved_yaml(p.scenario))) return std::nullopt;
  return row;
}

}  // namespace pssim::sweep
