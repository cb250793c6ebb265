// Export / import of parameters and one reproducible gradient case as .npy files, with
// tensor names, shapes and order as in PyTorch's state_dict (the `pssim grad` command).
//
// Directory layout written by export_gradient_case(dir, ...):
//   model.json              architecture (Network::manifest_json) + loss, batch size, seed
//   params/<name>.npy       float32 tensors, e.g. params/conv1.weight.npy [32,1,3,3]
//   grads/<name>.npy        float32 mean gradient of the batch, same names
//   batch_inputs.npy        float32 [B, C, H, W]   (classification)
//   batch_labels.npy        int64 [B]              (classification)
//   batch_tokens.npy        int64 [B, S+1]         (language model)
//   dropout/layers.<i>.npy  float32 scaled keep-masks [B, features] of dropout layer i
//   loss.npy                float64 [1] mean loss
// model.json also says "mode": "train" (dropout active, masks exported for sequential
// nets) or "eval" (dropout off: the gradient of the network in evaluation mode), and
// "clip_norm" (null, or the global norm the exported gradient was clipped to).
// analysis/check_against_torch.py rebuilds the nn.Module, loads params and batch, applies
// the same dropout masks and compares the loss and every gradient.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "models/core/param_layout.hpp"
#include "models/nets/network.hpp"

namespace pssim::models {

/// Writes dir/<name>.npy for every tensor of `layout` (creates dir).
void save_params_npy(const std::string& dir, const ParamLayout& layout,
                     std::span<const float> params);

/// Reads dir/<name>.npy for every tensor of `layout` into a new flat vector. Throws
/// std::runtime_error naming the tensor when a file is missing or its shape differs.
std::vector<float> load_params_npy(const std::string& dir, const ParamLayout& layout);

struct GradientCase {
  float loss = 0;
  std::vector<float> grad;
};

struct CaseOptions {
  std::optional<double> clip_norm;  ///< clip the gradient to this global norm (clip_norm.hpp)
  /// Evaluation mode: this network (the same layout, without dropout) computes the loss
  /// and gradient; null: `net` in training mode.
  const Network* eval_twin = nullptr;
};

/// Computes loss and gradient of `batch` at `params` (training mode, `dropout_seed`,
/// unless options.eval_twin) and writes the whole case under `dir` as described above.
/// Returns what it wrote.
GradientCase export_gradient_case(const std::string& dir, const Network& net,
                                  std::span<const float> params, const BatchView& batch,
                                  std::uint64_t dropout_seed, const CaseOptions& options = {});

}  // namespace pssim::models
