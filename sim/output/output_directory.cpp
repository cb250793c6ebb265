#include "sim/output/output_directory.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace pssim::output {
namespace {

namespace fs = std::filesystem;

// "<name>.tmp.<digits>.<digits>", as AtomicFile names its temporaries.
bool is_temporary_of(const std::string& file, const std::string& name) {
  const std::string prefix = name + ".tmp.";
  if (file.size() <= prefix.size() || file.compare(0, prefix.size(), prefix) != 0) return false;
  const std::string rest = file.substr(prefix.size());
  const auto dot = rest.find('.');
  if (dot == 0 || dot == std::string::npos || dot + 1 == rest.size()) return false;
  return rest.find_first_not_of("0123456789.") == std::string::npos && rest.find('.', dot + 1) == std::string::npos;
}

}  // namespace

void remove_outputs(const fs::path& dir, const std::vector<std::string>& names) {
  std::error_code ignored;
  for (const auto& name : names) fs::remove(dir / name, ignored);
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(dir, ignored), end; !ignored && it != end; it.increment(ignored)) {
    const std::string file = it->path().filename().string();
    for (const auto& name : names)
      if (is_temporary_of(file, name)) stale.push_back(it->path());
  }
  for (const auto& p : stale) fs::remove(p, ignored);
}

void check_not_an_output(const fs::path& input, const fs::path& dir, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    std::error_code ec;
    if (fs::equivalent(input, dir / name, ec) && !ec)
      throw std::invalid_argument(fmt::format("{} is the input of this command and would be replaced by its output "
                                              "{}: write the results elsewhere (-o DIR)",
                                              input.string(), (dir / name).string()));
  }
}

}  // namespace pssim::output
