#include "sim/python/python_math.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "models/core/seed.hpp"
#include "models/data/data_error.hpp"

namespace py = pybind11;

namespace pssim::python {
namespace {

// Items of any shape, held as [N, C*H*W] float32: [N, C, H, W] keeps its C, H, W; other
// shapes are flattened (the bridge reshapes them back, it knows the datasets' shape).
models::ImageDataset to_images(const py::handle& x, const py::handle& y, const std::string& name) {
  const auto inputs = py::cast<py::array_t<float, py::array::c_style | py::array::forcecast>>(x);
  const auto labels = py::cast<py::array_t<std::int32_t, py::array::c_style | py::array::forcecast>>(y);
  models::ImageDataset d;
  d.name = d.images_path = d.labels_path = name;
  const auto n = inputs.ndim() > 0 ? inputs.shape(0) : 0;
  if (inputs.ndim() < 2 || n < 1 || labels.ndim() != 1 || labels.shape(0) != n)
    throw models::DataError(fmt::format("{}: inputs must be [N, ...] and labels [N] with N >= 1", name));
  if (inputs.ndim() == 4)
    d.shape = {inputs.shape(1), inputs.shape(2), inputs.shape(3)};
  else
    d.shape = {inputs.size() / n, 1, 1};
  d.images.assign(inputs.data(), inputs.data() + inputs.size());
  d.labels.assign(labels.data(), labels.data() + labels.size());
  std::int32_t largest = 0;
  for (const auto l : d.labels) {
    if (l < 0) throw models::DataError(fmt::format("{}: label {} is negative", name, l));
    largest = std::max(largest, l);
  }
  d.num_classes = largest + 1;
  return d;
}

}  // namespace

PythonMath::PythonMath(py::object provider, std::shared_ptr<PythonErrors> errors)
    : provider_(std::move(provider)), errors_(std::move(errors)) {}

PythonMath::~PythonMath() {
  const py::gil_scoped_acquire gil;
  provider_ = py::object();
}

models::TrainingData PythonMath::load_data(const scenario::Scenario& s) const {
  const py::gil_scoped_acquire gil;
  try {
    const auto arrays = provider_.attr("load_data")(s.data.spec.path, s.seed).cast<py::tuple>();
    return models::TrainingData::from_images(s.data.spec, to_images(arrays[0], arrays[1], "the training dataset"),
                                             to_images(arrays[2], arrays[3], "the test dataset"));
  } catch (const py::error_already_set& e) {
    errors_->keep(e);
    throw std::invalid_argument(fmt::format("the torch datasets could not be loaded: {}", one_line(e)));
  }
}

std::unique_ptr<models::Network> PythonMath::build_network(const scenario::Scenario& s,
                                                           const models::TrainingData& data) const {
  const py::gil_scoped_acquire gil;
  try {
    const bool lm = data.task() == models::TaskKind::language_model;
    py::tuple shape;
    std::int64_t outputs = 0;
    if (lm) {
      shape = py::make_tuple(s.data.spec.seq_len);
      outputs = data.vocab_size();
    } else {
      const auto& image = data.train_images()->shape;
      shape = py::make_tuple(image.c, image.h, image.w);
      outputs = data.train_images()->num_classes;
    }
    py::object bridge = provider_.attr("build")(s.model.torch->module, models::derive_seed(s.seed, "init"),
                                                lm ? "language_model" : "classification", shape, outputs,
                                                s.data.spec.seq_len);
    return std::make_unique<TorchNetwork>(std::move(bridge), errors_);
  } catch (const py::error_already_set& e) {
    errors_->keep(e);
    throw std::invalid_argument(fmt::format("the torch module could not be built: {}", one_line(e)));
  }
}

}  // namespace pssim::python
