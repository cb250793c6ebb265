// IDX reader on generated files (gzipped and raw) with every bad-file error; text corpus;
// synthetic data; partitions; batch sampler.
#include <fstream>
#include <numeric>
#include <set>

#include <catch2/catch.hpp>

#include "models/data/data_error.hpp"
#include "models/data/idx.hpp"
#include "models/data/image_dataset.hpp"
#include "models/data/partition.hpp"
#include "models/data/synthetic.hpp"
#include "models/data/text_corpus.hpp"
#include "models/data/training_data.hpp"
#include "tests/models/temp_dir.hpp"

using namespace pssim::models;
using pssim::models::testing::TempDir;

namespace {
// 5 images of 3x2 with pixel value (i*6 + j) % 256, labels i % 3.
void write_split(const TempDir& dir, const std::string& prefix, bool gzip, std::uint32_t n = 5) {
  std::vector<std::uint8_t> pixels(n * 6), labels(n);
  for (std::uint32_t i = 0; i < n * 6; ++i) pixels[i] = std::uint8_t(i % 256);
  for (std::uint32_t i = 0; i < n; ++i) labels[i] = std::uint8_t(i % 3);
  const std::string ext = gzip ? ".gz" : "";
  write_idx(dir.file(prefix + "-images-idx3-ubyte" + ext), {n, 3, 2}, pixels, gzip);
  write_idx(dir.file(prefix + "-labels-idx1-ubyte" + ext), {n}, labels, gzip);
}
void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}
std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST_CASE("IDX: gzipped and raw files read back exactly", "[data][idx]") {
  for (bool gzip : {true, false}) {
    TempDir dir;
    write_split(dir, "train", gzip);
    write_split(dir, "t10k", gzip, 2);
    const auto ds = load_mnist_dir(dir.path().string(), Split::train);
    CHECK(ds.size() == 5);
    CHECK(ds.shape == Shape3{1, 3, 2});
    CHECK(ds.labels == std::vector<std::int32_t>{0, 1, 2, 0, 1});
    std::vector<float> pixels;
    CHECK(ds.floats(0, 5, pixels)[7] == Approx(7.0f / 255));
    CHECK(ds.bytes.size() == 5 * 6);  // held as bytes: a quarter of the memory
    CHECK(ds.num_classes == 10);
    const auto test = load_mnist_dir(dir.path().string(), Split::test, PixelScaling{0.5, 0.25});
    CHECK(test.size() == 2);
    CHECK(test.floats(0, 2, pixels)[1] == Approx((1.0f / 255 - 0.5f) / 0.25f));
    float second[6];
    test.copy_image(1, second);
    CHECK(second[0] == Approx((6.0f / 255 - 0.5f) / 0.25f));
  }
}

TEST_CASE("IDX: every bad file is an error naming the file and the fix", "[data][idx][errors]") {
  TempDir dir;
  write_split(dir, "train", true);
  const auto images = dir.file("train-images-idx3-ubyte.gz");
  const auto labels = dir.file("train-labels-idx1-ubyte.gz");
  SECTION("missing file: names the Debian package for the default location") {
    CHECK_THROWS_WITH(read_idx(dir.file("nope.gz"), 3, "apt-get install dataset-fashion-mnist"),
                      Catch::Contains("nope.gz' does not exist") &&
                          Catch::Contains("dataset-fashion-mnist"));
    CHECK_THROWS_WITH(load_mnist_dir(dir.file("empty"), Split::train),
                      Catch::Contains("does not exist") && Catch::Contains("data.path"));
  }
  SECTION("wrong magic number: labels passed as images") {
    CHECK_THROWS_WITH(load_idx_pair(labels, images, "x"),
                      Catch::Contains("magic number 0x00000801, expected 0x00000803") &&
                          Catch::Contains("labels-idx1"));
  }
  SECTION("not IDX at all") {
    write_bytes(dir.file("text"), "hello world, not an idx file");
    CHECK_THROWS_WITH(read_idx(dir.file("text"), 1), Catch::Contains("magic number 0x68656c6c"));
  }
  SECTION("truncated raw file") {
    write_idx(dir.file("raw"), {5, 3, 2}, std::vector<std::uint8_t>(30, 1), false);
    const auto bytes = read_bytes(dir.file("raw"));
    write_bytes(dir.file("raw"), bytes.substr(0, bytes.size() - 4));
    CHECK_THROWS_WITH(read_idx(dir.file("raw"), 3),
                      Catch::Contains("is truncated") && Catch::Contains("30 bytes") &&
                          Catch::Contains("only 26"));
    write_bytes(dir.file("raw"), bytes.substr(0, 9));
    CHECK_THROWS_WITH(read_idx(dir.file("raw"), 3), Catch::Contains("truncated inside its header"));
  }
  SECTION("truncated gzip file") {
    const auto bytes = read_bytes(images);
    write_bytes(images, bytes.substr(0, bytes.size() / 2));
    CHECK_THROWS_WITH(read_idx(images, 3), Catch::Contains("train-images-idx3-ubyte.gz"));
  }
  SECTION("image / label count mismatch") {
    write_idx(labels, {4}, {0, 1, 2, 0}, true);
    CHECK_THROWS_WITH(load_idx_pair(images, labels, "x"),
                      Catch::Contains("(5 images)") && Catch::Contains("(4 labels)") &&
                          Catch::Contains("same split"));
  }
}

