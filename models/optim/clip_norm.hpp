// Gradient clipping by global norm, as torch.nn.utils.clip_grad_norm_(params, max_norm):
// the L2 norm of the whole gradient (all tensors together) is computed, and when it
// exceeds max_norm every element is multiplied by max_norm / (norm + 1e-6).
// The norm is accumulated in double (PyTorch accumulates per tensor in the tensor's
// dtype; the two agree to float32 rounding). One pass to measure, one to scale: O(n).
#pragma once

#include <span>

namespace pssim::models {

/// Clips `grad` in place; returns its norm before clipping. max_norm > 0.
double clip_global_norm(std::span<float> grad, double max_norm);

}  // namespace pssim::models
