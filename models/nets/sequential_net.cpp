#include "models/core/instantiated_real.hpp"
#include "models/nets/sequential_net.hpp"

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include "models/core/eigen_types.hpp"
#include "models/layers/conv2d.hpp"
#include "models/layers/elementwise.hpp"
#include "models/layers/linear.hpp"
#include "models/layers/log_softmax_nll.hpp"
#include "models/layers/max_pool2d.hpp"

namespace pssim::models {

template <typename Real>
struct SequentialNet<Real>::Ws final : Workspace {
  const SequentialNet* owner = nullptr;
  std::int64_t capacity = 0;                     // largest batch the buffers hold
  AlignedVector<Real> input;                     // [B, C*H*W] when Real is not float
  std::vector<AlignedVector<Real>> acts;         // acts[i]: output of layer i [B, out_i]
  std::vector<const Real*> in;                   // in[i]: what layer i read (flatten aliases)
  AlignedVector<Real> grad_a, grad_b;            // [B, max activation]
  std::vector<AlignedVector<Real>> scratch;      // per layer
  std::vector<AlignedVector<std::int32_t>> index_scratch;

  std::size_t bytes() const override {
    std::size_t n = (input.size() + grad_a.size() + grad_b.size()) * sizeof(Real);
    for (const auto& a : acts) n += a.size() * sizeof(Real);
    for (const auto& s : scratch) n += s.size() * sizeof(Real);
    for (const auto& s : index_scratch) n += s.size() * sizeof(std::int32_t);
    return n;
  }
  void ensure(const SequentialNet& net, std::int64_t batch) {
    if (batch <= capacity) return;
    const auto& layers = net.layers_;
    acts.resize(layers.size());
    in.resize(layers.size());
    scratch.resize(layers.size());
    index_scratch.resize(layers.size());
    std::int64_t widest = net.input_.numel();
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const auto n = layers[i]->out_shape().numel();
      widest = std::max(widest, n);
      if (layers[i]->kind() != "flatten") ensure_size(acts[i], std::size_t(batch * n));
      ensure_size(scratch[i], layers[i]->scratch_size(batch));
      ensure_size(index_scratch[i], layers[i]->index_scratch_size(batch));
    }
    ensure_size(grad_a, std::size_t(batch * widest));
    ensure_size(grad_b, std::size_t(batch * widest));
    if constexpr (!std::is_same_v<Real, float>) {
      ensure_size(input, std::size_t(batch * net.input_.numel()));
    }
    capacity = batch;
  }
};

template <typename Real>
SequentialNet<Real>::SequentialNet(const std::vector<LayerSpec>& specs, Shape3 input,
                                   std::int64_t num_classes, std::string label)
    : input_(input), num_classes_(num_classes), label_(std::move(label)) {
  if (input.c < 1 || input.h < 1 || input.w < 1) {
    throw std::invalid_argument(fmt::format(
        "model.input {} must have positive channels, height and width", to_string(input)));
  }
  if (specs.empty()) {
    throw std::invalid_argument(
        "model.layers is empty: give at least one linear layer, or choose a preset");
  }
  Shape3 shape = input;
  int convs = 0, linears = 0, dropouts = 0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto& s = specs[i];
    std::unique_ptr<Layer<Real>> layer;
    auto where = [&] { return fmt::format("model.layers[{}] ({})", i, s.kind); };
    if (s.kind == "conv2d") {
      if (shape.h == 1 && shape.w == 1 && i > 0 && specs[i - 1].kind == "linear") {
        throw std::invalid_argument(where() + ": a conv2d cannot follow a linear layer");
      }
      auto name = s.name.empty() ? fmt::format("conv{}", ++convs) : s.name;
      if (s.out < 1 || s.kernel < 1) {
        throw std::invalid_argument(where() + ": set out (channels) >= 1 and kernel >= 1");
      }
      layer = std::make_unique<Conv2d<Real>>(name, shape, s.out, s.kernel,
                                             s.stride == 0 ? 1 : s.stride, s.padding);
    } else if (s.kind == "max_pool2d") {
      if (s.kernel < 1) throw std::invalid_argument(where() + ": set kernel >= 1");
      layer = std::make_unique<MaxPool2d<Real>>(shape, s.kernel, s.stride);
    } else if (s.kind == "relu") {
      layer = std::make_unique<Relu<Real>>(shape);
    } else if (s.kind == "dropout") {
      layer = std::make_unique<Dropout<Real>>(shape, s.p, std::uint64_t(dropouts++));
    } else if (s.kind == "dropout2d") {
      layer = std::make_unique<Dropout<Real>>(shape, s.p, std::uint64_t(dropouts++), true);
    } else if (s.kind == "flatten") {
      layer = std::make_unique<Flatten<Real>>(shape);
    } else if (s.kind == "linear") {
      auto name = s.name.empty() ? fmt::format("fc{}", ++linears) : s.name;
      if (s.out < 1) throw std::invalid_argument(where() + ": set out (features) >= 1");
      layer = std::make_unique<Linear<Real>>(name, shape, s.out);
    } else {
      throw std::invalid_argument(fmt::format(
          "model.layers[{}]: unknown kind '{}'; known kinds: conv2d, max_pool2d, relu, "
          "dropout, dropout2d, flatten, linear",
          i, s.kind));
    }
    const auto declared = this->layout_.size();
    layer->declare_params(this->layout_);
    param_ranges_.emplace_back(declared, this->layout_.size());
    if (declared == 0 && this->layout_.size() > 0) first_param_layer_ = layers_.size();
    shape = layer->out_shape();
    layers_.push_back(std::move(layer));
  }
  if (layers_.back()->kind() != "linear" || shape.numel() != num_classes) {
    throw std::invalid_argument(fmt::format(
        "model.layers: the last layer must be linear with {} outputs (model.num_classes), "
        "found {} with output {}",
        num_classes, layers_.back()->kind(), to_string(shape)));
  }
}

