// A fresh directory under the system temp dir, removed with its contents on destruction.
#pragma once

#include <filesystem>
#include <string>

#include <atomic>

#include <unistd.h>

namespace pssim::models::testing {

class TempDir {
 public:
  TempDir() {
    // Unique per process (ctest runs test executables in parallel) and per instance.
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("pssim-models-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace pssim::models::testing
