#include "models/data/idx.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>
#include <zlib.h>

#include "models/data/data_error.hpp"

namespace pssim::models {
namespace {

// zlib's documented bound: deflate expands its input at most 1032 times (a file of n bytes
// decompresses to fewer than 1032 n bytes).
constexpr std::uintmax_t kMaxDeflateRatio = 1032;
// The data buffer of a gzip file starts at this size and at most doubles per read.
constexpr std::size_t kFirstChunk = std::size_t(1) << 20;

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
      throw DataError(fmt::format(
          "IDX file '{}' cannot be decompressed ({}); the file is damaged or truncated: "
          "reinstall or re-download it",
          path, msg ? msg : "zlib error"));
    }
    if (got == 0) break;
    done += std::size_t(got);
  }
  return done;
}

std::uint32_t big_endian(const unsigned char b[4]) {
  return (std::uint32_t(b[0]) << 24) | (std::uint32_t(b[1]) << 16) | (std::uint32_t(b[2]) << 8) | std::uint32_t(b[3]);
}

// "16 x 1073741824 x 1073741824"
std::string dims_text(const std::vector<std::uint32_t>& dims) {
  std::string s;
  for (auto d : dims) s += fmt::format("{}{}", s.empty() ? "" : " x ", d);
  return s;
}

// The product of the sizes, or nullopt when it does not fit in size_t. Innermost first, so
// that the size of one item is checked too when the count is 0.
std::optional<std::size_t> product(const std::vector<std::uint32_t>& dims) {
  std::size_t p = 1;
  for (auto d = dims.rbegin(); d != dims.rend(); ++d)
    if (__builtin_mul_overflow(p, std::size_t(*d), &p)) return std::nullopt;
  return p;
}

std::string truncated(const std::string& path, const std::string& claim, std::size_t total, std::uintmax_t held) {
  return fmt::format("IDX file '{}' is truncated: its header claims {} = {} bytes of data but it holds only {}; "
                     "reinstall or re-download it",
                     path, claim, total, held);
}

std::string trailing(const std::string& path, const std::string& claim, std::size_t total, std::uintmax_t extra,
                     const char* at_least) {
  return fmt::format("IDX file '{}' holds {}{} bytes beyond the {} = {} bytes of data its header claims: it is "
                     "damaged or not an IDX file",
                     path, at_least, extra, claim, total);
}

}  // namespace

IdxArray read_idx(const std::string& path, int expected_ndims, const std::string& missing_hint) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw DataError(
        fmt::format("IDX file '{}' does not exist{}", path, missing_hint.empty() ? "" : "; " + missing_hint));
  }
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw DataError(fmt::format("IDX file '{}' is not a regular file; give the path of an IDX file", path));
  }
  const std::uintmax_t file_size = std::filesystem::file_size(path, ec);
  GzPtr f(gzopen(path.c_str(), "rb"));
  if (ec || !f) throw DataError(fmt::format("IDX file '{}' cannot be opened; check its permissions", path));
  unsigned char magic[4] = {};
  const auto got_magic = read_some(f.get(), magic, 4, path);
  const std::uint32_t magic_value = big_endian(magic);
  const std::uint32_t expected = 0x00000800u | std::uint32_t(expected_ndims);
  if (got_magic < 4 || magic_value != expected) {
    throw DataError(fmt::format(
        "IDX file '{}' has magic number 0x{:08x}, expected 0x{:08x} (unsigned bytes, {} "
        "dimension{}): it is not an IDX {} file; pass the {} file of the pair "
        "(*-images-idx3-ubyte[.gz] holds images, *-labels-idx1-ubyte[.gz] labels)",
        path, got_magic < 4 ? 0u : magic_value, expected, expected_ndims, expected_ndims == 1 ? "" : "s",
        expected_ndims == 1 ? "label" : "image", expected_ndims == 1 ? "labels" : "images"));
  }
  IdxArray out;
  out.dims.resize(std::size_t(expected_ndims));
  for (auto& d : out.dims) {
    unsigned char b[4];
    if (read_some(f.get(), b, 4, path) < 4) {
      throw DataError(fmt::format("IDX file '{}' is truncated inside its header; reinstall or re-download it", path));
    }
    d = big_endian(b);
  }
  const std::string claim = dims_text(out.dims);
  const auto total = product(out.dims);
  if (!total) {
    throw DataError(fmt::format("IDX file '{}' claims {} bytes of data, more than any file can hold: its header is "
                                "damaged or it is not an IDX file",
                                path, claim));
  }
  // Nothing is allocated before the file is known to be able to hold what its header claims.
  const bool raw = gzdirect(f.get()) == 1;
  if (raw) {
    const std::uintmax_t held = file_size - std::uintmax_t(4 + 4 * expected_ndims);
    if (held < *total) throw DataError(truncated(path, claim, *total, held));
    if (held > *total) throw DataError(trailing(path, claim, *total, held - *total, ""));
  } else if (*total / kMaxDeflateRatio > file_size) {
    throw DataError(fmt::format("IDX file '{}' claims {} = {} bytes of data, but a gzip file of {} bytes "
                                "decompresses to at most {}: it is damaged or not an IDX file",
                                path, claim, *total, file_size, file_size * kMaxDeflateRatio));
  }
  // A gzip stream may still end early: the buffer grows with what was read, never to the
  // claimed size ahead of the data.
  std::size_t done = 0;
  while (done < *total) {
    const std::size_t step = std::min(*total - done, std::max(done, kFirstChunk));
    out.data.resize(done + step);
    const std::size_t got = read_some(f.get(), out.data.data() + done, step, path);
    done += got;
    if (got < step) throw DataError(truncated(path, claim, *total, done));
  }
  unsigned char extra[4096];
  if (const std::size_t more = read_some(f.get(), extra, sizeof extra, path); more > 0) {
    throw DataError(trailing(path, claim, *total, more, more == sizeof extra ? "at least " : ""));
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
