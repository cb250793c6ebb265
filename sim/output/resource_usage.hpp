// Resource figures of the current process, for summaries and benchmarks.
#pragma once

#include <cstdint>

namespace pssim::output {

/// Peak resident set size of this process so far, in bytes (getrusage ru_maxrss).
std::uint64_t peak_rss_bytes();

}  // namespace pssim::output
