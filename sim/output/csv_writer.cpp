#include "sim/output/csv_writer.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace pssim::output {

CsvWriter::CsvWriter(const std::filesystem::path& path, const std::vector<std::string>& columns)
    : file_(path), columns_(columns.size()) {
  for (const auto& c : columns) cell(std::string_view(c));
  end_row();
  rows_ = 0;
}

void CsvWriter::separator() {
  if (cells_in_row_++ > 0) buffer_ += ',';
}

CsvWriter& CsvWriter::cell(double v) {
  separator();
  if (std::isfinite(v)) fmt::format_to(std::back_inserter(buffer_), "{}", v);
  else buffer_ += std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  return *this;
}

CsvWriter& CsvWriter::cell(std::int64_t v) {
  separator();
  fmt::format_to(std::back_inserter(buffer_), "{}", v);
  return *this;
}

CsvWriter& CsvWriter::cell(std::uint64_t v) {
  separator();
  fmt::format_to(std::back_inserter(buffer_), "{}", v);
  return *this;
}

CsvWriter& CsvWriter::cell(std::string_view text) {
  separator();
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) {
    buffer_ += text;
    return *this;
  }
  buffer_ += '"';
  for (char c : text) {
    if (c == '"') buffer_ += '"';
    buffer_ += c;
  }
  buffer_ += '"';
  return *this;
}

CsvWriter& CsvWriter::empty_cell() {
  separator();
  return *this;
}

void CsvWriter::end_row() {
  if (cells_in_row_ != columns_)
    throw std::logic_error(fmt::format("CSV row has {} cells, the table has {} columns", cells_in_row_, columns_));
  buffer_ += '\n';
  cells_in_row_ = 0;
  ++rows_;
  if (buffer_.size() > (1 << 20)) {
    file_.write(buffer_);
    buffer_.clear();
  }
}

void CsvWriter::commit() {
  file_.write(buffer_);
  buffer_.clear();
  file_.commit();
}

}  // namespace pssim::output
