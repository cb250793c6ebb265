#include "sim/collective/algorithms.hpp"

namespace pssim::collective {

// Steps by position in the tree:
//   root      [receive from children (reduce), send to children (gather)]
//   internal  [receive from children, send to parent (reduce), receive from parent,
//              send to children (gather)]
//   leaf      [send to parent (reduce), receive from parent (gather)]

std::size_t Tree::children(std::size_t rank) const {
  std::size_t c = 0;
  for (std::size_t child : {2 * rank + 1, 2 * rank + 2}) c += child < n_ ? 1 : 0;
  return c;
}

std::size_t Tree::steps(std::size_t rank) const {
  if (n_ <= 1) return 0;
  if (rank == 0) return 2;
  return children(rank) > 0 ? 4 : 2;
}

void Tree::step(std::size_t rank, std::size_t s, std::int64_t elements, Step& out) const {
  out.sends.clear();
  out.receives = 0;
  const std::size_t kids = children(rank);
  // Position of the step in the internal-node list: 0 receive children, 1 send parent,
  // 2 receive parent, 3 send children.
  std::size_t what = s;
  if (rank == 0) what = s == 0 ? 0 : 3;
  else if (kids == 0) what = s == 0 ? 1 : 2;
  out.phase = what < 2 ? Phase::Reduce : Phase::Gather;
  switch (what) {
    case 0: out.receives = static_cast<std::uint32_t>(kids); break;
    case 1: out.sends.push_back({static_cast<std::uint32_t>((rank - 1) / 2), 0, elements, 0}); break;
    case 2: out.receives = 1; break;
    case 3:
      for (std::size_t child : {2 * rank + 1, 2 * rank + 2})
        if (child < n_)
          out.sends.push_back({static_cast<std::uint32_t>(child), 0, elements, children(child) > 0 ? 2u : 1u});
      break;
  }
}

}  // namespace pssim::collective
