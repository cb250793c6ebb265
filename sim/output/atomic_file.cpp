#include "sim/output/atomic_file.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace pssim::output {
namespace {

std::atomic<unsigned> temp_counter{0};

std::string os_error() { return std::strerror(errno); }

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path destination) : destination_(std::move(destination)) {
  temporary_ = destination_;
  temporary_ += fmt::format(".tmp.{}.{}", ::getpid(), temp_counter.fetch_add(1));
  file_ = std::fopen(temporary_.c_str(), "wb");
  if (!file_) fail("cannot create " + temporary_.string());
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) {
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
  }
}

void AtomicFile::fail(const std::string& what) const {
  throw OutputError(fmt::format("{}: {}", what, os_error()));
}

void AtomicFile::write(std::string_view text) {
  if (!file_) throw OutputError("write to " + destination_.string() + " after commit");
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) fail("cannot write " + temporary_.string());
}

void AtomicFile::commit() {
  if (!file_) throw OutputError("commit of " + destination_.string() + " twice");
  if (std::fflush(file_) != 0) fail("cannot write " + temporary_.string());
  if (::fsync(::fileno(file_)) != 0) fail("cannot sync " + temporary_.string());
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (closed != 0) fail("cannot close " + temporary_.string());
  if (std::rename(temporary_.c_str(), destination_.c_str()) != 0) fail("cannot rename onto " + destination_.string());
  committed_ = true;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  AtomicFile file(path);
  file.write(content);
  file.commit();
}

void prepare_output_directory(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw OutputError(fmt::format("output directory {} exists and is not a directory", dir.string()));
  fs::create_directories(dir, ec);
  if (ec) throw OutputError(fmt::format("cannot create output directory {}: {}", dir.string(), ec.message()));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw OutputError(fmt::format("cannot write in output directory {}: {}", dir.string(), os_error()));
}

}  // namespace pssim::output
