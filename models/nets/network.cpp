#include "models/core/instantiated_real.hpp"
#include "models/nets/network.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace pssim::models {

template <typename Real>
std::vector<Real> NetworkT<Real>::init_params(std::uint64_t seed) const {
  std::vector<Real> params(layout_.size());
  init_tensors(params, seed);
  return params;
}

template <typename Real>
std::vector<std::pair<std::string, std::span<const Real>>> NetworkT<Real>::dropout_masks(
    const Workspace&, std::int64_t) const {
  return {};
}

template <typename Real>
void NetworkT<Real>::check_sizes(std::span<const Real> params, std::span<Real> grad,
                                 const char* where) const {
  if (params.size() != layout_.size()) {
    throw std::invalid_argument(fmt::format(
        "{}: parameter vector has {} elements but the network's layout has {}; pass a vector "
        "made by init_params() or load_params_npy() for this network",
        where, params.size(), layout_.size()));
  }
  if (grad.data() != nullptr && grad.size() != layout_.size()) {
    throw std::invalid_argument(fmt::format(
        "{}: gradient buffer has {} elements but the network's layout has {}; allocate it "
        "with num_params() elements",
        where, grad.size(), layout_.size()));
  }
}

template <typename Real>
std::vector<LayerCost> NetworkT<Real>::layer_costs(std::int64_t seq_len) const {
  const double flops = flops_per_sample(seq_len);
  return {{"all", 0, static_cast<std::int64_t>(layout_.size()), flops / 3, flops - flops / 3}};
}

template class NetworkT<InstantiatedReal>;

}  // namespace pssim::models
