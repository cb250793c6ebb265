#include "models/core/param_layout.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace pssim::models {

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += fmt::format("{}{}", i ? "," : "", shape[i]);
  return s + "]";
}

std::size_t ParamLayout::add(std::string name, std::vector<std::int64_t> shape) {
  for (const auto& t : tensors_) {
    if (t.name == name) {
      throw std::invalid_argument(fmt::format(
          "ParamLayout::add: duplicate tensor name '{}'; give each layer a unique name", name));
    }
  }
  std::size_t n = 1;
  for (auto d : shape) {
    if (d <= 0) {
      throw std::invalid_argument(fmt::format(
          "ParamLayout::add: tensor '{}' has shape {} with a non-positive dimension; every "
          "layer size must be >= 1",
          name, shape_string(shape)));
    }
    n *= static_cast<std::size_t>(d);
  }
  tensors_.push_back(TensorInfo{std::move(name), std::move(shape), size_, n});
  size_ += n;
  return tensors_.size() - 1;
}

const TensorInfo& ParamLayout::find(std::string_view name) const {
  for (const auto& t : tensors_)
    if (t.name == name) return t;
  std::string known;
  for (const auto& t : tensors_) known += (known.empty() ? "" : ", ") + t.name;
  throw std::out_of_range(
      fmt::format("ParamLayout::find: no tensor named '{}' (known: {})", name, known));
}

std::string ParamLayout::describe() const {
  std::string s;
  for (const auto& t : tensors_) s += fmt::format("{} {}\n", t.name, shape_string(t.shape));
  return s;
}

}  // namespace pssim::models