template <typename Real>
void SequentialNet<Real>::init_tensors(std::span<Real> params, std::uint64_t seed) const {
  for (const auto& l : layers_) l->init_params(params, seed);
}

template <typename Real>
std::unique_ptr<Workspace> SequentialNet<Real>::make_workspace() const {
  auto ws = std::make_unique<Ws>();
  ws->owner = this;
  return ws;
}

template <typename Real>
typename SequentialNet<Real>::Ws& SequentialNet<Real>::workspace_of(Workspace& workspace) const {
  auto* ws = dynamic_cast<Ws*>(&workspace);
  if (!ws || ws->owner != this) {
    throw std::invalid_argument(
        "SequentialNet: the workspace was made by another network; call make_workspace() "
        "on this network (one workspace per thread)");
  }
  return *ws;
}

template <typename Real>
void SequentialNet<Real>::check_batch(const BatchView& batch, const char* where) const {
  if (batch.size < 1) {
    throw std::invalid_argument(fmt::format("{}: empty batch (size {})", where, batch.size));
  }
  const auto per = input_.numel();
  if (std::int64_t(batch.inputs.size()) != batch.size * per ||
      std::int64_t(batch.labels.size()) != batch.size) {
    throw std::invalid_argument(fmt::format(
        "{}: batch of {} needs {} input values ({} per image {}) and {} labels, got {} and "
        "{}; check the dataset's image size against model.input",
        where, batch.size, batch.size * per, per, to_string(input_), batch.size,
        batch.inputs.size(), batch.labels.size()));
  }
}

template <typename Real>
const Real* SequentialNet<Real>::forward(std::span<const Real> params, const BatchView& batch,
                                         Ws& ws, std::uint64_t seed, bool training) const {
  ws.ensure(*this, batch.size);
  const Real* x;
  if constexpr (std::is_same_v<Real, float>) {
    x = batch.inputs.data();
  } else {
    std::copy(batch.inputs.begin(), batch.inputs.end(), ws.input.begin());
    x = ws.input.data();
  }
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    ws.in[i] = x;
    if (layers_[i]->kind() == "flatten") {  // NCHW is already flat: alias, copy nothing
      continue;
    }
    LayerIo<Real> io;
    io.batch = batch.size;
    io.params = params.data();
    io.x = x;
    io.y = ws.acts[i].data();
    io.scratch = ws.scratch[i].data();
    io.index_scratch = ws.index_scratch[i].data();
    io.seed = seed;
    io.training = training;
    layers_[i]->forward(io);
    x = io.y;
  }
  return x;
}

template <typename Real>
Real SequentialNet<Real>::loss_and_gradient(std::span<const Real> params, const BatchView& batch,
                                            std::span<Real> grad, Workspace& workspace,
                                            std::uint64_t dropout_seed) const {
  const char* where = "SequentialNet::loss_and_gradient";
  this->check_sizes(params, grad, where);
  if (grad.size() != this->layout_.size()) {
    throw std::invalid_argument(fmt::format("{}: no gradient buffer given", where));
  }
  check_batch(batch, where);
  auto& ws = workspace_of(workspace);
  const Real* logits = forward(params, batch, ws, dropout_seed, true);
  const auto B = batch.size;
  // d loss / d logits, in grad_a: the mean loss's gradient is (softmax - onehot) / B.
  Real* dy = ws.grad_a.data();
  Real* dx = ws.grad_b.data();
  std::copy(logits, logits + B * num_classes_, dy);
  const auto sums =
      log_softmax_nll(dy, batch.labels.data(), B, num_classes_, Real(1) / Real(B));
  // Backward stops at the first layer with parameters: below it nothing needs a gradient
  // (its input is data), so neither its dx nor the layers underneath are computed.
  for (std::size_t k = layers_.size(); k-- > first_param_layer_;) {
    LayerIo<Real> io;
    io.batch = B;
    io.params = params.data();
    io.grads = grad.data();
    if (layers_[k]->kind() == "flatten") continue;  // aliased: dy passes through unchanged
    io.x = ws.in[k];
    io.y = ws.acts[k].data();
    io.dy = dy;
    io.dx = k == first_param_layer_ ? nullptr : dx;
    io.scratch = ws.scratch[k].data();
    io.index_scratch = ws.index_scratch[k].data();
    io.seed = dropout_seed;
    layers_[k]->backward(io);
    std::swap(dy, dx);
  }
  return Real(sums.loss_sum / double(B));
}

