#include "models/io/export.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "models/data/data_error.hpp"

#include "models/io/npy.hpp"
#include "models/optim/clip_norm.hpp"
#include "models/nets/sequential_net.hpp"

namespace pssim::models {
namespace fs = std::filesystem;

void save_params_npy(const std::string& dir, const ParamLayout& layout,
                     std::span<const float> params) {
  if (params.size() != layout.size()) {
    throw std::invalid_argument(fmt::format("save_params_npy: {} values for a layout of {}",
                                            params.size(), layout.size()));
  }
  fs::create_directories(dir);
  for (const auto& t : layout.tensors()) {
    write_npy(fmt::format("{}/{}.npy", dir, t.name), params.subspan(t.offset, t.size), t.shape);
  }
}

std::vector<float> load_params_npy(const std::string& dir, const ParamLayout& layout) {
  std::vector<float> params(layout.size());
  for (const auto& t : layout.tensors()) {
    const auto path = fmt::format("{}/{}.npy", dir, t.name);
    if (!fs::exists(path)) {
      throw DataError(fmt::format(
          "parameter file '{}' for tensor {} {} is missing; export parameters with the same "
          "network (names as PyTorch's state_dict)",
          path, t.name, shape_string(t.shape)));
    }
    const auto a = read_npy(path);
    if (a.shape != t.shape || a.f32.size() != t.size) {
      throw DataError(fmt::format(
          "parameter file '{}' has shape {} dtype {}, the network expects {} float32; the "
          "file belongs to a different architecture",
          path, shape_string(a.shape), a.descr, shape_string(t.shape)));
    }
    std::copy(a.f32.begin(), a.f32.end(), params.begin() + std::ptrdiff_t(t.offset));
  }
  return params;
}

GradientCase export_gradient_case(const std::string& dir, const Network& net,
                                  std::span<const float> params, const BatchView& batch,
                                  std::uint64_t dropout_seed, const CaseOptions& options) {
  fs::create_directories(dir);
  const Network& computing = options.eval_twin ? *options.eval_twin : net;
  auto ws = computing.make_workspace();
  GradientCase c;
  c.grad.resize(net.num_params());
  c.loss = computing.loss_and_gradient(params, batch, c.grad, *ws, dropout_seed);
  if (options.clip_norm) clip_global_norm(c.grad, *options.clip_norm);
  save_params_npy(dir + "/params", net.layout(), params);
  save_params_npy(dir + "/grads", net.layout(), c.grad);
  if (net.task() == TaskKind::classification) {
    const auto* seq = dynamic_cast<const SequentialNet<float>*>(&net);
    const auto in = seq ? seq->input_shape() : Shape3{std::int64_t(batch.inputs.size() / std::size_t(batch.size)), 1, 1};
    write_npy(dir + "/batch_inputs.npy", batch.inputs, {batch.size, in.c, in.h, in.w});
    std::vector<std::int64_t> labels(batch.labels.begin(), batch.labels.end());
    write_npy(dir + "/batch_labels.npy", std::span<const std::int64_t>(labels), {batch.size});
    const auto masks = computing.dropout_masks(*ws, batch.size);
    if (!masks.empty()) fs::create_directories(dir + "/dropout");
    for (const auto& [name, mask] : masks) {
      write_npy(fmt::format("{}/dropout/{}.npy", dir, name), mask,
                {batch.size, std::int64_t(mask.size()) / batch.size});
    }
  } else {
    std::vector<std::int64_t> tokens(batch.tokens.begin(), batch.tokens.end());
    write_npy(dir + "/batch_tokens.npy", std::span<const std::int64_t>(tokens),
              {batch.size, std::int64_t(tokens.size()) / batch.size});
  }
  const double loss = c.loss;
  write_npy(dir + "/loss.npy", std::span<const double>(&loss, 1), {1});
  std::ofstream manifest(dir + "/model.json");
  manifest << fmt::format("{{\"model\": {}, \"loss\": {:.9g}, \"batch_size\": {}, "
                          "\"dropout_seed\": {}, \"num_params\": {}, \"mode\": \"{}\", "
                          "\"clip_norm\": {}}}\n",
                          net.manifest_json(), c.loss, batch.size, dropout_seed,
                          net.num_params(), options.eval_twin ? "eval" : "train",
                          options.clip_norm ? fmt::format("{}", *options.clip_norm) : "null");
  if (!manifest) throw std::runtime_error(fmt::format("cannot write '{}/model.json'", dir));
  return c;
}

}  // namespace pssim::models