namespace {
std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
}  // namespace

// A lying header must be caught before anything is allocated: a claim of terabytes that
// reached the allocation would end in std::bad_alloc (or the machine's memory), not in
// the message checked here.
TEST_CASE("IDX: headers that claim more than the file holds cost nothing", "[data][idx][errors]") {
  TempDir dir;
  const auto file = dir.file("lying");
  SECTION("sizes whose product overflows: 16 x 2^30 x 2^30 wraps to 0") {
    write_idx(file, {16, 1u << 30, 1u << 30}, {}, false);
    CHECK_THROWS_AS(read_idx(file, 3), DataError);
    CHECK_THROWS_WITH(read_idx(file, 3), Catch::Contains("claims 16 x 1073741824 x 1073741824 bytes") &&
                                             Catch::Contains("more than any file can hold"));
  }
  SECTION("a 26-byte raw file claiming 2^31 images") {
    write_idx(file, {1u << 31, 28, 28}, bytes_of("1234567890"), false);
    CHECK(read_bytes(file).size() == 26);
    CHECK_THROWS_WITH(read_idx(file, 3), Catch::Contains("is truncated: its header claims 2147483648 x 28 x 28 = "
                                                         "1683627180032 bytes of data but it holds only 10"));
  }
  SECTION("a small gzip file claiming more than it can decompress to") {
    write_idx(file, {4194304, 28, 28}, bytes_of("1234567890"), true);
    CHECK_THROWS_WITH(read_idx(file, 3), Catch::Contains("4194304 x 28 x 28 = 3288334336 bytes") &&
                                             Catch::Contains("decompresses to at most"));
  }
  SECTION("a gzip stream that ends early: the buffer follows the data") {
    // 1.5 MB of incompressible bytes claimed as 3 MB: within zlib's ratio, so it is read
    // incrementally and found short.
    std::vector<std::uint8_t> data(1'500'000);
    std::uint32_t x = 12345;
    for (auto& c : data) c = std::uint8_t((x = x * 1103515245u + 12345u) >> 24);
    write_idx(file, {3'000'000}, data, true);
    CHECK_THROWS_WITH(read_idx(file, 1), Catch::Contains("is truncated: its header claims 3000000 = 3000000 bytes "
                                                         "of data but it holds only 1500000"));
  }
  SECTION("trailing data, raw and gzipped") {
    write_idx(file, {5, 3, 2}, std::vector<std::uint8_t>(34, 1), false);
    CHECK_THROWS_WITH(read_idx(file, 3), Catch::Contains("holds 4 bytes beyond the 5 x 3 x 2 = 30 bytes"));
    write_idx(file, {5, 3, 2}, std::vector<std::uint8_t>(34, 1), true);
    CHECK_THROWS_WITH(read_idx(file, 3), Catch::Contains("holds 4 bytes beyond the 5 x 3 x 2 = 30 bytes"));
  }
  SECTION("a directory, no images, images of 0 pixels") {
    CHECK_THROWS_WITH(read_idx(dir.path().string(), 3), Catch::Contains("is not a regular file"));
    write_idx(dir.file("labels"), {0}, {}, false);
    write_idx(file, {0, 0xffffffffu, 0xffffffffu}, {}, false);
    CHECK_THROWS_WITH(load_idx_pair(file, dir.file("labels"), "x"), Catch::Contains("holds no images"));
    write_idx(dir.file("labels"), {2}, {0, 1}, false);
    write_idx(file, {2, 0, 28}, {}, false);
    CHECK_THROWS_WITH(load_idx_pair(file, dir.file("labels"), "x"), Catch::Contains("images of 0 x 28 pixels"));
  }
}

