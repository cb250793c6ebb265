#include "models/core/instantiated_real.hpp"
#include "models/nets/lstm_lm.hpp"

#include <cmath>
#include <stdexcept>

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/seed_seq.hpp>

#include <fmt/format.h>

#include "models/core/eigen_types.hpp"
#include "models/core/seed.hpp"
#include "models/layers/embedding.hpp"
#include "models/layers/init.hpp"
#include "models/layers/log_softmax_nll.hpp"

namespace pssim::models {

template <typename Real>
struct LstmLanguageModel<Real>::Ws final : Workspace {
  const LstmLanguageModel* owner = nullptr;
  AlignedVector<std::int32_t> inputs, targets;   // [S*B] time-major
  AlignedVector<Real> x;                         // [S*B, E] embedded inputs
  std::vector<LstmBuffers<Real>> layers;
  AlignedVector<Real> logits;                    // [S*B, V], then d loss / d logits
  AlignedVector<Real> dh, dx;                    // [S*B, max(E, H)]
  // Dropout (training with p > 0): masks of the embedded inputs [S*B, E], of each layer's
  // input from below [S*B, H] (index l >= 1), of the top output [S*B, H]; the dropped
  // inputs of layers l >= 1 and the dropped top output (what the next stage read).
  bool dropped = false;
  AlignedVector<Real> mask_x, mask_top, top;
  std::vector<AlignedVector<Real>> mask_in, input;
  std::size_t bytes() const override {
    std::size_t n = (inputs.size() + targets.size()) * sizeof(std::int32_t) +
                    (x.size() + logits.size() + dh.size() + dx.size() + mask_x.size() + mask_top.size() +
                     top.size()) * sizeof(Real);
    for (const auto& m : mask_in) n += m.size() * sizeof(Real);
    for (const auto& m : input) n += m.size() * sizeof(Real);
    for (const auto& l : layers) {
      n += (l.gates.size() + l.cell.size() + l.tanh_c.size() + l.h.size() + l.dgates.size() +
            l.dh_next.size() + l.dc_next.size()) * sizeof(Real);
    }
    return n;
  }
};

template <typename Real>
LstmLanguageModel<Real>::LstmLanguageModel(std::int64_t vocab_size, std::int64_t embed_dim,
                                           std::int64_t hidden_size, std::int64_t num_layers,
                                           double dropout)
    : vocab_(vocab_size), embed_(embed_dim), hidden_(hidden_size), dropout_(dropout) {
  if (!(dropout >= 0.0 && dropout < 1.0)) {
    throw std::invalid_argument(
        fmt::format("lstm-lm: model.dropout {} is outside [0, 1); use e.g. 0.2 or 0.5", dropout));
  }
  auto need = [](std::int64_t v, const char* field) {
    if (v < 1) {
      throw std::invalid_argument(fmt::format(
          "lstm-lm: {} is {}, must be >= 1{}", field, v,
          std::string(field) == "model.vocab_size"
              ? " (take it from the corpus: TextCorpus::vocab_size())"
              : ""));
    }
  };
  need(vocab_size, "model.vocab_size");
  need(embed_dim, "model.embed_dim");
  need(hidden_size, "model.hidden_size");
  need(num_layers, "model.num_layers");
  if (vocab_size > (std::int64_t(1) << 31) - 1) {
    throw std::invalid_argument("lstm-lm: model.vocab_size must fit a 32-bit token id");
  }
  emb_off_ = this->layout_.tensor(this->layout_.add("embedding.weight", {vocab_, embed_})).offset;
  for (std::int64_t l = 0; l < num_layers; ++l) {
    lstm_.emplace_back("lstm", l, l == 0 ? embed_ : hidden_, hidden_);
    const auto begin = std::int64_t(this->layout_.size());
    lstm_.back().declare_params(this->layout_);
    lstm_ranges_.emplace_back(begin, std::int64_t(this->layout_.size()));
  }
  dec_w_off_ = this->layout_.tensor(this->layout_.add("decoder.weight", {vocab_, hidden_})).offset;
  dec_b_off_ = this->layout_.tensor(this->layout_.add("decoder.bias", {vocab_})).offset;
}

template <typename Real>
void LstmLanguageModel<Real>::init_tensors(std::span<Real> params, std::uint64_t seed) const {
  init_normal(params.subspan(emb_off_, vocab_ * embed_), seed, "embedding.weight");
  for (const auto& l : lstm_) l.init_params(params, seed);
  const double bound = 1.0 / std::sqrt(double(hidden_));
  init_uniform(params.subspan(dec_w_off_, vocab_ * hidden_), bound, seed, "decoder.weight");
  init_uniform(params.subspan(dec_b_off_, vocab_), bound, seed, "decoder.bias");
}

template <typename Real>
std::unique_ptr<Workspace> LstmLanguageModel<Real>::make_workspace() const {
  auto ws = std::make_unique<Ws>();
  ws->owner = this;
  ws->layers.resize(lstm_.size());
  ws->mask_in.resize(lstm_.size());
  ws->input.resize(lstm_.size());
  return ws;
}

template <typename Real>
typename LstmLanguageModel<Real>::Ws& LstmLanguageModel<Real>::workspace_of(
    Workspace& workspace) const {
  auto* ws = dynamic_cast<Ws*>(&workspace);
  if (!ws || ws->owner != this) {
    throw std::invalid_argument(
        "LstmLanguageModel: the workspace was made by another network; call "
        "make_workspace() on this network (one workspace per thread)");
  }
  return *ws;
}

template <typename Real>
void LstmLanguageModel<Real>::drop(AlignedVector<Real>& mask, Real* x, std::int64_t n, std::uint64_t seed,
                                   std::uint64_t k) const {
  ensure_size(mask, std::size_t(n));
  const std::uint64_t s = derive_seed(seed, "lstm-dropout", k);
  boost::random::seed_seq seq{std::uint32_t(s), std::uint32_t(s >> 32)};
  boost::random::mt19937 engine(seq);
  boost::random::bernoulli_distribution<double> keep(1.0 - dropout_);
  const Real scale = Real(1.0 / (1.0 - dropout_));
  for (std::int64_t i = 0; i < n; ++i) mask[std::size_t(i)] = keep(engine) ? scale : Real(0);
  MapArray<Real>(x, n) *= CMapArray<Real>(mask.data(), n);
}

template <typename Real>
std::int64_t LstmLanguageModel<Real>::forward(std::span<const Real> params,
                                              const BatchView& batch, Ws& ws, bool training,
                                              std::uint64_t dropout_seed) const {
  const auto B = batch.size;
  if (B < 1 || batch.tokens.size() % std::size_t(B) != 0 ||
      std::int64_t(batch.tokens.size()) / B < 2) {
    throw std::invalid_argument(fmt::format(
        "lstm-lm: a batch of {} sequences needs B*(S+1) tokens with S >= 1, got {} tokens; "
        "build batches with the corpus batch sampler",
        B, batch.tokens.size()));
  }
  const std::int64_t S = std::int64_t(batch.tokens.size()) / B - 1, R = S * B;
  ensure_size(ws.inputs, std::size_t(R));
  ensure_size(ws.targets, std::size_t(R));
  for (std::int64_t b = 0; b < B; ++b) {
    const std::int32_t* row = batch.tokens.data() + b * (S + 1);
    for (std::int64_t t = 0; t < S; ++t) {
      ws.inputs[t * B + b] = row[t];
      ws.targets[t * B + b] = row[t + 1];
    }
  }
  ensure_size(ws.x, std::size_t(R * embed_));
  embedding_forward(params.data() + emb_off_, vocab_, embed_, ws.inputs.data(), R, ws.x.data());
  ws.dropped = training && dropout_ > 0.0;
  if (ws.dropped) drop(ws.mask_x, ws.x.data(), R * embed_, dropout_seed, 0);
  const Real* x = ws.x.data();
  for (std::size_t l = 0; l < lstm_.size(); ++l) {
    if (l > 0 && ws.dropped) {  // nn.LSTM(dropout=p): on each layer's input from below
      ws.input[l].assign(x, x + R * hidden_);
      drop(ws.mask_in[l], ws.input[l].data(), R * hidden_, dropout_seed, l);
      x = ws.input[l].data();
    }
    lstm_[l].forward(params.data(), x, S, B, ws.layers[l]);
    x = ws.layers[l].h.data();
  }
  if (ws.dropped) {
    ws.top.assign(x, x + R * hidden_);
    drop(ws.mask_top, ws.top.data(), R * hidden_, dropout_seed, lstm_.size());
    x = ws.top.data();
  }
  ensure_size(ws.logits, std::size_t(R * vocab_));
  CMapR<Real> h(x, R, hidden_);                                 // [S*B, H]
  CMapR<Real> w(params.data() + dec_w_off_, vocab_, hidden_);   // [V, H]
  CMapRowVec<Real> b(params.data() + dec_b_off_, vocab_);       // [V]
  MapR<Real> logits(ws.logits.data(), R, vocab_);               // [S*B, V]
  logits.noalias() = h * w.transpose();
  logits.rowwise() += b;
  return S;
}

template <typename Real>
Real LstmLanguageModel<Real>::loss_and_gradient(std::span<const Real> params,
                                                const BatchView& batch, std::span<Real> grad,
                                                Workspace& workspace, std::uint64_t dropout_seed) const {
  const char* where = "LstmLanguageModel::loss_and_gradient";
  this->check_sizes(params, grad, where);
  if (grad.size() != this->layout_.size()) {
    throw std::invalid_argument(fmt::format("{}: no gradient buffer given", where));
  }
  auto& ws = workspace_of(workspace);
  const std::int64_t S = forward(params, batch, ws, true, dropout_seed), B = batch.size, R = S * B;
  const auto sums =
      log_softmax_nll(ws.logits.data(), ws.targets.data(), R, vocab_, Real(1) / Real(R));
  // Decoder: dW = dlogits^T h, db = column sums, dh = dlogits W (h: the decoder's input).
  const Real* h_top = ws.dropped ? ws.top.data() : ws.layers.back().h.data();
  CMapR<Real> dlogits(ws.logits.data(), R, vocab_);             // [S*B, V]
  CMapR<Real> h(h_top, R, hidden_);                             // [S*B, H]
  MapR<Real>(grad.data() + dec_w_off_, vocab_, hidden_).noalias() = dlogits.transpose() * h;
  column_sums(dlogits.data(), R, vocab_, grad.data() + dec_b_off_);
  const auto widest = std::max(embed_, hidden_);
  ensure_size(ws.dh, std::size_t(R * widest));
  ensure_size(ws.dx, std::size_t(R * widest));
  CMapR<Real> w_dec(params.data() + dec_w_off_, vocab_, hidden_);
  MapR<Real>(ws.dh.data(), R, hidden_).noalias() = dlogits * w_dec;
  // Through a dropout mask, a gradient is multiplied by the same mask.
  if (ws.dropped) MapArray<Real>(ws.dh.data(), R * hidden_) *= CMapArray<Real>(ws.mask_top.data(), R * hidden_);
  // LSTM stack, top to bottom; dx of layer l is dh of layer l-1, of layer 0 d embedding.
  Real* dh = ws.dh.data();
  Real* dx = ws.dx.data();
  for (std::size_t l = lstm_.size(); l-- > 0;) {
    const Real* x = l == 0 ? ws.x.data() : ws.dropped ? ws.input[l].data() : ws.layers[l - 1].h.data();
    lstm_[l].backward(params.data(), x, dh, S, B, ws.layers[l], grad.data(), dx);
    if (l > 0 && ws.dropped) MapArray<Real>(dx, R * hidden_) *= CMapArray<Real>(ws.mask_in[l].data(), R * hidden_);
    std::swap(dh, dx);
  }
  if (ws.dropped) MapArray<Real>(dh, R * embed_) *= CMapArray<Real>(ws.mask_x.data(), R * embed_);
  embedding_backward(dh, ws.inputs.data(), R, vocab_, embed_, grad.data() + emb_off_);
  return Real(sums.loss_sum / double(R));
}

template <typename Real>
BatchEval LstmLanguageModel<Real>::evaluate_batch(std::span<const Real> params,
                                                  const BatchView& batch,
                                                  Workspace& workspace) const {
  this->check_sizes(params, {}, "LstmLanguageModel::evaluate_batch");
  auto& ws = workspace_of(workspace);
  const std::int64_t S = forward(params, batch, ws, false, 0), R = S * batch.size;
  const auto sums = log_softmax_nll(ws.logits.data(), ws.targets.data(), R, vocab_, Real(0));
  return BatchEval{sums.loss_sum, sums.correct, R};
}

template <typename Real>
double LstmLanguageModel<Real>::flops_per_sample(std::int64_t seq_len) const {
  if (seq_len < 1) {
    throw std::invalid_argument(
        "lstm-lm: flops_per_sample needs the sequence length (data.seq_len >= 1)");
  }
  double per_step = 0;
  for (std::size_t l = 0; l < lstm_.size(); ++l) {
    per_step += lstm_[l].forward_macs_per_step() + lstm_[l].backward_macs_per_step(true);
  }
  per_step += 3.0 * double(vocab_) * double(hidden_);  // decoder: forward, dW, dh
  return 2.0 * per_step * double(seq_len);
}

template <typename Real>
std::vector<LayerCost> LstmLanguageModel<Real>::layer_costs(std::int64_t seq_len) const {
  flops_per_sample(seq_len);  // checks seq_len
  const double steps = double(seq_len);
  std::vector<LayerCost> out;
  const auto& layout = this->layout_;
  const auto emb = std::int64_t(emb_off_);
  out.push_back({"embedding", emb, emb + vocab_ * embed_, 0, 0});
  for (std::size_t l = 0; l < lstm_.size(); ++l)
    out.push_back({fmt::format("lstm{}", l), lstm_ranges_[l].first, lstm_ranges_[l].second,
                   2.0 * lstm_[l].forward_macs_per_step() * steps, 2.0 * lstm_[l].backward_macs_per_step(true) * steps});
  const double vh = double(vocab_) * double(hidden_) * steps;  // decoder: forward, then dW and dh
  out.push_back({"decoder", std::int64_t(dec_w_off_), std::int64_t(layout.size()), 2.0 * vh, 4.0 * vh});
  return out;
}

template <typename Real>
std::string LstmLanguageModel<Real>::describe() const {
  return fmt::format("lstm-lm: embedding {}x{}, LSTM hidden {} x {} layer(s), decoder {}->{} "
                     "-> {} params{}",
                     vocab_, embed_, hidden_, lstm_.size(), hidden_, vocab_,
                     this->layout_.size(),
                     dropout_ > 0 ? fmt::format(", dropout {}", dropout_) : std::string());
}

template <typename Real>
std::string LstmLanguageModel<Real>::manifest_json() const {
  return fmt::format(
      "{{\"kind\": \"lstm_lm\", \"label\": \"lstm-lm\", \"vocab_size\": {}, \"embed_dim\": {}, "
      "\"hidden_size\": {}, \"num_layers\": {}, \"dropout\": {}}}",
      vocab_, embed_, hidden_, lstm_.size(), dropout_);
}

template class LstmLanguageModel<InstantiatedReal>;

}  // namespace pssim::models
