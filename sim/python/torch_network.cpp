#include "sim/python/torch_network.hpp"

#include <stdexcept>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;

namespace pssim::python {
namespace {

class TorchWorkspace : public models::Workspace {
 public:
  explicit TorchWorkspace(int id) : id(id) {}
  std::size_t bytes() const override { return 0; }  // the module's replica lives in Python
  const int id;
};

// A NumPy array over memory this process owns for the duration of the call: no copy.
template <typename T>
py::array_t<std::remove_const_t<T>> view(std::span<T> data, std::vector<py::ssize_t> shape) {
  const py::capsule no_owner(data.data(), [](void*) {});
  return py::array_t<std::remove_const_t<T>>(std::move(shape), data.data(), no_owner);
}

// The batch as the bridge's arguments: inputs [B, D] and labels [B], or tokens [B, S+1].
py::tuple batch_arrays(const models::BatchView& batch) {
  const py::ssize_t b = batch.size;
  if (!batch.tokens.empty())
    return py::make_tuple(py::none(), py::none(),
                          view(batch.tokens, {b, static_cast<py::ssize_t>(batch.tokens.size()) / b}));
  return py::make_tuple(view(batch.inputs, {b, static_cast<py::ssize_t>(batch.inputs.size()) / b}),
                        view(batch.labels, {b}), py::none());
}

}  // namespace

void PythonErrors::keep(const py::error_already_set& e) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (!first_) first_.emplace(e);
}

std::optional<py::error_already_set> PythonErrors::take() {
  std::optional<py::error_already_set> e;
  const std::lock_guard<std::mutex> lock(mutex_);
  e.swap(first_);
  return e;
}

void PythonErrors::rethrow_kept() {
  if (auto e = take()) throw *e;
}

std::string one_line(const py::error_already_set& e) {
  const std::string type = py::str(e.type().attr("__name__"));
  const std::string message = py::str(e.value());
  return message.empty() ? type : fmt::format("{}: {}", type, message);
}

TorchNetwork::TorchNetwork(py::object bridge, std::shared_ptr<PythonErrors> errors)
    : bridge_(std::move(bridge)), errors_(std::move(errors)) {
  for (const auto& t : bridge_.attr("tensors")) {
    const auto pair = t.cast<py::tuple>();
    layout_.add(pair[0].cast<std::string>(), pair[1].cast<std::vector<std::int64_t>>());
  }
  task_ = bridge_.attr("task").cast<std::string>() == "language_model" ? models::TaskKind::language_model
                                                                       : models::TaskKind::classification;
  description_ = bridge_.attr("describe")().cast<std::string>();
}

TorchNetwork::~TorchNetwork() {
  const py::gil_scoped_acquire gil;  // destroyed wherever the experiment ends
  bridge_ = py::object();
}

std::unique_ptr<models::Workspace> TorchNetwork::make_workspace() const {
  return std::make_unique<TorchWorkspace>(next_workspace_++);
}

void TorchNetwork::init_tensors(std::span<float> params, std::uint64_t /*seed*/) const {
  const py::gil_scoped_acquire gil;
  const auto initial = bridge_.attr("initial_parameters")().cast<py::array_t<float, py::array::c_style>>();
  if (static_cast<std::size_t>(initial.size()) != params.size())
    throw std::logic_error("the module's initial parameters do not match its tensors");
  std::copy_n(initial.data(), params.size(), params.data());
}

float TorchNetwork::loss_and_gradient(std::span<const float> params, const models::BatchView& batch,
                                      std::span<float> grad, models::Workspace& workspace,
                                      std::uint64_t dropout_seed) const {
  check_sizes(params, grad, "TorchNetwork::loss_and_gradient");
  const py::gil_scoped_acquire gil;
  try {
    const py::tuple b = batch_arrays(batch);
    const auto n = static_cast<py::ssize_t>(params.size());
    return bridge_
        .attr("gradient")(static_cast<const TorchWorkspace&>(workspace).id, view(params, {n}), b[0], b[1], b[2],
                          dropout_seed, view(grad, {n}))
        .cast<float>();
  } catch (const py::error_already_set& e) {
    errors_->keep(e);
    throw std::runtime_error(fmt::format("the torch module's gradient failed: {}", e.what()));
  }
}

models::BatchEval TorchNetwork::evaluate_batch(std::span<const float> params, const models::BatchView& batch,
                                               models::Workspace& workspace) const {
  const py::gil_scoped_acquire gil;
  try {
    const py::tuple b = batch_arrays(batch);
    const auto r = bridge_
                       .attr("evaluate")(static_cast<const TorchWorkspace&>(workspace).id,
                                         view(params, {static_cast<py::ssize_t>(params.size())}), b[0], b[1], b[2])
                       .cast<py::tuple>();
    return {r[0].cast<double>(), r[1].cast<std::int64_t>(), r[2].cast<std::int64_t>()};
  } catch (const py::error_already_set& e) {
    errors_->keep(e);
    throw std::runtime_error(fmt::format("the torch module's evaluation failed: {}", e.what()));
  }
}

double TorchNetwork::flops_per_sample(std::int64_t seq_len) const {
  const py::gil_scoped_acquire gil;
  try {
    return bridge_.attr("flops_per_sample")(seq_len).cast<double>();
  } catch (const py::error_already_set& e) {
    errors_->keep(e);
    throw std::runtime_error(fmt::format("counting the torch module's FLOPs failed: {}", e.what()));
  }
}

std::string TorchNetwork::manifest_json() const {
  return fmt::format(R"({{"kind": "torch", "parameters": {}}})", num_params());
}

}  // namespace pssim::python
