#include "models/io/npy.hpp"

#include <cstring>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "models/data/data_error.hpp"

namespace pssim::models {
namespace {

template <typename T>
void write_any(const std::string& path, std::span<const T> data,
               const std::vector<std::int64_t>& shape, const char* descr) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  if (n != std::int64_t(data.size())) {
    throw std::invalid_argument(fmt::format("write_npy '{}': shape holds {} elements, data {}",
                                            path, n, data.size()));
  }
  std::string shape_str = "(";
  for (auto d : shape) shape_str += fmt::format("{}, ", d);
  if (shape.size() > 1) shape_str.resize(shape_str.size() - 2);  // (3, 4); a 1-tuple keeps ","
  else if (shape.size() == 1) shape_str.resize(shape_str.size() - 1);
  shape_str += ")";
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape_str);
  // Magic (6) + version (2) + length (2) + header + '\n' is padded to a multiple of 64.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(fmt::format("write_npy: cannot create '{}'", path));
  const unsigned char pre[8] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.write(reinterpret_cast<const char*>(pre), 8);
  const auto len = static_cast<std::uint16_t>(header.size());
  const unsigned char len_le[2] = {static_cast<unsigned char>(len & 0xff),
                                   static_cast<unsigned char>(len >> 8)};
  out.write(reinterpret_cast<const char*>(len_le), 2);
  out.write(header.data(), std::streamsize(header.size()));
  out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size_bytes()));
  if (!out) throw std::runtime_error(fmt::format("write_npy: cannot write '{}'", path));
}

std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
  const auto k = header.find("'" + key + "'");
  if (k == std::string::npos) {
    throw DataError(fmt::format("npy file '{}': header lacks '{}'", path, key));
  }
  auto v = header.find(':', k);
  if (v == std::string::npos) throw DataError(fmt::format("npy file '{}': bad header", path));
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  std::size_t end = v;
  if (header[v] == '(') end = header.find(')', v) + 1;
  else if (header[v] == '\'') end = header.find('\'', v + 1) + 1;
  else end = header.find_first_of(",}", v);
  return header.substr(v, end - v);
}

}  // namespace

void write_npy(const std::string& path, std::span<const float> data,
               const std::vector<std::int64_t>& shape) {
  write_any(path, data, shape, "<f4");
}
void write_npy(const std::string& path, std::span<const double> data,
               const std::vector<std::int64_t>& shape) {
  write_any(path, data, shape, "<f8");
}
void write_npy(const std::string& path, std::span<const std::int64_t> data,
               const std::vector<std::int64_t>& shape) {
  write_any(path, data, shape, "<i8");
}

NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw DataError(fmt::format(
        "npy file '{}' cannot be opened; check the path (export one with pssim grad)", path));
  }
  unsigned char pre[8];
  if (!in.read(reinterpret_cast<char*>(pre), 8) || std::memcmp(pre, "\x93NUMPY", 6) != 0) {
    throw DataError(fmt::format("'{}' is not a .npy file (bad magic)", path));
  }
  std::size_t header_len = 0;
  if (pre[6] == 1) {
    unsigned char b[2];
    in.read(reinterpret_cast<char*>(b), 2);
    header_len = std::size_t(b[0]) | (std::size_t(b[1]) << 8);
  } else {
    unsigned char b[4];
    in.read(reinterpret_cast<char*>(b), 4);
    header_len = std::size_t(b[0]) | (std::size_t(b[1]) << 8) | (std::size_t(b[2]) << 16) |
                 (std::size_t(b[3]) << 24);
  }
  std::string header(header_len, '\0');
  if (!in.read(header.data(), std::streamsize(header_len))) {
    throw DataError(fmt::format("npy file '{}' is truncated in its header", path));
  }
  NpyArray a;
  const auto descr = dict_value(header, "descr", path);
  a.descr = descr.size() >= 2 ? descr.substr(1, descr.size() - 2) : descr;
  if (dict_value(header, "fortran_order", path) != "False") {
    throw DataError(fmt::format(
        "npy file '{}' is in Fortran order; save it with numpy.ascontiguousarray", path));
  }
  const auto shape = dict_value(header, "shape", path);
  std::int64_t n = 1;
  for (std::size_t i = 1; i < shape.size();) {
    while (i < shape.size() && !std::isdigit(static_cast<unsigned char>(shape[i]))) ++i;
    if (i >= shape.size()) break;
    std::size_t used = 0;
    const auto d = std::stoll(shape.substr(i), &used);
    a.shape.push_back(d);
    n *= d;
    i += used;
  }
  auto read_payload = [&](void* dst, std::size_t bytes) {
    if (!in.read(static_cast<char*>(dst), std::streamsize(bytes))) {
      throw DataError(fmt::format(
          "npy file '{}' is truncated: shape {} needs {} bytes of data", path, shape, bytes));
    }
  };
  if (a.descr == "<f4") {
    a.f32.resize(std::size_t(n));
    read_payload(a.f32.data(), a.f32.size() * 4);
  } else if (a.descr == "<f8") {
    std::vector<double> tmp(static_cast<std::size_t>(n));
    read_payload(tmp.data(), tmp.size() * 8);
    a.f32.assign(tmp.begin(), tmp.end());
  } else if (a.descr == "<i8") {
    a.i64.resize(std::size_t(n));
    read_payload(a.i64.data(), a.i64.size() * 8);
  } else {
    throw DataError(fmt::format(
        "npy file '{}' has dtype '{}'; supported: <f4 (float32), <f8, <i8 (int64)", path, a.descr));
  }
  return a;
}

}  // namespace pssim::models
