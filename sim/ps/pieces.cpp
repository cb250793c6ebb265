#include "sim/ps/pieces.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace pssim::ps {

std::vector<std::vector<Piece>> cut_pieces(const std::vector<training::Part>& shards,
                                           const std::vector<training::Range>& layers,
                                           std::optional<double> partition_bytes) {
  if (partition_bytes && !(*partition_bytes > 0)) throw std::invalid_argument("partition_bytes must be > 0");
  // Largest piece in parameters (a piece smaller than one parameter is one parameter).
  const std::int64_t cap =
      partition_bytes ? std::max<std::int64_t>(1, static_cast<std::int64_t>(std::floor(*partition_bytes /
                                                                                          training::kBytesPerParam)))
                      : 0;
  // Layer owning parameter index i: the last layer beginning at or before i (the first
  // layer for anything before every layer). Layers without parameters own nothing.
  std::vector<std::pair<std::int64_t, std::size_t>> starts;  // (begin, layer), by begin
  for (std::size_t l = 0; l < layers.size(); ++l)
    if (layers[l].size() > 0) starts.emplace_back(layers[l].begin, l);
  std::sort(starts.begin(), starts.end());
  std::vector<std::vector<Piece>> out(shards.size());
  for (std::size_t s = 0; s < shards.size(); ++s) {
    // (layer, params) runs of this shard, split at layer starts.
    std::vector<Piece> runs;
    for (const auto& r : shards[s].ranges) {
      std::int64_t at = r.begin;
      while (at < r.end) {
        auto next = std::upper_bound(starts.begin(), starts.end(), std::make_pair(at, layers.size()));
        const std::size_t layer = next == starts.begin() ? (starts.empty() ? 0 : starts.front().second)
                                                         : std::prev(next)->second;
        const std::int64_t end = next == starts.end() ? r.end : std::min(r.end, next->first);
        runs.push_back({layer, end - at});
        at = end;
      }
    }
    std::stable_sort(runs.begin(), runs.end(), [](const Piece& a, const Piece& b) { return a.layer < b.layer; });
    for (const Piece& run : runs) {
      // A layer's run continues the previous piece of the same layer (a layer split across
      // ranges of the shard is still one tensor): merge before cutting.
      if (!out[s].empty() && out[s].back().layer == run.layer && (cap == 0 || out[s].back().params < cap)) {
        const std::int64_t room = cap == 0 ? run.params : std::min(run.params, cap - out[s].back().params);
        out[s].back().params += room;
        if (room == run.params) continue;
        for (std::int64_t left = run.params - room; left > 0; left -= cap)
          out[s].push_back({run.layer, std::min(left, cap)});
        continue;
      }
      for (std::int64_t left = run.params; left > 0; left -= cap == 0 ? left : cap)
        out[s].push_back({run.layer, cap == 0 ? left : std::min(left, cap)});
    }
  }
  return out;
}

}  // namespace pssim::ps
