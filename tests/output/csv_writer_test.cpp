#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "sim/output/csv_writer.hpp"

using pssim::output::CsvWriter;

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("preformatted cells are the cells the writer would format", "[csv]") {
  const auto dir = std::filesystem::temp_directory_path() / ("pssim-csv-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    CsvWriter a(dir / "a.csv", {"x", "name"});
    CsvWriter b(dir / "b.csv", {"x", "name"});
    for (double v : {0.0, 0.1, 1e-300, 5242.96613333, 0.0018355442443862557, -2.5, 1.0 / 0.0, 0.0 / 0.0})
      for (const char* text : {"worker-3 -> switch", "a,b", "say \"hi\""}) {
        a.cell(v).cell(std::string_view(text));
        a.end_row();
        b.formatted_cell(CsvWriter::format(v)).formatted_cell(CsvWriter::format_text(text));
        b.end_row();
      }
    a.commit();
    b.commit();
  }
  const std::string a = read(dir / "a.csv");
  CHECK(a == read(dir / "b.csv"));
  CHECK(a.find("\"a,b\"") != std::string::npos);
  CHECK(a.find("\"say \"\"hi\"\"\"") != std::string::npos);
  CHECK(CsvWriter::format(0.1) == "0.1");
  std::filesystem::remove_all(dir);
}