TEST_CASE("training and test splits are checked against each other when loaded", "[data][idx][errors]") {
  TempDir dir;
  write_split(dir, "train", true);
  DataSpec spec;
  spec.kind = "mnist";
  spec.path = dir.path().string();
  SECTION("image sizes differ") {
    write_idx(dir.file("t10k-images-idx3-ubyte.gz"), {2, 4, 2}, std::vector<std::uint8_t>(16, 1), true);
    write_idx(dir.file("t10k-labels-idx1-ubyte.gz"), {2}, {0, 1}, true);
    CHECK_THROWS_AS(TrainingData::load(spec, 1), DataError);
    CHECK_THROWS_WITH(TrainingData::load(spec, 1),
                      Catch::Contains("t10k-images-idx3-ubyte.gz' are 4 x 2 pixels but training images") &&
                          Catch::Contains("train-images-idx3-ubyte.gz' are 3 x 2"));
  }
  SECTION("a test label beyond the training classes") {
    write_idx(dir.file("t10k-images-idx3-ubyte.gz"), {2, 3, 2}, std::vector<std::uint8_t>(12, 1), true);
    write_idx(dir.file("t10k-labels-idx1-ubyte.gz"), {2}, {0, 12}, true);
    CHECK_THROWS_WITH(TrainingData::load(spec, 1),
                      Catch::Contains("test label 12 (item 1 of '" + dir.file("t10k-labels-idx1-ubyte.gz")) &&
                          Catch::Contains("(0 to 9)"));
  }
  SECTION("no test images") {
    write_idx(dir.file("t10k-images-idx3-ubyte.gz"), {0, 3, 2}, {}, true);
    write_idx(dir.file("t10k-labels-idx1-ubyte.gz"), {0}, {}, true);
    CHECK_THROWS_WITH(TrainingData::load(spec, 1), Catch::Contains("t10k-images-idx3-ubyte.gz' holds no images"));
  }
  SECTION("matching splits load, and the test split takes the training classes") {
    write_split(dir, "t10k", true, 2);
    const auto data = TrainingData::load(spec, 1);
    CHECK(data.test_images()->num_classes == data.train_images()->num_classes);
  }
}

TEST_CASE("text sources that are not text files", "[data][corpus][errors]") {
  TempDir dir;
  CHECK_THROWS_AS(read_text_source("/dev/null"), DataError);  // a device could never end
  CHECK_THROWS_WITH(read_text_source("/dev/zero"), Catch::Contains("is not a regular file or a directory"));
  // A sparse file: over the limit without writing 256 MiB.
  write_bytes(dir.file("huge.txt"), "");
  std::filesystem::resize_file(dir.file("huge.txt"), kMaxCorpusBytes + 1);
  CHECK_THROWS_WITH(read_text_source(dir.file("huge.txt")), Catch::Contains("more than the 256 MiB"));
  CHECK_THROWS_AS(TextCorpus::from_text("ab", TokenLevel::character, 0, 0.1, "t"), DataError);
  CHECK_THROWS_WITH(TextCorpus::from_text("abcdef", TokenLevel::character, 1, 0.5, "t"),
                    Catch::Contains("data.vocab_cap"));
}

TEST_CASE("Fashion-MNIST at Debian's location, when installed", "[data][idx][.installed]") {
  // Hidden tag: reads 30 MB; run with `test_models_data "[.installed]"`.
  const auto test = load_mnist_dir("", Split::test);
  CHECK(test.size() == 10000);
  CHECK(test.shape == Shape3{1, 28, 28});
}

