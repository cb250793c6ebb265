// CsvWriter: a CSV table written atomically (see AtomicFile), row by row.
//
// Numbers are formatted deterministically (shortest round-trip text for doubles), so the
// same run produces the same bytes. Text cells containing a comma, quote or newline are
// quoted. Rows are buffered and written in large blocks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sim/output/atomic_file.hpp"

namespace pssim::output {

class CsvWriter {
 public:
  CsvWriter(const std::filesystem::path& path, const std::vector<std::string>& columns);

  /// Appends one cell to the current row.
  CsvWriter& cell(double v);
  CsvWriter& cell(std::int64_t v);
  CsvWriter& cell(std::uint64_t v);
  CsvWriter& cell(int v) { return cell(static_cast<std::int64_t>(v)); }
  CsvWriter& cell(std::string_view text);
  /// An empty cell (a value that does not apply to this row).
  CsvWriter& empty_cell();
  /// A cell made by format() or format_text(), appended as it is: a value repeated on
  /// many rows (a bin's start time, a link's name) is formatted once.
  CsvWriter& formatted_cell(std::string_view cell);
  /// The text cell(v) would append.
  static std::string format(double v);
  static std::string format_text(std::string_view text);
  /// Ends the current row; throws std::logic_error if it has the wrong number of cells.
  void end_row();
  /// Writes out and renames the file into place.
  void commit();

  std::size_t rows() const { return rows_; }

 private:
  void separator();
  AtomicFile file_;
  std::size_t columns_;
  std::size_t cells_in_row_ = 0;
  std::size_t rows_ = 0;
  std::string buffer_;
};

}  // namespace pssim::output
