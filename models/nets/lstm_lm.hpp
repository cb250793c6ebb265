// LstmLanguageModel: the lstm-lm preset — embedding, L stacked LSTM layers, a linear
// decoder over the vocabulary, LogSoftmax + NLL on the next token.
//   tokens [B, S+1] -> x [S*B, E] -> h [S*B, H] (per layer) -> logits [S*B, V]
// Tensors, as the PyTorch module
//   class LM(nn.Module): embedding = nn.Embedding(V, E); lstm = nn.LSTM(E, H, L);
//                        decoder = nn.Linear(H, V)
// : embedding.weight [V,E], lstm.weight_ih_l0 [4H,E], lstm.weight_hh_l0 [4H,H],
//   lstm.bias_ih_l0 [4H], lstm.bias_hh_l0 [4H], (l1 ...), decoder.weight [V,H],
//   decoder.bias [V].
// Dropout p (as PyTorch's word-language-model example: nn.Dropout on the embedded inputs,
// nn.LSTM(dropout=p) between stacked layers, nn.Dropout on the top layer's output before
// the decoder): inverted dropout in training (kept units scaled by 1 / (1 - p)), the
// identity in evaluation. Masks are drawn like the Dropout layer's (Boost mt19937 and
// bernoulli_distribution) from derive_seed(dropout_seed, "lstm-dropout", k), k = 0 for
// the embedding, l for the input of layer l, L for the output, so a gradient is a pure
// function of (params, batch, seed). No parameters: the layout is the same for any p.
// Each sequence starts from a zero state (h, c) — a gradient is then a function of the
// batch alone, which the simulator needs (no hidden state carried between workers' calls).
// The loss is the mean NLL over the B*S predicted tokens.
#pragma once

#include <vector>

#include "models/core/eigen_types.hpp"

#include "models/layers/lstm.hpp"
#include "models/nets/network.hpp"

namespace pssim::models {

template <typename Real>
class LstmLanguageModel final : public NetworkT<Real> {
 public:
  /// Throws std::invalid_argument naming the field when a size is < 1.
  LstmLanguageModel(std::int64_t vocab_size, std::int64_t embed_dim, std::int64_t hidden_size,
                    std::int64_t num_layers, double dropout = 0.0);

  TaskKind task() const override { return TaskKind::language_model; }
  std::unique_ptr<Workspace> make_workspace() const override;
  Real loss_and_gradient(std::span<const Real> params, const BatchView& batch,
                         std::span<Real> grad, Workspace& workspace,
                         std::uint64_t dropout_seed) const override;
  BatchEval evaluate_batch(std::span<const Real> params, const BatchView& batch,
                           Workspace& workspace) const override;
  /// Per sequence of seq_len predicted tokens (seq_len must be >= 1).
  double flops_per_sample(std::int64_t seq_len = 0) const override;
  /// embedding (no FLOPs counted), lstm0 .. lstmN-1, decoder.
  std::vector<LayerCost> layer_costs(std::int64_t seq_len = 0) const override;
  std::string describe() const override;
  std::string manifest_json() const override;

  std::int64_t vocab_size() const { return vocab_; }
  std::int64_t embed_dim() const { return embed_; }
  std::int64_t hidden_size() const { return hidden_; }
  std::int64_t num_layers() const { return std::int64_t(lstm_.size()); }
  double dropout() const { return dropout_; }

 protected:
  void init_tensors(std::span<Real> params, std::uint64_t seed) const override;

 private:
  struct Ws;
  Ws& workspace_of(Workspace& workspace) const;
  /// Embedding + LSTM stack + decoder; leaves logits [S*B, V] in ws.logits and the
  /// targets [S*B] (time-major) in ws.targets. Returns S.
  /// `training`: with dropout (masks from `dropout_seed`); else evaluation.
  std::int64_t forward(std::span<const Real> params, const BatchView& batch, Ws& ws, bool training,
                       std::uint64_t dropout_seed) const;
  /// Draws a scaled keep-mask of n units into `mask` and multiplies `x` [n] by it.
  void drop(AlignedVector<Real>& mask, Real* x, std::int64_t n, std::uint64_t seed, std::uint64_t k) const;

  std::int64_t vocab_, embed_, hidden_;
  double dropout_ = 0.0;
  std::vector<LstmLayer<Real>> lstm_;
  std::size_t emb_off_ = 0, dec_w_off_ = 0, dec_b_off_ = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> lstm_ranges_;  // per LSTM layer: [begin, end) of its parameters
};

}  // namespace pssim::models
