#include "models/data/image_dataset.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "models/data/data_error.hpp"
#include "models/data/idx.hpp"

namespace pssim::models {

void ImageDataset::copy_image(std::int64_t i, float* out) const {
  const auto d = shape.numel();
  if (!images.empty()) {
    std::copy_n(images.begin() + std::ptrdiff_t(i * d), d, out);
    return;
  }
  const std::uint8_t* src = bytes.data() + i * d;
  for (std::int64_t j = 0; j < d; ++j) out[j] = float(src[j]) * byte_scale - byte_shift;
}

std::span<const float> ImageDataset::floats(std::int64_t first, std::int64_t count, std::vector<float>& buffer) const {
  const auto d = shape.numel();
  if (!images.empty()) return {images.data() + first * d, std::size_t(count * d)};
  buffer.resize(std::size_t(count * d));
  for (std::int64_t k = 0; k < count; ++k) copy_image(first + k, buffer.data() + k * d);
  return buffer;
}

ImageDataset load_idx_pair(const std::string& images_path, const std::string& labels_path,
                           const std::string& name, PixelScaling scaling,
                           const std::string& missing_hint) {
  if (!(scaling.std > 0)) {
    throw std::invalid_argument(fmt::format("data.pixel_std {} must be > 0", scaling.std));
  }
  const IdxArray images = read_idx(images_path, 3, missing_hint);
  const IdxArray labels = read_idx(labels_path, 1, missing_hint);
  if (images.dims[0] == 0) {
    throw DataError(fmt::format("IDX file '{}' holds no images (its header claims 0 x {} x {}): give a file "
                                "with at least one image",
                                images_path, images.dims[1], images.dims[2]));
  }
  if (images.dims[1] == 0 || images.dims[2] == 0) {
    throw DataError(fmt::format("IDX file '{}' claims images of {} x {} pixels: its header is damaged",
                                images_path, images.dims[1], images.dims[2]));
  }
  if (images.dims[0] != labels.dims[0]) {
    throw DataError(fmt::format(
        "IDX files '{}' ({} images) and '{}' ({} labels) do not match; pair the images and "
        "labels of the same split (train-* with train-*, t10k-* with t10k-*)",
        images_path, images.dims[0], labels_path, labels.dims[0]));
  }
  ImageDataset ds;
  ds.name = name;
  ds.images_path = images_path;
  ds.labels_path = labels_path;
  ds.shape = Shape3{1, std::int64_t(images.dims[1]), std::int64_t(images.dims[2])};
  const auto n = std::size_t(images.dims[0]);
  ds.bytes.assign(images.data.begin(), images.data.end());
  ds.byte_scale = float(1.0 / (255.0 * scaling.std));
  ds.byte_shift = float(scaling.mean / scaling.std);
  ds.labels.resize(n);
  std::int32_t max_label = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ds.labels[i] = labels.data[i];
    max_label = std::max(max_label, ds.labels[i]);
  }
  ds.num_classes = std::max<std::int64_t>(10, max_label + 1);
  return ds;
}

void check_test_split(const ImageDataset& train, ImageDataset& test) {
  if (test.shape != train.shape) {
    throw DataError(fmt::format("test images '{}' are {} x {} pixels but training images '{}' are {} x {}: give "
                                "the training and test files of one dataset",
                                test.images_path, test.shape.h, test.shape.w, train.images_path, train.shape.h,
                                train.shape.w));
  }
  for (std::size_t i = 0; i < test.labels.size(); ++i) {
    if (test.labels[i] >= train.num_classes) {
      throw DataError(fmt::format("test label {} (item {} of '{}') is outside the classes of the training labels "
                                  "'{}' (0 to {}): give the training and test files of one dataset",
                                  test.labels[i], i, test.labels_path, train.labels_path, train.num_classes - 1));
    }
  }
  test.num_classes = train.num_classes;
}

namespace {
// The gzipped file when it exists or neither does (its name is then in the error), else
// the plain one.
std::string idx_file(const std::string& dir, Split split, const std::string& stem) {
  const std::string base = dir.empty() ? kFashionMnistDir : dir;
  const std::string prefix = split == Split::train ? "train" : "t10k";
  const auto gz = fmt::format("{}/{}-{}.gz", base, prefix, stem);
  const auto raw = fmt::format("{}/{}-{}", base, prefix, stem);
  std::error_code ec;
  if (std::filesystem::exists(gz, ec) || !std::filesystem::exists(raw, ec)) return gz;
  return raw;
}
}  // namespace

std::vector<std::string> mnist_dir_files(const std::string& dir) {
  std::vector<std::string> files;
  for (Split split : {Split::train, Split::test})
    for (const char* stem : {"images-idx3-ubyte", "labels-idx1-ubyte"}) files.push_back(idx_file(dir, split, stem));
  return files;
}

ImageDataset load_mnist_dir(const std::string& dir, Split split, PixelScaling scaling) {
  const bool debian = dir.empty();
  const std::string base = debian ? kFashionMnistDir : dir;
  const std::string prefix = split == Split::train ? "train" : "t10k";
  auto pick = [&](const std::string& stem) { return idx_file(dir, split, stem); };
  const std::string hint =
      debian ? "install the Debian package that provides it (apt-get install "
               "dataset-fashion-mnist), or set data.path to a directory holding the IDX files"
             : fmt::format("set data.path to a directory holding {0}-images-idx3-ubyte[.gz] and "
                           "{0}-labels-idx1-ubyte[.gz] (for Fashion-MNIST: apt-get install "
                           "dataset-fashion-mnist, files in {1})",
                           prefix, kFashionMnistDir);
  return load_idx_pair(pick("images-idx3-ubyte"), pick("labels-idx1-ubyte"),
                       fmt::format("{}/{}", debian ? "fashion-mnist" : base, prefix), scaling,
                       hint);
}

}  // namespace pssim::models
