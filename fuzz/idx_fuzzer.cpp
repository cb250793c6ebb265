// libFuzzer target: the IDX reader and the image/label pair loader.
//
// Input: the bytes of a file. Each input is read as an IDX image file and as a label file,
// as it is and gzip-compressed (so that mutations reach the header behind a valid gzip
// stream), and, cut in two at a point chosen by its first byte, as an image file and a
// label file of one split. Every read must succeed or throw models::DataError (a message
// naming the file); anything else (another exception, a crash, a sanitizer report, an
// allocation beyond -rss_limit_mb, a timeout) is a bug.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>
#include <vector>

#include "fuzz/memory_file.hpp"
#include "models/data/data_error.hpp"
#include "models/data/idx.hpp"
#include "models/data/image_dataset.hpp"

namespace {

using pssim::fuzz::MemoryFile;
namespace models = pssim::models;

// `bytes` gzip-compressed into a memory file.
void write_gzip(const MemoryFile& file, std::string_view bytes) {
  gzFile gz = gzdopen(::dup(file.fd()), "wb1");
  if (!gz) std::abort();
  if (!bytes.empty() && gzwrite(gz, bytes.data(), unsigned(bytes.size())) != int(bytes.size())) std::abort();
  if (gzclose(gz) != Z_OK) std::abort();
}

template <typename Body>
void expect_data_error_or_success(Body body) {
  try {
    body();
  } catch (const models::DataError& e) {
    if (std::string_view(e.what()).find("/proc/self/fd/") == std::string_view::npos) {
      std::fprintf(stderr, "a data error that does not name the file: %s\n", e.what());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception: %s\n", e.what());
    std::abort();
  }
}

void read_both_ways(const std::string& path) {
  for (int ndims : {1, 3}) {
    expect_data_error_or_success([&] {
      const models::IdxArray a = models::read_idx(path, ndims);
      std::size_t n = 1;
      for (auto d : a.dims) n *= d;
      if (a.dims.size() != std::size_t(ndims) || a.data.size() != n) std::abort();
    });
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  {
    const MemoryFile raw(bytes);
    read_both_ways(raw.path());
  }
  {
    const MemoryFile gz("");
    write_gzip(gz, bytes);
    read_both_ways(gz.path());
  }
  if (size > 1) {
    const std::size_t cut = 1 + (size - 1) * data[0] / 255;
    const MemoryFile images(bytes.substr(1, cut - 1)), labels(bytes.substr(cut));
    expect_data_error_or_success([&] {
      models::ImageDataset train = models::load_idx_pair(images.path(), labels.path(), "fuzz");
      if (train.size() < 1 || train.bytes.size() != std::size_t(train.size() * train.shape.numel())) std::abort();
      models::ImageDataset test = train;
      models::check_test_split(train, test);  // a split always fits itself
      std::vector<float> pixels;
      const auto first = train.floats(0, 1, pixels);
      if (first.size() != std::size_t(train.shape.numel())) std::abort();
    });
  }
  return 0;
}
