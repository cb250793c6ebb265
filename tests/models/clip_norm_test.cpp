// Global-norm clipping as torch.nn.utils.clip_grad_norm_.
#include <vector>

#include <catch2/catch.hpp>

#include "models/optim/clip_norm.hpp"

using namespace pssim::models;

TEST_CASE("a gradient above max_norm is scaled to it, one below is untouched", "[clip]") {
  std::vector<float> g = {3, 4, 0, 0};  // norm 5
  CHECK(clip_global_norm(g, 1.0) == Approx(5.0));
  // coefficient 1 / (5 + 1e-6): the clipped norm is just below 1, as in PyTorch.
  CHECK(g[0] == Approx(0.6f).epsilon(1e-6));
  CHECK(g[1] == Approx(0.8f).epsilon(1e-6));
  std::vector<float> h = {0.3f, 0.4f};  // norm 0.5
  CHECK(clip_global_norm(h, 1.0) == Approx(0.5));
  CHECK(h == std::vector<float>{0.3f, 0.4f});
}
