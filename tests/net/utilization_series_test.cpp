#include <vector>

#include <catch2/catch.hpp>

#include "sim/net/utilization_series.hpp"

using namespace pssim;
using namespace pssim::net;

TEST_CASE("a utilization series keeps rows in order", "[utilization_series]") {
  UtilizationSeries s(2, 10);
  s.append_full(std::vector<float>{0.5f, 1.f});
  s.append_last(std::vector<float>{0.25f, 0.f});
  REQUIRE(s.bins() == 2);
  CHECK(s.bin() == 10);
  CHECK(s.bin_start(1) == 10);
  CHECK(s.at(0, 1) == 1.f);
  CHECK(s.at(1, 0) == 0.25f);
  CHECK_THROWS_AS(s.append_full(std::vector<float>{0.f, 0.f}), std::logic_error);
  CHECK_THROWS_AS(s.append_last(std::vector<float>{0.f}), std::invalid_argument);
}

TEST_CASE("a full utilization series merges pairs of bins and doubles the width", "[utilization_series]") {
  // Room for 2 links x 5 values: 4 full bins (even) plus the last one. The 4th full bin
  // merges them into 2 of width 20; two more full bins make 4 again: width 40.
  UtilizationSeries s(2, 10, 10);
  for (int b = 0; b < 4; ++b) s.append_full(std::vector<float>{float(b), 1.f});
  REQUIRE(s.bins() == 2);
  CHECK(s.merges() == 1);
  CHECK(s.bin() == 20);
  CHECK(s.at(0, 0) == 0.5f);  // mean of bins 0 and 1
  CHECK(s.at(1, 0) == 2.5f);
  CHECK(s.at(1, 1) == 1.f);
  s.append_full(std::vector<float>{1.f, 0.f});  // [40, 60)
  s.append_full(std::vector<float>{0.f, 0.f});  // [60, 80): 4 bins again
  REQUIRE(s.bins() == 2);
  CHECK(s.bin() == 40);
  CHECK(s.at(0, 0) == 1.5f);
  CHECK(s.at(1, 0) == 0.5f);
  CHECK(s.at(1, 1) == 0.f);
  s.append_last(std::vector<float>{0.75f, 0.75f});  // never merged: the run ended
  REQUIRE(s.bins() == 3);
  CHECK(s.bin_start(2) == 80);
  CHECK(s.at(2, 0) == 0.75f);
}

TEST_CASE("a utilization series rejects bad shapes", "[utilization_series]") {
  CHECK_THROWS_AS(UtilizationSeries(0, 10), std::invalid_argument);
  CHECK_THROWS_AS(UtilizationSeries(1, 0), std::invalid_argument);
  UtilizationSeries tiny(4, 5, 1);  // never fewer than 2 full bins
  tiny.append_full(std::vector<float>(4, 1.f));
  CHECK(tiny.bins() == 1);
  tiny.append_full(std::vector<float>(4, 0.f));
  CHECK(tiny.bins() == 1);
  CHECK(tiny.bin() == 10);
  CHECK(tiny.at(0, 3) == 0.5f);
}
