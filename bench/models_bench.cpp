// models_bench: time of one training step (forward + backward + SGD-momentum step) per
// preset on one thread, and the GFLOP/s it achieves by the analytic FLOP count; plus the
// core's measured Eigen GEMM rate (512^3 float) as the reference peak.
//
//   models_bench [--steps N] [--csv] [--manifests DIR] [--only PRESET]
//
// (default 20 timed steps after 3 warm-up steps). --manifests writes DIR/<preset>.json
// (architecture, batch, sequence length) for bench/torch_bench.py, which times the same
// networks in PyTorch (bench/models_vs_torch.sh runs both and prints them side by side).
//
// Batch 64 for the CNN/MLP presets, 32 sequences of 35 tokens for the LSTM LMs. Prints a
// table (or CSV: preset,batch,ms_per_step,gflop_per_step,gflops). Figures, not a test:
// the machine is shared and timings are noisy — the median of the timed steps is shown.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "models/data/synthetic.hpp"
#include "models/nets/build_network.hpp"
#include "models/optim/optimizer.hpp"

using namespace pssim::models;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double gemm_gflops(int reps) {
  const int n = 512;
  Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n), b = Eigen::MatrixXf::Random(n, n), c(n, n);
  c.noalias() = a * b;  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    c.noalias() = a * b;
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  volatile float sink = c(1, 1);
  (void)sink;
  return 2.0 * n * n * n / median(t) / 1e9;
}

struct Case {
  std::string label;
  NetworkSpec spec;
  std::int64_t batch, seq_len;
};

}  // namespace

int main(int argc, char** argv) {
  int steps = 20;
  bool csv = false;
  std::string manifests, only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--steps") && i + 1 < argc) steps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--csv")) csv = true;
    else if (!std::strcmp(argv[i], "--manifests") && i + 1 < argc) manifests = argv[++i];
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else {
      std::fprintf(stderr, "usage: models_bench [--steps N] [--csv] [--manifests DIR] [--only PRESET]\n");
      return 2;
    }
  }
  std::vector<Case> cases;
  for (const char* p : {"convnet-small", "cnn", "mnist-net", "mlp", "logreg"}) {
    NetworkSpec s;
    s.preset = p;
    cases.push_back({p, s, 64, 0});
  }
  NetworkSpec chr;
  chr.preset = "lstm-lm", chr.vocab_size = 96, chr.embed_dim = 64, chr.hidden_size = 256;
  cases.push_back({"lstm-lm-char", chr, 32, 35});
  NetworkSpec word = chr;
  word.vocab_size = 10000, word.embed_dim = 200, word.hidden_size = 200;
  cases.push_back({"lstm-lm-word", word, 32, 35});

  const double peak = gemm_gflops(50);
  if (csv) {
    std::printf("preset,batch,ms_per_step,gflop_per_step,gflops\n");
    std::printf("eigen-gemm-512,0,0,0,%.2f\n", peak);
  } else {
    std::printf("Eigen 512^3 float GEMM, one thread: %.1f GFLOP/s\n\n", peak);
    std::printf("%-14s %6s %10s %12s %9s %8s  %s\n", "preset", "batch", "ms/step", "GFLOP/step",
                "GFLOP/s", "%GEMM", "network");
  }
  OptimizerSpec sgd;
  sgd.lr = 0.05, sgd.momentum = 0.9;
  for (const auto& c : cases) {
    if (!only.empty() && c.label != only) continue;
    const auto net = build_network<float>(c.spec);
    if (!manifests.empty()) {
      std::filesystem::create_directories(manifests);
      std::ofstream(manifests + "/" + c.label + ".json")
          << "{\"label\": \"" << c.label << "\", \"batch\": " << c.batch
          << ", \"seq_len\": " << c.seq_len << ", \"steps\": " << steps
          << ", \"model\": " << net->manifest_json() << "}\n";
    }
    auto params = net->init_params(1);
    std::vector<float> grad(params.size());
    auto ws = net->make_workspace();
    SliceOptimizer opt(sgd, 0, params.size());
    ImageDataset images;
    std::vector<std::int32_t> tokens;
    BatchView batch;
    if (c.seq_len > 0) {
      tokens = make_synthetic_tokens(c.batch * (c.seq_len + 1), c.spec.vocab_size, 5, 2);
      batch = BatchView{c.batch, {}, {}, tokens};
    } else {
      images = make_synthetic_images(c.batch, Shape3{1, 28, 28}, 10, 1.0, 2);
      batch = BatchView{c.batch, images.images, images.labels, {}};
    }
    std::vector<double> t;
    for (int s = 0; s < steps + 3; ++s) {
      const auto t0 = Clock::now();
      net->loss_and_gradient(params, batch, grad, *ws, std::uint64_t(s));
      opt.step(params, grad);
      const double dt = std::chrono::duration<double>(Clock::now() - t0).count();
      if (s >= 3) t.push_back(dt);
    }
    const double sec = median(t);
    const double gflop = net->flops_per_sample(c.seq_len) * double(c.batch) / 1e9;
    if (csv) {
      std::printf("%s,%lld,%.4f,%.5f,%.2f\n", c.label.c_str(), (long long)c.batch, sec * 1e3, gflop,
                  gflop / sec);
    } else {
      std::printf("%-14s %6lld %10.3f %12.4f %9.2f %7.1f%%  %s\n", c.label.c_str(),
                  (long long)c.batch, sec * 1e3, gflop, gflop / sec, 100.0 * gflop / sec / peak,
                  net->describe().c_str());
    }
    std::fflush(stdout);
  }
  return 0;
}
