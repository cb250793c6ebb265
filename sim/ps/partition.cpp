#include "sim/ps/partition.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace pssim::ps {

std::vector<Part> partition_by_bytes(std::int64_t total_params, std::int64_t shards) {
  if (shards < 1 || shards > total_params) throw std::invalid_argument("need 1 <= shards <= parameters");
  std::vector<Part> out(static_cast<std::size_t>(shards));
  const std::int64_t base = total_params / shards, extra = total_params % shards;
  std::int64_t begin = 0;
  for (std::int64_t k = 0; k < shards; ++k) {
    const std::int64_t size = base + (k < extra ? 1 : 0);
    out[static_cast<std::size_t>(k)] = {{{begin, begin + size}}, size};
    begin += size;
  }
  return out;
}

std::vector<Part> partition_by_layer(const std::vector<std::int64_t>& layer_params, std::int64_t shards) {
  if (shards < 1 || shards > static_cast<std::int64_t>(layer_params.size()))
    throw std::invalid_argument("need 1 <= shards <= layers");
  std::vector<Part> out(static_cast<std::size_t>(shards));
  std::int64_t begin = 0;
  for (std::size_t layer = 0; layer < layer_params.size(); ++layer) {
    Part& s = out[layer % out.size()];
    s.ranges.push_back({begin, begin + layer_params[layer]});
    s.params += layer_params[layer];
    begin += layer_params[layer];
  }
  return out;
}

std::vector<std::int64_t> place_round_robin(std::size_t shards, std::int64_t hosts) {
  std::vector<std::int64_t> host(shards);
  for (std::size_t k = 0; k < shards; ++k) host[k] = static_cast<std::int64_t>(k) % hosts;
  return host;
}

std::vector<std::int64_t> place_balanced(const std::vector<Part>& shards, std::int64_t hosts) {
  std::vector<std::size_t> order(shards.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return shards[a].params > shards[b].params; });
  std::vector<double> load(static_cast<std::size_t>(hosts), 0.0);
  std::vector<std::int64_t> host(shards.size());
  for (std::size_t k : order) {
    const auto least = std::min_element(load.begin(), load.end()) - load.begin();
    host[k] = least;
    load[static_cast<std::size_t>(least)] += shards[k].bytes();
  }
  return host;
}

}  // namespace pssim::ps
