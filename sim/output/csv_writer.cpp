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

namespace {

void append_number(std::string& out, double v) {
  if (std::isfinite(v)) fmt::format_to(std::back_inserter(out), "{}", v);
  else out += std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

void append_text(std::string& out, std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

}  // namespace

std::string CsvWriter::format(double v) {
  std::string s;
  append_number(s, v);
  return s;
}

std::string CsvWriter::format_text(std::string_view text) {
  std::string s;
  append_text(s, text);
  return s;
}

CsvWriter& CsvWriter::cell(double v) {
  separator();
  append_number(buffer_, v);
  return *this;
}

CsvWriter& CsvWriter::formatted_cell(std::string_view cell) {
  separator();
  buffer_ += cell;
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
  append_text(buffer_, text);
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
