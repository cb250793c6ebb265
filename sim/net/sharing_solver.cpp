#include "sim/net/sharing_solver.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/net/general_sharing.hpp"
#include "sim/net/maxmin_solver.hpp"

namespace pssim::net {

std::unique_ptr<SharingSolver> make_solver(std::vector<double> capacities, SharingSolver::Listener* listener,
                                           SharingSolver::Sharing sharing) {
  if (sharing == SharingSolver::Sharing::General)
    return std::make_unique<GeneralSharingSolver>(std::move(capacities), listener);
  return std::make_unique<MaxMinSolver>(std::move(capacities), listener);
}

void check_route(std::span<const SharingSolver::ResourceId> route, std::size_t max_length, std::size_t resources) {
  if (route.empty() || route.size() > max_length)
    throw std::invalid_argument(fmt::format("a flow crosses 1 to {} resources, not {}", max_length, route.size()));
  for (std::size_t i = 0; i < route.size(); ++i) {
    if (route[i] >= resources) throw std::out_of_range("flow over an unknown resource");
    for (std::size_t j = 0; j < i; ++j)
      if (route[j] == route[i]) throw std::invalid_argument("a flow crosses a resource twice");
  }
}

}  // namespace pssim::net
