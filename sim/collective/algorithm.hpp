// Collective algorithms: an all-reduce as a schedule of steps per rank.
//
// Each rank runs its steps in order, the same steps every round. A step sends messages
// (to a peer, a number of elements, for a given step of that peer) and expects a number
// of messages; it completes once its sends have been delivered and its expected messages
// have arrived (MPI_Sendrecv semantics), and the next step starts then. Step 0 of a round
// starts when the rank's own input (its gradient) is ready. Messages are matched to the
// receiver's step they name, so they may arrive before the receiver gets there. What the
// messages carry is not modelled here (the protocol computes the reduced result); only
// who sends how much to whom, and when.
//
// Algorithms (n ranks, P elements, 4 bytes each; latency alpha per message, bandwidth B):
//   ring               reduce-scatter then all-gather around a ring, 2(n-1) steps of P/n
//                      (segments differ by at most one element).
//   halving-doubling   Rabenseifner: reduce-scatter by recursive halving (P/2, P/4 ...,
//                      P/p), all-gather by recursive doubling, p = 2^floor(log2 n); the
//                      n - p extra ranks first hand their whole vector to a partner and
//                      get the result back at the end (as MPICH does).
//   recursive-doubling every step exchanges the whole vector with the rank at distance
//                      2^k (log2 p steps), with the same handling of extra ranks.
//   tree               reduce to rank 0 along a binary tree (heap order: the parent of r
//                      is (r-1)/2), then broadcast down it; with chunks it pipelines (a
//                      rank forwards chunk c while it receives chunk c+1).
//   hierarchical       racks of equal size L: ring reduce-scatter inside each rack, ring
//                      all-reduce of each rank's reduced segment among the ranks with the
//                      same position in every rack, ring all-gather inside each rack.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pssim::collective {

/// The half of an all-reduce a step belongs to: combining inputs, or spreading the result.
enum class Phase : std::uint8_t { Reduce, Gather };

/// A message of a step: elements [offset, offset + elements) of the vector, as the sender
/// holds them when the step starts. In a reduce step the receiver adds them to its own; in
/// a gather step it takes them (they are final).
struct Send {
  std::uint32_t peer = 0;
  std::int64_t offset = 0;
  std::int64_t elements = 0;
  std::uint32_t peer_step = 0;  ///< the receiver's step this message belongs to
};

struct Step {
  Phase phase = Phase::Reduce;
  std::uint32_t receives = 0;
  std::vector<Send> sends;
};

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  virtual std::size_t ranks() const = 0;
  /// Steps of `rank` per round (0 for a single rank).
  virtual std::size_t steps(std::size_t rank) const = 0;
  /// Step s of `rank` for a vector of `elements`, written into `out` (cleared first).
  virtual void step(std::size_t rank, std::size_t s, std::int64_t elements, Step& out) const = 0;
};

enum class AlgorithmKind { Ring, HalvingDoubling, RecursiveDoubling, Tree, Hierarchical };

/// "ring" | "halving-doubling" | "recursive-doubling" | "tree" | "hierarchical".
const char* to_string(AlgorithmKind kind);
/// The names above, in that order.
std::vector<std::string> algorithm_names();
AlgorithmKind parse_algorithm(const std::string& name);

/// An algorithm over `ranks` ranks. Hierarchical needs `racks` racks of equal size
/// (ranks r*L .. r*L+L-1 in rack r); the others ignore `racks`. Throws
/// std::invalid_argument for a rank count the algorithm cannot use.
std::unique_ptr<Algorithm> make_algorithm(AlgorithmKind kind, std::size_t ranks, std::size_t racks = 1);

/// Elements of segment i when `elements` are cut into `parts` near-equal segments.
inline std::int64_t segment(std::int64_t elements, std::int64_t parts, std::int64_t i) {
  return elements / parts + (i < elements % parts ? 1 : 0);
}
/// First element of segment i of that cut.
inline std::int64_t segment_offset(std::int64_t elements, std::int64_t parts, std::int64_t i) {
  return i * (elements / parts) + std::min(i, elements % parts);
}

}  // namespace pssim::collective
