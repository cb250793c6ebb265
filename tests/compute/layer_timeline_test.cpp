#include <vector>

#include <catch2/catch.hpp>

#include "sim/compute/layer_timeline.hpp"

using pssim::TimeNs;
using pssim::compute::LayerFlops;
using pssim::compute::step_ends;

TEST_CASE("steps take their FLOPs' share of the iteration, forward then backward", "[compute][layers]") {
  // Layers (forward, backward) = (1, 2) and (3, 4): 10 FLOPs in all over 1,000 ns. Order:
  // forward 0 (1), forward 1 (3), backward 1 (4), backward 0 (2): ends 100, 400, 800, 1000.
  const std::vector<LayerFlops> layers = {{1, 2}, {3, 4}};
  CHECK(step_ends(1000, layers) == std::vector<TimeNs>{100, 400, 800, 1000});
}

TEST_CASE("rounding is cumulative: the steps add up to the iteration", "[compute][layers]") {
  // Three equal layers over 100 ns: six steps of 16.67 ns end at 17, 33, 50, 67, 83, 100.
  const std::vector<LayerFlops> layers(3, LayerFlops{1, 1});
  CHECK(step_ends(100, layers) == std::vector<TimeNs>{17, 33, 50, 67, 83, 100});
  // No FLOPs at all: even steps; a layer without FLOPs takes no time.
  CHECK(step_ends(40, std::vector<LayerFlops>(2)) == std::vector<TimeNs>{10, 20, 30, 40});
  CHECK(step_ends(40, std::vector<LayerFlops>{{0, 0}, {1, 1}}) == std::vector<TimeNs>{0, 20, 40, 40});
  CHECK_THROWS_AS(step_ends(-1, layers), std::invalid_argument);
}
