#include "sim/collective/algorithm.hpp"

#include <stdexcept>

#include "sim/collective/algorithms.hpp"

namespace pssim::collective {

const char* to_string(AlgorithmKind kind) {
  switch (kind) {
    case AlgorithmKind::Ring: return "ring";
    case AlgorithmKind::HalvingDoubling: return "halving-doubling";
    case AlgorithmKind::RecursiveDoubling: return "recursive-doubling";
    case AlgorithmKind::Tree: return "tree";
    case AlgorithmKind::Hierarchical: return "hierarchical";
  }
  return "?";
}

std::vector<std::string> algorithm_names() {
  return {"ring", "halving-doubling", "recursive-doubling", "tree", "hierarchical"};
}

AlgorithmKind parse_algorithm(const std::string& name) {
  for (auto kind : {AlgorithmKind::Ring, AlgorithmKind::HalvingDoubling, AlgorithmKind::RecursiveDoubling,
                    AlgorithmKind::Tree, AlgorithmKind::Hierarchical})
    if (name == to_string(kind)) return kind;
  throw std::invalid_argument("unknown all-reduce algorithm '" + name + "'");
}

std::unique_ptr<Algorithm> make_algorithm(AlgorithmKind kind, std::size_t ranks, std::size_t racks) {
  if (ranks < 1) throw std::invalid_argument("a collective needs at least one rank");
  switch (kind) {
    case AlgorithmKind::Ring: return std::make_unique<Ring>(ranks);
    case AlgorithmKind::HalvingDoubling: return std::make_unique<HalvingDoubling>(ranks);
    case AlgorithmKind::RecursiveDoubling: return std::make_unique<RecursiveDoubling>(ranks);
    case AlgorithmKind::Tree: return std::make_unique<Tree>(ranks);
    case AlgorithmKind::Hierarchical: return std::make_unique<Hierarchical>(ranks, racks);
  }
  throw std::invalid_argument("unknown all-reduce algorithm");
}

}  // namespace pssim::collective
