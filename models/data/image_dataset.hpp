// ImageDataset: labelled images in memory, as the classification networks read them.
//
// Pixels are float32 in C order [N, C*H*W] as networks read them; IDX bytes b become
// (b / 255 - mean) / std (torchvision's ToTensor, then Normalize when mean/std are given).
// Sources: Fashion-MNIST found at Debian's dataset-fashion-mnist location, MNIST or
// Fashion-MNIST from a directory given by path (file names as distributed, gzipped or
// not), an explicit pair of IDX files, or synthetic data (data/synthetic.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "models/layers/layer.hpp"

namespace pssim::models {

// Pixels are held in one of two forms: `images` as float32 (synthetic data), or `bytes`
// as read from IDX files — a quarter of the memory (Fashion-MNIST: 55 MB instead of
// 220 MB), turned into floats as they are read: byte * byte_scale - byte_shift.
struct ImageDataset {
  std::string name;                 ///< for messages, e.g. "fashion-mnist/train"
  std::string images_path, labels_path;  ///< the IDX files read (empty for synthetic data)
  Shape3 shape{1, 28, 28};          ///< one image
  std::int64_t num_classes = 10;
  std::vector<float> images;        ///< [N, C*H*W] float32 pixels, or empty when `bytes` holds them
  std::vector<std::uint8_t> bytes;  ///< [N, C*H*W] IDX bytes, or empty
  float byte_scale = 1.0f, byte_shift = 0.0f;
  std::vector<std::int32_t> labels; ///< [N], in [0, num_classes)
  std::int64_t size() const { return std::int64_t(labels.size()); }

  /// Image i as float32, written to out[0 .. C*H*W).
  void copy_image(std::int64_t i, float* out) const;
  /// Images [first, first + count) as float32 [count, C*H*W]: a view of `images`, or of
  /// `buffer` filled from `bytes` (then valid until `buffer` changes).
  std::span<const float> floats(std::int64_t first, std::int64_t count, std::vector<float>& buffer) const;
};

enum class Split { train, test };

/// Where Debian's dataset-fashion-mnist installs the gzipped IDX files.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

/// Pixel scaling: x = (byte / 255 - mean) / std.
struct PixelScaling {
  double mean = 0.0, std = 1.0;
};

/// Reads an image IDX file and a label IDX file of the same split. num_classes is the
/// largest label + 1, at least 10. Throws DataError naming the file for every bad-file
/// case of read_idx, for a file with no images or images of 0 pixels, and for an image /
/// label count mismatch.
ImageDataset load_idx_pair(const std::string& images_path, const std::string& labels_path,
                           const std::string& name, PixelScaling scaling = {},
                           const std::string& missing_hint = "");

/// Checks that `test` fits the network trained on `train`: the same image shape, every
/// label below train.num_classes (which `test` then takes). Throws DataError naming both
/// files. Called when the data is loaded, so a mismatch is not found at the first
/// evaluation.
void check_test_split(const ImageDataset& train, ImageDataset& test);

/// MNIST-style directory: {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz] (the .gz is
/// used when present). `dir` empty: Debian's Fashion-MNIST location; a missing file then
/// names the package to install.
ImageDataset load_mnist_dir(const std::string& dir, Split split, PixelScaling scaling = {});
/// The four IDX files load_mnist_dir reads from `dir` (empty: kFashionMnistDir): train
/// images and labels, then test images and labels, each gzipped or not as found.
std::vector<std::string> mnist_dir_files(const std::string& dir);

}  // namespace pssim::models
