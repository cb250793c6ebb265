// .npy format, parameter export/import by state_dict name, gradient-case export.
#include <fstream>

#include <catch2/catch.hpp>

#include "models/data/synthetic.hpp"
#include "models/io/export.hpp"
#include "models/io/npy.hpp"
#include "models/nets/build_network.hpp"
#include "models/train/grad_case.hpp"
#include "tests/models/temp_dir.hpp"

using namespace pssim::models;
using pssim::models::testing::TempDir;

TEST_CASE("npy: header bytes as numpy writes them, round trip", "[io][npy]") {
  TempDir dir;
  const std::vector<float> data{1, 2, 3, 4, 5, 6};
  write_npy(dir.file("a.npy"), std::span<const float>(data), {2, 3});
  std::ifstream in(dir.file("a.npy"), std::ios::binary);
  const std::string bytes(std::istreambuf_iterator<char>(in), {});
  // numpy.save(np.arange(1, 7, dtype=np.float32).reshape(2, 3)): 128 bytes, header 118.
  CHECK(bytes.size() == 128 + 24);
  CHECK(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  CHECK(bytes.substr(10, 59) ==
        "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  CHECK(bytes[127] == '\n');
  const auto back = read_npy(dir.file("a.npy"));
  CHECK(back.descr == "<f4");
  CHECK(back.shape == std::vector<std::int64_t>{2, 3});
  CHECK(back.f32 == data);
  const std::vector<std::int64_t> labels{3, 1, 4};
  write_npy(dir.file("l.npy"), std::span<const std::int64_t>(labels), {3});
  CHECK(read_npy(dir.file("l.npy")).i64 == labels);
  std::ifstream l(dir.file("l.npy"), std::ios::binary);
  const std::string lbytes(std::istreambuf_iterator<char>(l), {});
  CHECK(lbytes.find("'shape': (3,), }") != std::string::npos);  // a 1-tuple keeps its comma
  CHECK_THROWS_WITH(read_npy(dir.file("missing.npy")), Catch::Contains("missing.npy"));
}

TEST_CASE("parameters: save and load by state_dict names, shape errors", "[io]") {
  TempDir dir;
  NetworkSpec spec;
  spec.preset = "convnet-small";
  const auto net = build_network<float>(spec);
  const auto params = net->init_params(4);
  save_params_npy(dir.file("p"), net->layout(), params);
  CHECK(std::filesystem::exists(dir.file("p/conv1.weight.npy")));
  CHECK(read_npy(dir.file("p/conv1.weight.npy")).shape == std::vector<std::int64_t>{3, 1, 3, 3});
  CHECK(load_params_npy(dir.file("p"), net->layout()) == params);
  spec.preset = "logreg";
  const auto other = build_network<float>(spec);
  CHECK_THROWS_WITH(load_params_npy(dir.file("p"), other->layout()),
                    Catch::Contains("fc1.weight.npy' has shape [10,192]") &&
                        Catch::Contains("expects [10,784]"));
  std::filesystem::remove(dir.file("p/fc1.bias.npy"));
  CHECK_THROWS_WITH(load_params_npy(dir.file("p"), net->layout()), Catch::Contains("is missing"));
}

TEST_CASE("gradient case export writes everything the PyTorch check reads", "[io]") {
  TempDir dir;
  NetworkSpec spec;
  spec.preset = "mnist-net";
  const auto net = build_network<float>(spec);
  const auto params = net->init_params(1);
  const auto data = make_synthetic_images(4, Shape3{1, 28, 28}, 10, 0.5, 1);
  const auto c = export_gradient_case(dir.path().string(), *net, params,
                                      BatchView{4, data.images, data.labels, {}}, 5);
  CHECK(std::isfinite(c.loss));
  CHECK(read_npy(dir.file("grads/fc1.weight.npy")).shape == std::vector<std::int64_t>{128, 9216});
  CHECK(read_npy(dir.file("batch_inputs.npy")).shape == std::vector<std::int64_t>{4, 1, 28, 28});
  CHECK(read_npy(dir.file("batch_labels.npy")).i64 == std::vector<std::int64_t>(data.labels.begin(), data.labels.end()));
  // mnist-net's two dropout layers sit at positions 5 and 9.
  CHECK(read_npy(dir.file("dropout/layers.5.npy")).shape == std::vector<std::int64_t>{4, 9216});
  CHECK(read_npy(dir.file("dropout/layers.9.npy")).shape == std::vector<std::int64_t>{4, 128});
  CHECK(read_npy(dir.file("loss.npy")).f32[0] == Approx(c.loss));
  std::ifstream json(dir.file("model.json"));
  const std::string text(std::istreambuf_iterator<char>(json), {});
  CHECK(text.find("\"kind\": \"conv2d\", \"name\": \"conv2\"") != std::string::npos);
}

TEST_CASE("export_config_case: first batch of a config, reloadable parameters", "[io]") {
  TempDir dir;
  TrainConfig cfg;
  cfg.model.preset = "lstm-lm";
  cfg.model.embed_dim = 8, cfg.model.hidden_size = 12;
  cfg.data.kind = "synthetic-text";
  cfg.data.seq_len = 6, cfg.data.batch_size = 3, cfg.data.synthetic_train = 20;
  const auto first = export_config_case(cfg, dir.file("a"));
  CHECK(read_npy(dir.file("a/batch_tokens.npy")).shape == std::vector<std::int64_t>{3, 7});
  // Exporting again from the exported parameters reproduces the case exactly.
  const auto second = export_config_case(cfg, dir.file("b"), dir.file("a/params"));
  CHECK(second.loss == first.loss);
  CHECK(second.grad == first.grad);
  CHECK_THROWS_WITH(export_config_case(cfg, dir.file("c"), dir.file("nowhere")),
                    Catch::Contains("is missing"));
}
