#include "sim/experiment/memory_estimate.hpp"

#include <sys/resource.h>

#include <fstream>
#include <limits>
#include <utility>

#include <fmt/format.h>

namespace pssim::experiment {
namespace {

constexpr double kPerWorker = 1500;          // bytes of simulation state per worker
constexpr double kPerWorkerAndShard = 150;   // bytes of messages in flight per worker and shard
constexpr double kBytesPerParam = 4;         // float32

// "814 kB", "1.65 GB", "8160 GB": three digits at least, never an exponent.
std::string size_text(double bytes) {
  const auto [scale, unit] = bytes >= 1e9 ? std::pair{1e9, "GB"} : bytes >= 1e6 ? std::pair{1e6, "MB"} : std::pair{1e3, "kB"};
  const double v = bytes / scale;
  return v >= 100 ? fmt::format("{:.0f} {}", v, unit) : fmt::format("{:.3g} {}", v, unit);
}

// The cgroup v2 limit of this process, if any ("max": none).
double cgroup_limit() {
  std::ifstream cgroup("/proc/self/cgroup");
  std::string line, path;
  while (std::getline(cgroup, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  std::ifstream max("/sys/fs/cgroup" + path + "/memory.max");
  std::string value;
  if (!(max >> value) || value == "max") return std::numeric_limits<double>::infinity();
  try {
    return std::stod(value);
  } catch (const std::exception&) {
    return std::numeric_limits<double>::infinity();
  }
}

double mem_total() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  double kb = 0;
  while (meminfo >> key >> kb >> unit)
    if (key == "MemTotal:") return kb * 1024;
  return std::numeric_limits<double>::infinity();
}

}  // namespace

MemoryEstimate estimate_memory(const scenario::Scenario& s, const schemes::Scheme& scheme, std::int64_t params) {
  const double workers = static_cast<double>(s.cluster.workers.count);
  const bool servers = scheme.layout != schemes::Layout::AllReduced;
  const double shards = servers ? static_cast<double>(s.cluster.servers.shards) : 0;
  MemoryEstimate e;
  const double per_worker = kPerWorker + kPerWorkerAndShard * shards;
  e.bytes = workers * per_worker;
  e.terms = fmt::format("{} workers x {} of simulation state", s.cluster.workers.count, size_text(per_worker));
  const bool math = s.model.kind == scenario::ModelConfig::Kind::Network && s.model.math;
  if (!math) return e;
  const double model = static_cast<double>(params) * kBytesPerParam;
  if (scheme.capabilities.applies_each_gradient) {
    e.bytes += model;
    e.terms += fmt::format(" + the parameters ({})", size_text(model));
    return e;
  }
  const auto averaged = std::max<std::int64_t>(1, scheme.gradients_per_update(s.protocol, s.cluster.workers.count));
  e.bytes += static_cast<double>(averaged) * model;
  e.terms += fmt::format(" + {} gradients of {} held for an averaged update", averaged, size_text(model));
  return e;
}

MemoryLimit memory_limit() {
  MemoryLimit limit{mem_total(), "MemTotal in /proc/meminfo"};
  if (const double cgroup = cgroup_limit(); cgroup < limit.bytes) limit = {cgroup, "memory.max of its cgroup"};
  rlimit as{};
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY && static_cast<double>(as.rlim_cur) < limit.bytes)
    limit = {static_cast<double>(as.rlim_cur), "its address-space limit, ulimit -v"};
  return limit;
}

void check_memory(const scenario::Scenario& s, const schemes::Scheme& scheme, std::int64_t params,
                  const MemoryLimit& limit) {
  const MemoryEstimate e = estimate_memory(s, scheme, params);
  if (e.bytes <= limit.bytes) return;
  throw MemoryTooSmall(fmt::format("this scenario needs at least {} ({}), more than the {} this process may use ({}); "
                                   "use fewer workers or a smaller model, or a machine with more memory",
                                   size_text(e.bytes), e.terms, size_text(limit.bytes), limit.source));
}

}  // namespace pssim::experiment
