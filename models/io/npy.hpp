// NumPy .npy files (format version 1.0): float32 ('<f4'), float64 ('<f8') and int64
// ('<i8') arrays in C order, little-endian. Enough to exchange parameters, batches and
// gradients with numpy / PyTorch (numpy.load, torch.from_numpy).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pssim::models {

void write_npy(const std::string& path, std::span<const float> data,
               const std::vector<std::int64_t>& shape);
void write_npy(const std::string& path, std::span<const double> data,
               const std::vector<std::int64_t>& shape);
void write_npy(const std::string& path, std::span<const std::int64_t> data,
               const std::vector<std::int64_t>& shape);

struct NpyArray {
  std::string descr;                 ///< '<f4', '<f8' or '<i8'
  std::vector<std::int64_t> shape;
  std::vector<float> f32;            ///< filled for '<f4' and '<f8' (converted)
  std::vector<std::int64_t> i64;     ///< filled for '<i8'
};

/// Reads a version 1.x/2.x .npy file in C order of '<f4', '<f8' or '<i8'. Throws
/// std::runtime_error naming the file for a missing file, a bad header, Fortran order, an
/// unsupported dtype or a truncated payload.
NpyArray read_npy(const std::string& path);

}  // namespace pssim::models
