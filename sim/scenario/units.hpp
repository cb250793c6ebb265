// Quantities with units, parsed from the strings people write in scenario files.
//
//   duration    50us  2ms  120s  1.5min  1h       -> TimeNs (integer ns, rounded)
//   bandwidth   10Gbps  100Mbps  1.25GB/s  900MiB/s  -> bytes per second (double)
//               (bps/Kbps/Mbps/Gbps/Tbps are bits, decimal; B/s, KB/s ... bytes;
//                KiB/s, MiB/s, GiB/s binary)
//   bytes       4.8MB  512KiB  100B                 -> bytes (double)
//   count       16  25M  1.5K  2G                   -> integer (K=1e3, M=1e6, G=1e9, T=1e12)
//   flops       4GFLOP  300MFLOP  (also FLOPs)      -> floating-point operations
//   flop rate   2TFLOPS  500GFLOPS  (also FLOP/s)   -> operations per second
//   ratio       0.01  1%                            -> a fraction
//
// Units are case-sensitive where case carries meaning (b is a bit, B a byte). A value
// with a dimension must have a unit: "10" is not a bandwidth. Every parser throws
// UnitError, whose message says what is wrong and shows a valid example; it never
// returns a silent default. Results are finite and non-negative unless stated.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/core/time.hpp"

namespace pssim::scenario {

class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A plain decimal number (no unit), finite. "1e999" and "nan" are errors.
double parse_number(std::string_view text);
/// A whole number with an optional decimal suffix K, M, G or T; |value| <= 2^62.
std::int64_t parse_count(std::string_view text);
/// A number, or a percentage ("1%" = 0.01).
double parse_ratio(std::string_view text);
/// true/false, yes/no, on/off (YAML 1.1 spellings, lower case or capitalized).
bool parse_bool(std::string_view text);
TimeNs parse_duration(std::string_view text);
/// A duration, or a bare number of seconds ("12.5" = 12.5s: traces), with the same checks.
TimeNs parse_seconds_or_duration(std::string_view text);
/// A duration in seconds, not rounded to the simulator's 1 ns (costs per element: 0.25ns).
double parse_fine_duration(std::string_view text);
double parse_bandwidth(std::string_view text);
double parse_bytes(std::string_view text);
double parse_flops(std::string_view text);
double parse_flop_rate(std::string_view text);

}  // namespace pssim::scenario
