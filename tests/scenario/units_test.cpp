#include <catch2/catch.hpp>

#include "sim/scenario/units.hpp"

using namespace pssim::scenario;

TEST_CASE("durations parse to integer nanoseconds", "[units]") {
  CHECK(parse_duration("50us") == 50'000);
  CHECK(parse_duration("2ms") == 2'000'000);
  CHECK(parse_duration("120s") == 120'000'000'000);
  CHECK(parse_duration("1.5min") == 90'000'000'000);
  CHECK(parse_duration("1h") == 3'600'000'000'000);
  CHECK(parse_duration("7ns") == 7);
  CHECK(parse_duration("20 us") == 20'000);
  CHECK(parse_duration("0s") == 0);
  CHECK(parse_duration("3\xC2\xB5s") == 3'000);  // micro sign
}

TEST_CASE("fine durations keep fractions of a nanosecond (per-element costs)", "[units]") {
  CHECK(parse_fine_duration("0.25ns") == Approx(0.25e-9).epsilon(1e-15));
  CHECK(parse_fine_duration("2us") == Approx(2e-6).epsilon(1e-15));
  CHECK(parse_fine_duration("0ns") == 0.0);
  CHECK_THROWS_WITH(parse_duration("0.25ns"), Catch::Contains("below the simulator's 1 ns resolution"));
  CHECK_THROWS_WITH(parse_fine_duration("3"), Catch::Contains("has no unit"));
}

TEST_CASE("bandwidths parse to bytes per second, bits and bytes kept apart", "[units]") {
  CHECK(parse_bandwidth("10Gbps") == Approx(1.25e9).epsilon(1e-15));
  CHECK(parse_bandwidth("1.25GB/s") == Approx(1.25e9).epsilon(1e-15));
  CHECK(parse_bandwidth("100Mbps") == Approx(12.5e6).epsilon(1e-15));
  CHECK(parse_bandwidth("1GiB/s") == 1073741824.0);
  CHECK(parse_bandwidth("0") == 0.0);  // a failed link: zero needs no unit
  CHECK(parse_bandwidth("8bps") == 1.0);
  CHECK(parse_bandwidth("25 Gbit/s") == Approx(3.125e9).epsilon(1e-15));
}

TEST_CASE("sizes, counts, FLOPs and FLOP rates", "[units]") {
  CHECK(parse_bytes("4.8MB") == Approx(4.8e6).epsilon(1e-15));
  CHECK(parse_bytes("512KiB") == 524288.0);
  CHECK(parse_count("25M") == 25'000'000);
  CHECK(parse_count("16") == 16);
  CHECK(parse_count("1.5K") == 1500);
  CHECK(parse_count("2G") == 2'000'000'000);
  CHECK(parse_flops("4GFLOP") == 4e9);
  CHECK(parse_flops("300MFLOPs") == 3e8);
  CHECK(parse_flop_rate("2TFLOPS") == 2e12);
  CHECK(parse_flop_rate("500GFLOP/s") == 5e11);
  CHECK(parse_ratio("1%") == Approx(0.01));
  CHECK(parse_ratio("0.25") == 0.25);
  CHECK(parse_bool("true"));
  CHECK_FALSE(parse_bool("off"));
}

TEST_CASE("bad quantities are errors that say what is wrong", "[units]") {
  CHECK_THROWS_WITH(parse_bandwidth("10"), Catch::Contains("has no unit") && Catch::Contains("10Gbps"));
  CHECK_THROWS_WITH(parse_bandwidth("10Gbs"), Catch::Contains("unknown unit 'Gbs'") && Catch::Contains("did you mean"));
  CHECK_THROWS_WITH(parse_duration("5 parsecs"), Catch::Contains("unknown unit"));
  CHECK_THROWS_WITH(parse_count("1e999"), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(parse_bandwidth("1e999Gbps"), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(parse_bandwidth("1e300TB/s"), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(parse_count("2.5"), Catch::Contains("not a whole number"));
  CHECK_THROWS_WITH(parse_count("12X"), Catch::Contains("unknown suffix 'X'"));
  CHECK_THROWS_WITH(parse_bandwidth("-1Gbps"), Catch::Contains("negative"));
  CHECK_THROWS_WITH(parse_duration("0.1ns"), Catch::Contains("resolution"));
  CHECK_THROWS_WITH(parse_duration("10000000h"), Catch::Contains("range"));
  CHECK_THROWS_WITH(parse_number("nan"), Catch::Contains("not a number"));
  CHECK_THROWS_WITH(parse_number("inf"), Catch::Contains("not a number"));
  CHECK_THROWS_WITH(parse_number(""), Catch::Contains("empty"));
  CHECK_THROWS_WITH(parse_bool("maybe"), Catch::Contains("not a boolean"));
  CHECK_THROWS_WITH(parse_flop_rate("2TFLOP"), Catch::Contains("unknown unit") && Catch::Contains("TFLOPS"));
  CHECK_THROWS_WITH(parse_bytes("Gbps"), Catch::Contains("is not"));
}
