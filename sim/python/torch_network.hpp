// TorchNetwork: a PyTorch module as a models::Network, so that the simulator's own
// gradient source (training/model_gradients.hpp), parameter store, data, partitions,
// compression and evaluation serve it unchanged; only the arithmetic is PyTorch's.
//
// The module lives in Python, behind a bridge object (pssim/_torch.py, TorchModule) that
// holds one replica of the module per Workspace. loss_and_gradient hands the bridge the
// flat parameters and the batch as NumPy views of this process's memory (no copy), and
// the bridge writes the gradient into a view of `grad`:
//
//   bridge.gradient(workspace, params[N] f32, inputs[B, D] f32 | None, labels[B] i32 | None,
//                   tokens[B, S+1] i32 | None, seed: int, grad[N] f32) -> float  (mean loss)
//   bridge.evaluate(workspace, params, inputs, labels, tokens) -> (loss_sum, correct, count)
//
// Threads and the GIL: each call takes the GIL (pybind11::gil_scoped_acquire) from
// whatever job-pool thread runs it; the bridge runs PyTorch with one intra-op thread and
// PyTorch's operators release the GIL while they compute, so gradients of different
// workers overlap on `threads` cores except for the Python glue between operators.
// Determinism: a gradient depends only on (params, batch, seed): the bridge seeds
// PyTorch's generator with `seed` under a lock held for the forward pass (the only part
// that draws random numbers, e.g. dropout masks).
//
// Errors: a Python exception in the bridge (the user's module raising, or
// KeyboardInterrupt) is kept in `errors` (the first one) and thrown on as
// std::runtime_error; the Python entry points re-raise the kept exception itself, with
// its traceback.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <pybind11/pybind11.h>

#include "models/nets/network.hpp"

namespace pssim::python {

/// The first Python exception raised inside a simulation, to be re-raised at its end.
class PythonErrors {
 public:
  /// Keeps `e` if it is the first (call with the GIL held).
  void keep(const pybind11::error_already_set& e);
  /// The kept exception, if any, handed over (call with the GIL held).
  std::optional<pybind11::error_already_set> take();
  /// Throws the kept exception, if any (call with the GIL held).
  void rethrow_kept();

 private:
  std::mutex mutex_;
  std::optional<pybind11::error_already_set> first_;
};

/// "TypeError: message": the exception's type and message on one line, without the
/// traceback that error_already_set::what() appends (call with the GIL held).
std::string one_line(const pybind11::error_already_set& e);

class TorchNetwork : public models::Network {
 public:
  /// `bridge`: a pssim._torch.TorchModule. Reads its tensors (names, shapes), initial
  /// parameters and task (GIL held by the caller).
  TorchNetwork(pybind11::object bridge, std::shared_ptr<PythonErrors> errors);
  ~TorchNetwork() override;

  models::TaskKind task() const override { return task_; }
  std::unique_ptr<models::Workspace> make_workspace() const override;
  float loss_and_gradient(std::span<const float> params, const models::BatchView& batch, std::span<float> grad,
                          models::Workspace& workspace, std::uint64_t dropout_seed) const override;
  models::BatchEval evaluate_batch(std::span<const float> params, const models::BatchView& batch,
                                   models::Workspace& workspace) const override;
  double flops_per_sample(std::int64_t seq_len = 0) const override;
  std::string describe() const override { return description_; }
  std::string manifest_json() const override;

 protected:
  /// The module's initial parameters (the bridge built it from the scenario's seed);
  /// `seed` is not used.
  void init_tensors(std::span<float> params, std::uint64_t seed) const override;

 private:
  pybind11::object bridge_;
  std::shared_ptr<PythonErrors> errors_;
  models::TaskKind task_ = models::TaskKind::classification;
  std::string description_;
  mutable std::atomic<int> next_workspace_{0};
};

}  // namespace pssim::python
