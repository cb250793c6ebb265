// Embedding (nn.Embedding): y[r] = W[ids[r]], W [V, E], ids [R], y [R, E].
// Backward scatter-adds dy rows into dW (rows of unused ids get 0). No multiply-adds.
#pragma once

#include <cstdint>

namespace pssim::models {

/// Throws std::out_of_range naming the position when an id is outside [0, vocab).
template <typename Real>
void embedding_forward(const Real* weight, std::int64_t vocab, std::int64_t dim,
                       const std::int32_t* ids, std::int64_t rows, Real* y);

/// dweight [V, E] is overwritten: zero, then dy rows added at their ids.
template <typename Real>
void embedding_backward(const Real* dy, const std::int32_t* ids, std::int64_t rows,
                        std::int64_t vocab, std::int64_t dim, Real* dweight);

}  // namespace pssim::models
