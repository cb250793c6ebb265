#include "models/data/idx.hpp"

#include <filesystem>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <zlib.h>

namespace pssim::models {
namespace {

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzPtr = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

// Reads up to n bytes; returns how many were read (fewer at end of file).
std::size_t read_some(gzFile f, void* dst, std::size_t n, const std::string& path) {
  std::size_t done = 0;
  auto* out = static_cast<unsigned char*>(dst);
  while (done < n) {
    const unsigned chunk = unsigned(std::min<std::size_t>(n - done, 1u << 30));
    const int got = gzread(f, out + done, chunk);
    if (got < 0) {
      int code = 0;
      const char* msg = gzerror(f, &code);
      throw std::runtime_error(fmt::format(
          "IDX file '{}' cannot be decompressed ({}); the file is damaged or truncated: "
          "reinstall or re-download it",
          path, msg ? msg : "zlib error"));
    }
    if (got == 0) break;
    done += std::size_t(got);
  }
  return done;
}

}  // namespace

IdxArray read_idx(const std::string& path, int expected_ndims, const std::string& missing_hint) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw std::runtime_error(fmt::format("IDX file '{}' does not exist{}", path,
                                         missing_hint.empty() ? "" : "; " + missing_hint));
  }
  GzPtr f(gzopen(path.c_str(), "rb"));
  if (!f) {
    throw std::runtime_error(
        fmt::format("IDX file '{}' cannot be opened; check its permissions", path));
  }
  unsigned char magic[4] = {};
  const auto got_magic = read_some(f.get(), magic, 4, path);
  const std::uint32_t magic_value =
      (std::uint32_t(magic[0]) << 24) | (std::uint32_t(magic[1]) << 16) |
      (std::uint32_t(magic[2]) << 8) | std::uint32_t(magic[3]);
  const std::uint32_t expected = 0x00000800u | std::uint32_t(expected_ndims);
  if (got_magic < 4 || magic_value != expected) {
    throw std::runtime_error(fmt::format(
        "IDX file '{}' has magic number 0x{:08x}, expected 0x{:08x} (unsigned bytes, {} "
        "dimension{}): it is not an IDX {} file; pass the {} file of the pair "
        "(*-images-idx3-ubyte[.gz] holds images, *-labels-idx1-ubyte[.gz] labels)",
        path, got_magic < 4 ? 0u : magic_value, expected, expected_ndims,
        expected_ndims == 1 ? "" : "s", expected_ndims == 1 ? "label" : "image",
        expected_ndims == 1 ? "labels" : "images"));
  }
  IdxArray out;
  out.dims.resize(std::size_t(expected_ndims));
  std::size_t total = 1;
  for (auto& d : out.dims) {
    unsigned char b[4];
    if (read_some(f.get(), b, 4, path) < 4) {
      throw std::runtime_error(fmt::format(
          "IDX file '{}' is truncated inside its header; reinstall or re-download it", path));
    }
    d = (std::uint32_t(b[0]) << 24) | (std::uint32_t(b[1]) << 16) | (std::uint32_t(b[2]) << 8) |
        std::uint32_t(b[3]);
    total *= d;
  }
  out.data.resize(total);
  const auto got = read_some(f.get(), out.data.data(), total, path);
  if (got < total) {
    std::string dims;
    for (auto d : out.dims) dims += fmt::format("{}{}", dims.empty() ? "" : " x ", d);
    throw std::runtime_error(fmt::format(
        "IDX file '{}' is truncated: its header announces {} = {} bytes of data but it holds "
        "only {}; reinstall or re-download it",
        path, dims, total, got));
  }
  return out;
}

void write_idx(const std::string& path, const std::vector<std::uint32_t>& dims,
               const std::vector<std::uint8_t>& data, bool gzip) {
  GzPtr f(gzopen(path.c_str(), gzip ? "wb6" : "wbT"));  // T: transparent (no compression)
  if (!f) throw std::runtime_error(fmt::format("write_idx: cannot create '{}'", path));
  std::vector<unsigned char> header{0, 0, 0x08, static_cast<unsigned char>(dims.size())};
  for (auto d : dims) {
    header.push_back(static_cast<unsigned char>(d >> 24));
    header.push_back(static_cast<unsigned char>(d >> 16));
    header.push_back(static_cast<unsigned char>(d >> 8));
    header.push_back(static_cast<unsigned char>(d));
  }
  if (gzwrite(f.get(), header.data(), unsigned(header.size())) != int(header.size()) ||
      (!data.empty() && gzwrite(f.get(), data.data(), unsigned(data.size())) != int(data.size()))) {
    throw std::runtime_error(fmt::format("write_idx: cannot write '{}'", path));
  }
}

}  // namespace pssim::models
