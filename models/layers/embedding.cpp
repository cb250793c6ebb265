#include "models/core/instantiated_real.hpp"
#include "models/layers/embedding.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace pssim::models {

template <typename Real>
void embedding_forward(const Real* weight, std::int64_t vocab, std::int64_t dim,
                       const std::int32_t* ids, std::int64_t rows, Real* y) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int32_t id = ids[r];
    if (id < 0 || id >= vocab) {
      throw std::out_of_range(fmt::format(
          "embedding: token id {} at position {} is outside the vocabulary [0, {}); build "
          "the network with the corpus's vocabulary size",
          id, r, vocab));
    }
    std::copy(weight + id * dim, weight + (id + 1) * dim, y + r * dim);
  }
}

template <typename Real>
void embedding_backward(const Real* dy, const std::int32_t* ids, std::int64_t rows,
                        std::int64_t vocab, std::int64_t dim, Real* dweight) {
  std::fill(dweight, dweight + vocab * dim, Real(0));
  for (std::int64_t r = 0; r < rows; ++r) {
    Real* dst = dweight + std::int64_t(ids[r]) * dim;
    const Real* src = dy + r * dim;
    for (std::int64_t e = 0; e < dim; ++e) dst[e] += src[e];
  }
}

template void embedding_forward<InstantiatedReal>(const InstantiatedReal*, std::int64_t, std::int64_t,
                                                  const std::int32_t*, std::int64_t, InstantiatedReal*);
template void embedding_backward<InstantiatedReal>(const InstantiatedReal*, const std::int32_t*, std::int64_t,
                                                   std::int64_t, std::int64_t, InstantiatedReal*);

}  // namespace pssim::models
