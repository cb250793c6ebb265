// LogSoftmax + NLL (nn.CrossEntropyLoss on logits, or F.nll_loss(F.log_softmax(z))):
//   loss = sum_n ( logsumexp(z_n) - z_n[t_n] ),   z [N, C], t [N] in [0, C).
// Fused because d loss / d z_n = softmax(z_n) - onehot(t_n) is exact and cheap, while the
// separate pair would need the log-probabilities stored and re-read.
#pragma once

#include <cstdint>

namespace pssim::models {

struct NllSums {
  double loss_sum = 0.0;       ///< sum over rows of -log softmax(z_n)[t_n]
  std::int64_t correct = 0;    ///< rows whose first arg-max is the target
};

/// Computes the summed NLL of `logits` [rows, classes] against `targets` [rows]. Always
/// overwrites `logits`: with grad_scale * (softmax - onehot), the gradient of
/// grad_scale * loss_sum (pass 1/rows for the mean loss), or, when grad_scale is 0, with
/// unnormalized softmax values (evaluation needs nothing more). Throws std::out_of_range
/// naming the row when a target is outside [0, classes).
/// Cost: O(rows * classes), one exp per element (vectorized).
template <typename Real>
NllSums log_softmax_nll(Real* logits, const std::int32_t* targets, std::int64_t rows,
                        std::int64_t classes, Real grad_scale);

}  // namespace pssim::models
