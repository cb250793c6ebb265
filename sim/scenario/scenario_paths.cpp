#include "sim/scenario/scenario_paths.hpp"

#include <filesystem>
#include <optional>
#include <system_error>

namespace pssim::scenario {
namespace fs = std::filesystem;

namespace {

bool file_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

// The directory of the file `source` names, when it is a file (an override's source is a
// description such as "<--set key=value>", a Python text's "<python>").
std::optional<fs::path> directory_of_file(const std::string& source) {
  std::error_code ec;
  if (source.empty() || !fs::is_regular_file(source, ec)) return std::nullopt;
  return fs::absolute(fs::path(source), ec).parent_path();
}

std::string absolute_normal(const fs::path& p) {
  std::error_code ec;
  const fs::path a = fs::absolute(p, ec);
  return (ec ? p : a).lexically_normal().string();
}

}  // namespace

std::string resolve_scenario_path(const std::string& written, const SourceLocation& where) {
  const fs::path path(written);
  if (written.empty() || path.is_absolute()) return written;
  const auto dir = directory_of_file(where.source);
  if (!dir) return absolute_normal(path);
  const fs::path beside = *dir / path;
  if (!file_exists(beside) && file_exists(path)) return absolute_normal(path);
  return absolute_normal(beside);
}

std::string resolve_module_reference(const std::string& reference, const SourceLocation& where) {
  const auto colon = reference.rfind(':');
  if (colon == std::string::npos || colon == 0) return reference;
  return resolve_scenario_path(reference.substr(0, colon), where) + reference.substr(colon);
}

}  // namespace pssim::scenario
