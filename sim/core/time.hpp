// Simulated time.
//
// Simulated time is an integer count of nanoseconds since the start of the simulation
// (type TimeNs). Integer time makes event order exact and platform-independent; the
// conversion helpers below round to the nearest nanosecond. Simulated time never depends
// on wall-clock time.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace pssim {

/// A point in simulated time, or a duration, in nanoseconds.
using TimeNs = std::int64_t;

inline constexpr TimeNs kNanosecond = 1;
inline constexpr TimeNs kMicrosecond = 1'000;
inline constexpr TimeNs kMillisecond = 1'000'000;
inline constexpr TimeNs kSecond = 1'000'000'000;
/// Largest representable time (about 292 years); also "never".
inline constexpr TimeNs kTimeMax = std::numeric_limits<TimeNs>::max();

/// Seconds (double) for a TimeNs: the double nearest to t / 10^9 (exact whole seconds).
constexpr double to_seconds(TimeNs t) { return static_cast<double>(t) / 1e9; }

/// Nearest TimeNs for a non-negative, finite number of seconds.
/// Throws std::domain_error when the value is negative, not finite or beyond kTimeMax.
inline TimeNs seconds_to_ns(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0)
    throw std::domain_error("time must be a finite, non-negative number of seconds");
  const double ns = std::nearbyint(seconds * 1e9);
  if (ns >= 9.2e18) throw std::domain_error("time is beyond the simulator's range (292 years)");
  return static_cast<TimeNs>(ns);
}

/// std::llround(ns) for 0 <= ns < 2^63 (halves away from zero), without the library
/// call: ns - trunc(ns) is exact, so the halves are found exactly.
inline TimeNs round_ns(double ns) {
  const auto whole = static_cast<TimeNs>(ns);
  return ns - static_cast<double>(whole) >= 0.5 ? whole + 1 : whole;
}

}  // namespace pssim
