// ParamLayout: the named tensors of a network laid out in ONE contiguous float vector.
//
// Parameters, gradients and optimizer state of a network are flat vectors of this layout,
// so pushing, pulling, sharding and compressing are operations on slices [offset,
// offset + size) of one vector (the llm.c design). Names, shapes and order are those of
// PyTorch's `state_dict()` for the equivalent nn.Module, so a parameter vector can be
// exported tensor by tensor and loaded into PyTorch (see models/io/npy_export.hpp).
//
// Invariant: tensors are packed in declaration order with no gaps; tensor i starts where
// tensor i-1 ends; size() is the sum of the tensors' sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pssim::models {

/// One named tensor of a layout. `shape` is in PyTorch order (e.g. conv weight
/// [out_channels, in_channels, kh, kw]); data are row-major (C order) inside the slice.
struct TensorInfo {
  std::string name;
  std::vector<std::int64_t> shape;
  std::size_t offset = 0;  ///< first element in the flat vector
  std::size_t size = 0;    ///< number of elements (product of shape)
};

class ParamLayout {
 public:
  /// Appends a tensor at the end of the layout and returns its index. Throws
  /// std::invalid_argument on a duplicate name or a non-positive dimension.
  std::size_t add(std::string name, std::vector<std::int64_t> shape);

  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo& tensor(std::size_t index) const { return tensors_.at(index); }
  /// The tensor called `name`; throws std::out_of_range naming the known tensors.
  const TensorInfo& find(std::string_view name) const;
  /// Total number of scalars (floats) in the layout.
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(float); }

  /// View of one tensor inside a flat vector of this layout. O(1).
  template <typename Real>
  std::span<Real> view(std::span<Real> flat, std::size_t index) const {
    const auto& t = tensors_.at(index);
    return flat.subspan(t.offset, t.size);
  }

  /// "conv1.weight [32,1,3,3]" lines, one per tensor, for messages and docs.
  std::string describe() const;

 private:
  std::vector<TensorInfo> tensors_;
  std::size_t size_ = 0;
};

/// "[32,1,3,3]"
std::string shape_string(const std::vector<std::int64_t>& shape);

}  // namespace pssim::models
