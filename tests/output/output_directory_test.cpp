// Housekeeping of output directories: earlier outputs and killed writers' temporaries go,
// other files stay; an input is never among the outputs.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "sim/output/atomic_file.hpp"
#include "sim/output/output_directory.hpp"

namespace fs = std::filesystem;
using namespace pssim::output;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("pssim-outdir-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void touch(const fs::path& p) { std::ofstream(p) << "x"; }

}  // namespace

TEST_CASE("remove_outputs removes the named files and their temporaries only", "[output]") {
  const fs::path dir = fresh_dir("remove");
  for (const char* name : {"summary.json", "summary.json.tmp.123.0", "metrics.csv.tmp.9.17", "metrics.csv.tmp.x.1",
                           "metrics.csv.tmp.1", "metrics.csv.tmp.1.2.3", "notes.txt", "notes.txt.tmp.1.2",
                           "summary.json.bak"})
    touch(dir / name);
  remove_outputs(dir, {"summary.json", "metrics.csv"});
  for (const char* gone : {"summary.json", "summary.json.tmp.123.0", "metrics.csv.tmp.9.17"})
    CHECK_FALSE(fs::exists(dir / gone));
  // Not AtomicFile temporaries of a named output: kept.
  for (const char* kept : {"metrics.csv.tmp.x.1", "metrics.csv.tmp.1", "metrics.csv.tmp.1.2.3", "notes.txt",
                           "notes.txt.tmp.1.2", "summary.json.bak"})
    CHECK(fs::exists(dir / kept));
}

TEST_CASE("remove_outputs matches the temporaries AtomicFile really leaves", "[output]") {
  const fs::path dir = fresh_dir("atomic");
  {
    AtomicFile unfinished(dir / "links.csv");
    unfinished.write("half");
    // A kill now would leave the temporary: copy it before the destructor removes it.
    for (const auto& entry : fs::directory_iterator(dir)) fs::copy_file(entry.path(), dir / "copy");
  }
  REQUIRE(fs::exists(dir / "copy"));
  fs::rename(dir / "copy", dir / ("links.csv.tmp." + std::to_string(::getpid()) + ".0"));
  remove_outputs(dir, {"links.csv"});
  CHECK(fs::is_empty(dir));
}

TEST_CASE("check_not_an_output refuses to replace an input", "[output]") {
  const fs::path dir = fresh_dir("input");
  touch(dir / "scenario.yaml");
  CHECK_THROWS_AS(check_not_an_output(dir / "scenario.yaml", dir, {"summary.json", "scenario.yaml"}),
                  std::invalid_argument);
  // The same file by another name is the same file.
  CHECK_THROWS_WITH(check_not_an_output(dir / ".." / "input" / "scenario.yaml", dir, {"scenario.yaml"}),
                    Catch::Contains("would be replaced by its output"));
  CHECK_NOTHROW(check_not_an_output(dir / "scenario.yaml", dir / "elsewhere", {"scenario.yaml"}));
  CHECK_NOTHROW(check_not_an_output(dir / "missing.yaml", dir, {"scenario.yaml"}));
}