TEST_CASE("text corpus: characters, words, vocabulary cap and <unk>", "[data][corpus]") {
  const std::string text = "the cat sat.\nthe cat ran!\n\nA dog sat.\nthe end\n";
  const auto chars = TextCorpus::from_text(text, TokenLevel::character, 0, 0.2, "t");
  CHECK(chars.vocab()[0] == "<unk>");
  CHECK(chars.train().size() + chars.heldout().size() == text.size());
  CHECK(chars.decode(chars.train()).substr(0, 12) == "the cat sat.");
  const auto words = TextCorpus::from_text(text, TokenLevel::word, 0, 0.2, "t");
  // Tokens: the cat sat . the cat ran ! <eos> a dog sat . the end  (15; last 3 held out)
  CHECK(words.train().size() == 12);
  CHECK(words.heldout().size() == 3);
  CHECK(words.decode(words.train()) == "the cat sat . the cat ran ! <eos> a dog sat");
  // Most frequent first: the(2 in train), cat(2), sat(2) ... ties in byte order.
  CHECK(words.vocab()[1] == "cat");
  const auto capped = TextCorpus::from_text(text, TokenLevel::word, 3, 0.2, "t");
  CHECK(capped.vocab_size() == 3);
  CHECK(capped.decode(capped.train()) == "<unk> cat sat <unk> <unk> cat <unk> <unk> <unk> <unk> <unk> sat");
  CHECK_THROWS_WITH(TextCorpus::from_text("  \n ", TokenLevel::word, 0, 0.1, "empty.txt"),
                    Catch::Contains("corpus 'empty.txt' is empty"));
  CHECK_THROWS_WITH(TextCorpus::from_text("", TokenLevel::character, 0, 0.1, "e"),
                    Catch::Contains("is empty"));
  CHECK_THROWS_WITH(parse_token_level("byte"), Catch::Contains("'char' or 'word'"));
}

TEST_CASE("text sources: files, fortune directories, missing paths", "[data][corpus]") {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "fortunes");
  write_bytes(dir.file("fortunes/b"), "Second one.\n%\nThird.\n%\n");
  write_bytes(dir.file("fortunes/a"), "First fortune,\ntwo lines.\n%\n");
  write_bytes(dir.file("fortunes/a.dat"), "\x01\x02 binary index");
  CHECK(read_text_source(dir.file("fortunes")) ==
        "First fortune,\ntwo lines.\n\nSecond one.\n\nThird.\n\n");
  write_bytes(dir.file("plain.txt"), "as is\n%\n");
  CHECK(read_text_source(dir.file("plain.txt")) == "as is\n%\n");
  CHECK_THROWS_WITH(read_text_source(dir.file("missing.txt")),
                    Catch::Contains("missing.txt' does not exist") && Catch::Contains("set data.corpus to"));
  write_bytes(dir.file("empty.txt"), "");
  CorpusSpec spec;
  spec.path = dir.file("empty.txt");
  CHECK_THROWS_WITH(TextCorpus::load(spec), Catch::Contains("empty.txt' is empty"));
}

TEST_CASE("unigram perplexity of a uniform stream is the vocabulary size", "[data][corpus]") {
  std::vector<std::int32_t> train, held;
  for (int i = 0; i < 4000; ++i) train.push_back(i % 4), held.push_back((i * 3) % 4);
  // Smoothing adds 1 per token to 1000 each: exactly uniform -> perplexity 4.
  CHECK(unigram_perplexity(train, held, 4) == Approx(4.0));
}

TEST_CASE("synthetic data is a pure function of the seed", "[data][synthetic]") {
  const auto a = make_synthetic_images(50, Shape3{1, 4, 4}, 3, 0.1, 7);
  const auto b = make_synthetic_images(50, Shape3{1, 4, 4}, 3, 0.1, 7);
  CHECK(a.images == b.images);
  CHECK(a.labels == b.labels);
  CHECK(make_synthetic_images(50, Shape3{1, 4, 4}, 3, 0.1, 8).images != a.images);
  const auto t = make_synthetic_tokens(1000, 20, 2, 3);
  CHECK(t == make_synthetic_tokens(1000, 20, 2, 3));
  std::set<std::pair<int, int>> bigrams;  // at most 2 successors per token
  for (std::size_t i = 1; i < t.size(); ++i) bigrams.insert({t[i - 1], t[i]});
  CHECK(bigrams.size() <= 40);
}

TEST_CASE("iid partition: disjoint, complete, balanced, seeded", "[data][partition]") {
  const auto p = partition_iid(103, 4, 1);
  std::vector<std::int64_t> all;
  for (const auto& part : p) {
    CHECK((part.size() == 25 || part.size() == 26));
    all.insert(all.end(), part.begin(), part.end());
  }
  std::sort(all.begin(), all.end());
  std::vector<std::int64_t> expect(103);
  std::iota(expect.begin(), expect.end(), 0);
  CHECK(all == expect);
  CHECK(partition_iid(103, 4, 1) == p);
  CHECK(partition_iid(103, 4, 2) != p);
  CHECK_THROWS_WITH(partition_iid(3, 4, 1), Catch::Contains("between 1 and 3 workers"));
}

