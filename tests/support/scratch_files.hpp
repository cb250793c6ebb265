// Files a test writes: a directory of its own under the system's temporary directory
// (named with the process id, so tests running at once never share one), and files
// written into it with their parent directories.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace pssim::test {

/// `<temp>/<prefix>-<pid>`, created.
inline std::filesystem::path scratch_directory(const std::string& prefix) {
  const auto dir = std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

/// Writes `text` to `p` (creating its directories) and returns `p`.
inline std::filesystem::path write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

}  // namespace pssim::test