template <typename Real>
BatchEval SequentialNet<Real>::evaluate_batch(std::span<const Real> params,
                                              const BatchView& batch,
                                              Workspace& workspace) const {
  const char* where = "SequentialNet::evaluate_batch";
  this->check_sizes(params, {}, where);
  check_batch(batch, where);
  auto& ws = workspace_of(workspace);
  forward(params, batch, ws, 0, false);
  // The last layer is linear (checked at construction), so its output is a real buffer,
  // overwritten in place here: it is not needed afterwards.
  Real* logits = ws.acts.back().data();
  const auto sums = log_softmax_nll(logits, batch.labels.data(), batch.size, num_classes_, Real(0));
  return BatchEval{sums.loss_sum, sums.correct, batch.size};
}

template <typename Real>
double SequentialNet<Real>::flops_per_sample(std::int64_t) const {
  double macs = 0;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    if (i >= first_param_layer_) {
      macs += layers_[i]->forward_macs() + layers_[i]->backward_macs(i > first_param_layer_);
    }
  }
  return 2.0 * macs;
}

template <typename Real>
std::vector<LayerCost> SequentialNet<Real>::layer_costs(std::int64_t) const {
  std::vector<LayerCost> out;
  for (std::size_t i = first_param_layer_; i < layers_.size(); ++i) {
    const auto& l = *layers_[i];
    const auto [begin, end] = param_ranges_[i];
    LayerCost c{l.name().empty() ? l.kind() : l.name(), begin, end, 2.0 * l.forward_macs(),
                2.0 * l.backward_macs(i > first_param_layer_)};
    if (begin == end && c.forward_flops == 0 && c.backward_flops == 0) continue;  // relu, pooling, ...
    out.push_back(std::move(c));
  }
  return out;
}

template <typename Real>
std::string SequentialNet<Real>::describe() const {
  std::string s = label_.empty() ? "custom" : label_;
  s += ":";
  for (const auto& l : layers_) {
    // fmt rather than operator+: GCC 12 reports a false -Wrestrict on " " + string.
    s += l->name().empty() ? fmt::format(" {}", l->kind())
                           : fmt::format(" {}({})", l->kind(), l->name());
  }
  return s + fmt::format(" -> {} params", this->layout_.size());
}

template <typename Real>
std::string SequentialNet<Real>::manifest_json() const {
  std::string s = fmt::format(
      "{{\"kind\": \"sequential\", \"label\": \"{}\", \"input\": [{}, {}, {}], "
      "\"num_classes\": {}, \"layers\": [",
      label_, input_.c, input_.h, input_.w, num_classes_);
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const auto& l = *layers_[i];
    s += i ? ", " : "";
    s += fmt::format("{{\"kind\": \"{}\", \"name\": \"{}\", \"in\": [{}, {}, {}], "
                     "\"out\": [{}, {}, {}]",
                     l.kind(), l.name(), l.in_shape().c, l.in_shape().h, l.in_shape().w,
                     l.out_shape().c, l.out_shape().h, l.out_shape().w);
    if (auto* c = dynamic_cast<const Conv2d<Real>*>(&l)) {
      s += fmt::format(", \"kernel\": {}, \"stride\": {}, \"padding\": {}", c->kernel(),
                       c->stride(), c->padding());
    } else if (auto* p = dynamic_cast<const MaxPool2d<Real>*>(&l)) {
      s += fmt::format(", \"kernel\": {}, \"stride\": {}", p->kernel(), p->stride());
    } else if (auto* d = dynamic_cast<const Dropout<Real>*>(&l)) {
      s += fmt::format(", \"p\": {}", d->p());
    }
    s += "}";
  }
  return s + "]}";
}

template <typename Real>
std::vector<std::pair<std::string, std::span<const Real>>> SequentialNet<Real>::dropout_masks(
    const Workspace& workspace, std::int64_t batch) const {
  auto* ws = dynamic_cast<const Ws*>(&workspace);
  if (!ws || ws->owner != this || ws->capacity < batch) {
    throw std::invalid_argument(
        "SequentialNet::dropout_masks: workspace not used by this network for this batch");
  }
  std::vector<std::pair<std::string, std::span<const Real>>> masks;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    if (layers_[i]->kind() != "dropout" && layers_[i]->kind() != "dropout2d") continue;
    masks.emplace_back(fmt::format("layers.{}", i),
                       std::span<const Real>(ws->scratch[i].data(),
                                             std::size_t(batch * layers_[i]->in_shape().numel())));
  }
  return masks;
}

template class SequentialNet<InstantiatedReal>;

}  // namespace pssim::models