TEST_CASE("Dirichlet partition: complete, non-empty, skew controlled by alpha", "[data][partition]") {
  std::vector<std::int32_t> labels(5000);
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = std::int32_t(i % 10);
  auto dominant_share = [&](const Partition& p) {  // mean share of each worker's top class
    double sum = 0;
    for (const auto& part : p) {
      std::vector<int> counts(10);
      for (auto i : part) ++counts[std::size_t(labels[std::size_t(i)])];
      sum += double(*std::max_element(counts.begin(), counts.end())) / double(part.size());
    }
    return sum / double(p.size());
  };
  const auto skewed = partition_dirichlet(labels, 10, 8, 0.1, 3);
  const auto mild = partition_dirichlet(labels, 10, 8, 100.0, 3);
  std::size_t total = 0;
  std::set<std::int64_t> seen;
  for (const auto& part : skewed) {
    CHECK(!part.empty());
    total += part.size();
    seen.insert(part.begin(), part.end());
  }
  CHECK(total == labels.size());
  CHECK(seen.size() == labels.size());
  CHECK(dominant_share(skewed) > 0.5);   // alpha 0.1: most of a worker is one class
  CHECK(dominant_share(mild) < 0.2);     // alpha 100: close to iid (0.1 + noise)
  CHECK(partition_dirichlet(labels, 10, 8, 0.1, 3) == skewed);
  CHECK_THROWS_WITH(partition_dirichlet(labels, 10, 8, 0.0, 3), Catch::Contains("data.alpha"));
  // Tiny alpha with many workers still gives every worker at least one item.
  for (const auto& part : partition_dirichlet(labels, 10, 40, 0.01, 4)) CHECK(!part.empty());
}

TEST_CASE("batch sampler: every item once per epoch, reshuffled, seeded", "[data][sampler]") {
  std::vector<std::int64_t> items(10);
  std::iota(items.begin(), items.end(), 100);
  BatchSampler s(items, 4, 9);
  CHECK(s.batches_per_epoch() == 3);
  std::vector<std::int64_t> epoch0, epoch1;
  for (int b = 0; b < 3; ++b) {
    const auto batch = s.next();
    CHECK(batch.size() == (b < 2 ? 4u : 2u));  // last batch smaller (drop_last = False)
    epoch0.insert(epoch0.end(), batch.begin(), batch.end());
  }
  CHECK(s.epoch() == 0);
  for (int b = 0; b < 3; ++b) {
    const auto batch = s.next();
    epoch1.insert(epoch1.end(), batch.begin(), batch.end());
  }
  CHECK(s.epoch() == 1);
  CHECK(epoch0 != epoch1);
  auto sorted0 = epoch0, sorted1 = epoch1;
  std::sort(sorted0.begin(), sorted0.end());
  std::sort(sorted1.begin(), sorted1.end());
  CHECK(sorted0 == items);
  CHECK(sorted1 == items);
  BatchSampler again(items, 4, 9);
  const auto first = again.next();
  CHECK(std::vector<std::int64_t>(first.begin(), first.end()) ==
        std::vector<std::int64_t>(epoch0.begin(), epoch0.begin() + 4));
}

TEST_CASE("training data: language-model windows and evaluation shapes", "[data]") {
  DataSpec spec;
  spec.kind = "synthetic-text";
  spec.seq_len = 5;
  spec.synthetic_train = 20;
  const auto data = TrainingData::load(spec, 1);
  CHECK(data.task() == TaskKind::language_model);
  CHECK(data.num_train_items() == (20 * 6 - 1) / 5);
  Batch batch;
  const std::vector<std::int64_t> items{0, 2};
  data.fill_batch(items, batch);
  REQUIRE(batch.tokens.size() == 12);
  CHECK(batch.tokens[6] == data.train_tokens()[10]);  // window 2 starts at token 2*5
  CHECK(batch.tokens[5] == data.train_tokens()[5]);   // and window 0 ends at token 5
  NetworkSpec net;
  net.preset = "mlp";
  CHECK_THROWS_WITH(data.adapt(net), Catch::Contains("lstm-lm needs a corpus"));
  DataSpec bad;
  bad.kind = "cifar";
  CHECK_THROWS_WITH(TrainingData::load(bad, 1), Catch::Contains("known kinds: fashion-mnist"));
}
