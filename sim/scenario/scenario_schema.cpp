#include "sim/scenario/scenario_schema.hpp"

#include <functional>
#include <string>

#include "models/compress/compressor.hpp"
#include "sim/scenario/schema_markdown.hpp"
#include "sim/schemes/registry.hpp"

namespace pssim::scenario {
namespace {

using VT = ValueType;
using schemes::Layout;
using schemes::Scheme;

// Prose that names schemes takes the names from the registry (by capability), so that it
// stays true when a scheme is added.
std::string names(const std::function<bool(const Scheme&)>& has, const char* last = "and") {
  return schemes::names_where(has, last);
}
std::string with_rounds(bool rounds) {
  return names([rounds](const Scheme& x) { return x.capabilities.has_rounds == rounds; });
}
std::string on(Layout layout) {
  return names([layout](const Scheme& x) { return x.layout == layout; });
}

// Limits that keep a typo from asking for absurd resources; far above real clusters.
constexpr double kMaxWorkers = 10'000'000;
constexpr double kMaxServers = 10'000;
constexpr double kMaxParams = 1e11;
constexpr double kMaxBatch = 1'000'000;

Field math_field() {
  return optional("math", scalar(VT::Bool), "true",
                  "Compute real gradients. false keeps the network's sizes and FLOPs for timing but skips the "
                  "arithmetic (network-scale studies).");
}

SchemaPtr layer_schema() {
  return map_of({required("kind",
                          enumeration({"conv2d", "max_pool2d", "relu", "dropout", "dropout2d", "flatten", "linear"}),
                          "Layer type. `dropout2d` zeroes whole channels (nn.Dropout2d), `dropout` single units."),
                 omittable("out", scalar(VT::Count, 1, 1e6), "conv2d: output channels; linear: output features."),
                 omittable("kernel", scalar(VT::Count, 1, 1024), "conv2d, max_pool2d: square kernel size."),
                 omittable("stride", scalar(VT::Count, 1, 1024), "conv2d: default 1; max_pool2d: default kernel."),
                 omittable("padding", scalar(VT::Count, 0, 1024), "conv2d: zero padding."),
                 omittable("p", scalar(VT::Ratio, 0, 0.99), "dropout, dropout2d: probability of dropping."),
                 omittable("name", scalar(VT::Name), "Tensor name prefix (default conv1, conv2 ... / fc1, fc2 ...).")});
}

SchemaPtr model_schema() {
  return variant(
      "kind", "What is trained.", std::nullopt,
      {{"synthetic",
        "A model that exists only as sizes: parameter count and compute per sample. Timing only, no math.",
        {required("params", scalar(VT::Count, 1, kMaxParams),
                  "Number of float32 parameters (4 bytes each on the wire)."),
         required("flops_per_sample", scalar_above(VT::Flops, 0, 1e18),
                  "Forward + backward operations for one sample."),
         omittable("layer_params", list_of(scalar(VT::Count, 1, kMaxParams), 1, 100'000),
                   "Parameter count of each layer (tensor), in order; must sum to `params`. Used by "
                   "`cluster.servers.partition: layer` and by `protocol.overlap` (the layers' steps). Absent: one "
                   "layer."),
         omittable("layer_flops", list_of(scalar(VT::Flops, 0, 1e18), 1, 100'000),
                   "Forward + backward FLOPs of each layer per sample, one per `layer_params` entry, input first: "
                   "the layer profile of `protocol.overlap`. Only their shares matter (the iteration still takes "
                   "`flops_per_sample` x batch / throughput); each layer's forward step takes a third, its "
                   "backward step two thirds. Absent: in proportion to `layer_params`.")}},
       {"cnn",
        "A convolutional network on images: a preset, or `layers` one by one (ending with a linear layer "
        "with one output per class).",
        {omittable("preset", enumeration({"convnet-small", "cnn", "mnist-net"}),
                   "`convnet-small`: conv 1->3 k3, max-pool 3, ReLU, linear 192->10 (1,960 parameters; the ConvNet "
                   "of the Ray / lithops parameter-server example). `cnn`: conv 1->32 k3, dropout2d 0.5, ReLU, "
                   "conv 32->64 k3, dropout2d 0.75, max-pool 2, linear 9216->128, ReLU, linear 128->20, ReLU, "
                   "linear 20->10 (1.2 M parameters; the parameter-server tutorials' second MNIST network). "
                   "`mnist-net`: conv 1->32 k3, ReLU, conv 32->64 k3, ReLU, max-pool 2, dropout 0.25, linear "
                   "9216->128, ReLU, dropout 0.5, linear 128->10 (1.2 M parameters, PyTorch's MNIST example)."),
         omittable("layers", list_of(layer_schema(), 1, 64), "The layers, in order (instead of `preset`)."),
         omittable("dropout", scalar(VT::Ratio, 0, 0.99), "Overrides every dropout probability of the preset."),
         math_field()}},
       {"mlp", "A multi-layer perceptron on flattened images: ReLU hidden layers, then one output per class.",
        {optional("hidden", list_of(scalar(VT::Count, 1, 1e6), 0, 16), "[256]",
                  "Widths of the hidden layers ([256] is the `mlp` preset: 784->256->10)."),
         math_field()}},
       {"logreg", "Multinomial logistic regression: one linear layer 784->10.", {math_field()}},
       {"lstm-lm",
        "An LSTM language model: embedding, LSTM layers, linear decoder over the vocabulary (taken from the "
        "corpus).",
        {optional("embed_dim", scalar(VT::Count, 1, 1e5), "64", "Embedding width E."),
         optional("hidden_size", scalar(VT::Count, 1, 1e5), "256", "LSTM hidden size H."),
         optional("num_layers", scalar(VT::Count, 1, 16), "1", "Stacked LSTM layers."),
         omittable("dropout", scalar(VT::Ratio, 0, 0.99),
                   "Dropout probability, as PyTorch's word-language-model example applies it: on the embedded "
                   "inputs, between stacked layers (nn.LSTM(dropout=...)) and on the top layer's output before the "
                   "decoder; training only (evaluation sees every unit). Absent: none."),
         math_field()}},
       {"torch",
        "A PyTorch module (`torch.nn.Module`) as the math, run from Python (`pssim.run`, or `/usr/bin/python3 "
        "-m pssim run`): its parameters, in `state_dict` order, are what the servers hold; each worker's "
        "gradient is PyTorch's, at the parameters it holds, on its batch (cross-entropy of the module's "
        "outputs). Images arrive as [B, C, H, W] float32, text as [B, S] int64 tokens (outputs [B, S, V]).",
        {omittable("module", scalar(VT::ModuleReference),
                   "`path/to/file.py:function` (the path as every file path here): a function of no arguments returning the module, called after "
                   "`torch.manual_seed` with a seed derived from `seed` (the initial parameters). Absent: the "
                   "module given to `pssim.run(..., model=...)`."),
         omittable("flops_per_sample", scalar_above(VT::Flops, 0, 1e18),
                   "Forward + backward operations for one sample. Absent: counted once from the layer shapes "
                   "(Linear, Conv1d/2d/3d, LSTM, pssim's convention of docs/models.md; other operations count "
                   "nothing)."),
         math_field()}}});
}

SchemaPtr partition_schema() {
  return variant("kind", "How the training items are split among the workers.", "iid",
                 {{"iid", "A seeded shuffle dealt into near-equal parts.", {}},
                  {"dirichlet",
                   "Non-iid label skew: each class is split among workers in proportions drawn from a "
                   "Dirichlet(alpha) distribution (images only).",
                   {optional("alpha", scalar_above(VT::Real, 0, 1e6), "0.5",
                             "Concentration: small values give strongly skewed workers.")}}});
}

Field eval_max_field() {
  return optional("eval_max", scalar(VT::Count, 0, 1e9), "0",
                  "Evaluate on the first eval_max test images or held-out windows only (0: all).");
}

std::vector<Field> image_fields(bool path_required) {
  std::vector<Field> f;
  if (path_required)
    f.push_back(required("path", scalar(VT::Path),
                         "Directory of the IDX files {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]."));
  else
    f.push_back(omittable("path", scalar(VT::Path),
                          "Directory of the IDX files. Absent: /usr/share/datasets/fashion-mnist (Debian package "
                          "dataset-fashion-mnist)."));
  f.push_back(section("partition", partition_schema(), "How the training images are split among workers."));
  f.push_back(optional("pixel_mean", scalar(VT::Real, -10, 10), "0",
                       "Pixels become (byte/255 - pixel_mean) / pixel_std."));
  f.push_back(optional("pixel_std", scalar_above(VT::Real, 0, 10), "1", "See pixel_mean."));
  f.push_back(eval_max_field());
  return f;
}

SchemaPtr data_schema() {
  return variant(
      "kind", "The training and test data.", "none",
      {{"none", "No data: the model is synthetic (timing only).", {}},
       {"fashion-mnist", "Fashion-MNIST: 60,000 training and 10,000 test images of 28x28, 10 classes.",
        image_fields(false)},
       {"mnist", "MNIST, or any IDX pair, from a directory you give.", image_fields(true)},
       {"synthetic", "Seeded random class prototypes plus noise (tests and quick runs).",
        {optional("train_items", scalar(VT::Count, 1, 1e7), "4096", "Training images."),
         optional("test_items", scalar(VT::Count, 1, 1e7), "1024", "Test images."),
         optional("noise", scalar(VT::Real, 0, 100), "1", "Per-pixel noise standard deviation."),
         section("partition", partition_schema(), "How the training images are split among workers."),
         eval_max_field()}},
       {"text", "A plain-text corpus for `model.kind: lstm-lm`; its last part is held out for perplexity.",
        {omittable("corpus", scalar(VT::Path),
                   "A text file or a directory of fortune files. Absent: /usr/share/games/fortunes (Debian "
                   "package fortunes)."),
         optional("level", enumeration({"char", "word"}), "char", "Tokens: characters or words."),
         optional("vocab_cap", scalar(VT::Count, 0, 1e7), "0",
                  "Largest vocabulary (with <unk>); 0: no cap (word level: use e.g. 10000)."),
         optional("heldout", scalar_above(VT::Ratio, 0, 0.5), "0.1", "Share of the text held out for perplexity."),
         optional("seq_len", scalar(VT::Count, 1, 10000), "35", "Tokens predicted per sequence."), eval_max_field()}},
       {"torch",
        "PyTorch datasets (map-style, items `(input, label)`), read once into memory (float32 inputs, integer "
        "labels; classification). Needs `model.kind: torch`.",
        {omittable("module", scalar(VT::ModuleReference),
                   "`path/to/file.py:function`: a function of no arguments returning `(train, test)`. Absent: "
                   "the datasets given to `pssim.run(..., data=(train, test))`."),
         section("partition", partition_schema(), "How the training items are split among workers."),
         eval_max_field()}},
       {"synthetic-text", "Tokens from a seeded sparse Markov chain (tests).",
        {optional("vocab", scalar(VT::Count, 2, 1e6), "50", "Vocabulary size."),
         optional("branching", scalar(VT::Count, 1, 1e6), "3", "Successors of each token."),
         optional("seq_len", scalar(VT::Count, 1, 10000), "35", "Tokens predicted per sequence."),
         eval_max_field()}}},
      {optional("batch_size", scalar(VT::Count, 1, kMaxBatch), "64",
                "Samples (images or sequences) per worker per iteration.")});
}

SchemaPtr optimizer_schema() {
  return map_of(
      {optional("kind", enumeration({"sgd", "adam", "adamw"}), "sgd",
                "Update rule (PyTorch 1.13's), applied by each shard to its slice."),
       optional("lr", scalar_above(VT::Real, 0, 1e3), "0.05", "Learning rate."),
       optional("momentum", scalar(VT::Real, 0, 0.9999), "0", "sgd: momentum (0: plain SGD)."),
       optional("nesterov", scalar(VT::Bool), "false", "sgd: Nesterov momentum (needs momentum > 0)."),
       optional("weight_decay", scalar(VT::Real, 0, 10), "0",
                "L2 coefficient (added to the gradient for sgd and adam; decoupled for adamw)."),
       optional("warmup_steps", scalar(VT::Count, 0, 1e9), "0",
                "Linear warm-up: step t uses lr x min(1, (t + 1) / warmup_steps)."),
       optional("beta1", scalar(VT::Real, 0, 0.9999), "0.9", "adam, adamw."),
       optional("beta2", scalar(VT::Real, 0, 0.999999), "0.999", "adam, adamw."),
       optional("eps", scalar_above(VT::Real, 0, 1), "1e-8", "adam, adamw.")});
}

SchemaPtr lr_schedule_schema() {
  return variant(
      "kind", "The schedule (PyTorch 1.13's rules).", std::nullopt,
      {{"step", "StepLR: the rate is multiplied by `gamma` every `step_size` steps.",
        {required("step_size", scalar(VT::Count, 1, 1e12), "Steps between decays."),
         optional("gamma", scalar_above(VT::Real, 0, 1), "0.1", "Factor of each decay.")}},
       {"cosine",
        "CosineAnnealingLR: from the full rate down to `min_factor` of it along half a cosine over `period` "
        "steps, then constant at the minimum.",
        {omittable("period", scalar(VT::Count, 1, 1e12),
                   "Steps from the full rate to the minimum. Absent: training.stop.updates (then required)."),
         optional("min_factor", scalar(VT::Ratio, 0, 1), "0", "The minimum as a share of the rate (eta_min / lr).")}},
       {"plateau",
        "ReduceLROnPlateau (mode min, relative threshold, no cooldown) on the held-out loss of each evaluation: "
        "after more than `patience` evaluations in a row that do not improve on the best by `threshold`, the rate "
        "is multiplied by `gamma`. Needs training.eval.every (pssim run) or eval.every_steps (pssim train).",
        {optional("gamma", scalar_above(VT::Real, 0, 1), "0.1", "Factor of each decay."),
         optional("patience", scalar(VT::Count, 0, 1e9), "0", "Evaluations without improvement tolerated."),
         optional("threshold", scalar(VT::Real, 0, 1), "1e-4", "Relative improvement that counts.")}}});
}

SchemaPtr training_schema() {
  return map_of(
      {section("optimizer", optimizer_schema(), "The optimizer of the servers (real models)."),
       section("stop",
               map_of({omittable("sim_time", scalar_above(VT::Duration, 0), "Stop when simulated time reaches this."),
                       omittable("updates", scalar(VT::Count, 1, 1e12),
                                 "Stop when every shard has applied this many updates (" + with_rounds(true) +
                                     ": rounds; " + with_rounds(false) + ": one per message applied)."),
                       omittable("epochs", scalar_above(VT::Real, 0, 1e6),
                                 "Stop when the gradients applied have covered the training data this many "
                                 "times (real data).")}),
               "When the run ends: at the first condition reached. At least one is required."),
       section("eval",
               map_of({omittable("every", scalar_above(VT::Duration, 0),
                                 "pssim run: evaluate the servers' parameters on the test data every this much "
                                 "simulated time (and at the end). Absent: at the start and the end only."),
                       optional("every_steps", scalar(VT::Count, 0, 1e12), "0",
                                "pssim train: evaluate every this many optimizer steps (0: start and end).")}),
               "Evaluation of the servers' current parameters (takes no simulated time)."),
       section("collapse",
               map_of({optional("loss_factor", scalar(VT::Real, 0, 1e12), "10",
                                "The run collapsed (and stops) when its training loss, the mean over an evaluation "
                                "interval, exceeds this many times the loss of the initial parameters (for a "
                                "classifier of C classes about ln C; 10x is a model that predicts worse than "
                                "chance with confidence). 0: off."),
                       optional("chance_evaluations", scalar(VT::Count, 0, 1e9), "5",
                                "Classifiers: the run collapsed (and stops) when its test accuracy, once trained "
                                "above 1.5 x chance (chance: 1 / classes), is back at chance (at most 1.2 x "
                                "chance) for this many evaluations in a row. 0: off.")}),
               "When a run that did not diverge (a NaN or infinite loss stops a run always) counts as failed: "
               "`stopped_by: collapsed` in summary.json, COLLAPSED in the run line, marked in `compare` and the "
               "plots. Checked at each evaluation (training.eval.every)."),
       omittable("target_accuracy", scalar(VT::Ratio, 0, 1),
                 "Report time_to_target_s: the simulated time of the first evaluation at this test accuracy."),
       optional("stop_at_target", scalar(VT::Bool), "false", "End the run when target_accuracy is reached."),
       optional("staleness_lr", enumeration({"none", "inverse", "inverse-plus-one"}), "none",
                "Staleness-aware learning rate for " + names([](const Scheme& x) { return x.capabilities.stale_gradients; }) +
                    " (Zhang et al. 2016): a gradient of staleness "
                "tau is applied with lr / tau (`inverse`, tau >= 1) or lr / (1 + c tau) (`inverse-plus-one`, c = "
                "staleness_lr_coefficient)."),
       omittable("staleness_lr_coefficient", scalar(VT::Real, 0, 1e6),
                 "c of `inverse-plus-one`: lr / (1 + c tau). Absent: 1. The parameter-server tutorials use 0.1."),
       section("lr_scaling",
               map_of({optional("rule", enumeration({"none", "linear"}), "none",
                                "`linear` (Goyal et al. 2017): lr x (workers x batch_size) / base_batch."),
                       optional("base_batch", scalar(VT::Count, 1, 1e9), "64", "The batch size lr was tuned for."),
                       optional("warmup_updates", scalar(VT::Count, 0, 1e12), "0",
                                "Ramp linearly from lr to the scaled lr over this many updates (per shard).")}),
               "Learning-rate scaling with the global batch."),
       omittable("clip_norm", scalar_above(VT::Real, 0, 1e9),
                 "Gradient clipping by global norm (torch.nn.utils.clip_grad_norm_): each worker scales its "
                 "gradient down to this L2 norm when it is larger, before compressing and pushing it. The norm is "
                 "that of the whole model's gradient, taken before the gradient is cut into shard slices (and "
                 "all-reduced parts), so sharding does not change what is clipped; a worker that takes several "
                 "steps per computation clips each. `pssim train` clips every step. Absent: no clipping."),
       omittable("lr_schedule", lr_schedule_schema(),
                 "Learning-rate schedule, a factor on the rate that composes with linear scaling and its warm-up "
                 "and with the optimizer's warm-up (all multiply). Steps count a part's updates at the servers "
                 "(rounds in the schemes with rounds, else one per message applied), a worker's own steps where "
                 "workers take optimizer steps of their own, optimizer steps in `pssim train`. Absent: a constant "
                 "rate."),
       omittable("delay_compensation", scalar(VT::Real, 0, 100),
                 "DC-ASGD (Zheng et al. 2017), " +
                     names([](const Scheme& x) { return x.capabilities.applies_each_gradient; }) +
                     " only: lambda of the compensation g + lambda g*g*(w_now - w_then) applied to stale gradients.")});
}

SchemaPtr speed_schema() {
  return variant(
      "dist", "How worker speed factors are drawn (a factor of 0.5 means half as fast).", "constant",
      {{"constant", "Every worker has the same factor.",
        {optional("factor", scalar_above(VT::Real, 0, 1e6), "1", "The speed factor of every worker.")}},
       {"list", "One factor per worker, in worker order.",
        {required("factors", list_of(scalar_above(VT::Real, 0, 1e6), 1, static_cast<std::size_t>(kMaxWorkers)),
                  "Speed factors; as many as `cluster.workers.count`.")}},
       {"uniform", "Factors drawn uniformly from [min, max] (one random stream per worker).",
        {required("min", scalar_above(VT::Real, 0, 1e6), "Smallest factor."),
         required("max", scalar_above(VT::Real, 0, 1e6), "Largest factor (at least `min`).")}},
       {"lognormal", "Factors exp(N(0, sigma^2)): median 1, heavy tail of slow and fast workers.",
        {required("sigma", scalar(VT::Real, 0, 10), "Standard deviation of the log of the factor.")}},
       {"stragglers", "A fixed set of workers is persistently slow.",
        {required("fraction", scalar(VT::Ratio, 0, 1),
                  "Share of workers that are slow (rounded to the nearest count; chosen at random)."),
         required("slowdown", scalar(VT::Real, 1, 1e6), "A slow worker takes this many times longer.")}},
       {"transient-stragglers", "Any worker may be slow in any iteration.",
        {required("probability", scalar(VT::Ratio, 0, 1), "Chance that a worker is slow in an iteration."),
         required("slowdown", scalar(VT::Real, 1, 1e6), "A slow iteration takes this many times longer.")}},
       {"markov",
        "A two-state on/off straggler per worker: normal, then slow (`slowdown` times slower), for exponential "
        "times of means `mean_normal` and `mean_slow`, each worker from its own random stream, starting in its "
        "stationary state (slow with probability mean_slow / (mean_slow + mean_normal)). A state change applies "
        "at once, to the rest of an iteration under way too.",
        {required("slowdown", scalar(VT::Real, 1, 1e6), "A slow worker takes this many times longer."),
         required("mean_slow", scalar_above(VT::Duration, 0, 1e9), "Mean time in the slow state."),
         required("mean_normal", scalar_above(VT::Duration, 0, 1e9), "Mean time in the normal state.")}}});
}

SchemaPtr workers_schema() {
  return map_of(
      {required("count", scalar(VT::Count, 1, kMaxWorkers), "Number of workers (one per host)."),
       optional("throughput", scalar_above(VT::FlopRate, 0, 1e18), "10TFLOPS",
                "Sustained compute of a worker at speed factor 1."),
       section("speed", speed_schema(), "Per-worker speed heterogeneity."),
       section("noise",
               map_of({optional("sigma", scalar(VT::Real, 0, 10), "0",
                                "Per-iteration noise: each iteration's speed is multiplied by exp(N(0, "
                                "sigma^2)). 0: no noise."),
                       omittable("dist", enumeration({"lognormal", "shifted-exponential"}),
                                 "`lognormal` (with `sigma`) or `shifted-exponential` (with `shift` and `mean`): "
                                 "each iteration's compute time is multiplied by shift + Exp(mean), the straggler "
                                 "model of the coded-computation and K-sync literature (with shift 0, a sync round "
                                 "of N workers takes mean x H_N times the FLOP time on average). Absent: lognormal."),
                       omittable("shift", scalar(VT::Real, 0, 1e6),
                                 "shifted-exponential: the deterministic part (absent: 1)."),
                       omittable("mean", scalar(VT::Real, 0, 1e6),
                                 "shifted-exponential: the mean of the exponential part (absent: 0).")}),
               "Iteration-to-iteration variation of each worker's speed."),
       optional("batch", enumeration({"fixed", "adaptive"}), "fixed",
                 "Load balancing (the adaptive workers of PyTorch's parameter-server tutorial). `fixed`: every "
                 "worker's batch is `data.batch_size`. `adaptive`: worker w's batch b_w is proportional to its "
                 "measured throughput (samples per second of its last `adaptive_batch.window` computations, their "
                 "simulated durations, speed changes and codec time included; equal shares until every worker has "
                 "`window` of them), clamped to [min, max] x batch_size and rounded to whole samples by largest "
                 "remainder, so the batches of an allocation sum to workers x batch_size. An allocation is made "
                 "when the first worker starts an iteration and holds for that iteration (with rounds: one per "
                 "round). Compute time follows the batch (FLOPs per sample x b_w). The schemes with rounds average "
                 "a round's (clock's) gradients weighted by b_w / sum b, so the update is the gradient of the union "
                 "batch; the others apply each worker's gradient (the mean over its own batch) as usual. A crashed "
                 "worker keeps its share (its samples are missing from the rounds it misses); a computation cancelled "
                 "or abandoned (`abandon_stale`) is not measured, so a worker that never finishes one keeps every "
                 "batch at equal shares. Not with " +
                     names([](const Scheme& x) { return !x.capabilities.no_adaptive_batches.empty(); }, "or") +
                     ", sparse embedding rows or protocol.overlap. Absent: fixed."),
       omittable("adaptive_batch",
                 map_of({optional("window", scalar(VT::Count, 1, 1000000), "10",
                                  "Finished computations per worker its throughput is measured over."),
                         optional("min", scalar_above(VT::Real, 0, 1), "0.25",
                                  "Smallest batch, as a fraction of `data.batch_size` (at least 1 sample)."),
                         optional("max", scalar(VT::Real, 1, 1000), "4",
                                  "Largest batch, as a fraction of `data.batch_size`.")}),
                 "The window and bounds of `batch: adaptive` (only with it). Absent: window 10, min 0.25, max 4.")});
}

SchemaPtr servers_schema() {
  return map_of(
      {optional("count", scalar(VT::Count, 1, kMaxServers), "1",
                "Number of server hosts (not used with `placement: colocated`)."),
       omittable("shards", scalar(VT::Count, 1, kMaxServers),
                 "Number of parameter shards. Absent: one per server host (one per worker when colocated)."),
       optional("placement", enumeration({"round-robin", "balanced", "colocated"}), "round-robin",
                "Where shards live: `round-robin` (shard k on server k mod count), `balanced` (largest "
                "shards first onto the least-loaded server, by bytes), `colocated` (one server process on "
                "every worker host; shard k on worker k mod workers)."),
       optional("partition", enumeration({"bytes", "layer"}), "bytes",
                "How the flat parameter vector is cut into shards: `bytes` (contiguous ranges of equal "
                "size, +-1 parameter) or `layer` (whole layers dealt round-robin to shards, as "
                "TensorFlow's replica_device_setter does; shows layer-wise imbalance)."),
       omittable("apply_bandwidth", scalar_above(VT::Bandwidth, 0),
                 "Server apply cost: bytes of its slice a shard updates per second (one update at a "
                 "time per shard). Absent: applying is instantaneous."),
       optional("sparse_embeddings", scalar(VT::Bool), "false",
                 "Embedding rows travel sparse: a worker pulls only the rows of the embedding table its next batch "
                 "reads and pushes only their gradients (row ids + values; lstm-lm with model.math true; " +
                     names([](const Scheme& x) { return x.capabilities.sparse_pulls && x.layout == Layout::ServerShards; }) +
                     "). The math is unchanged (a worker computes with the rows it reads); only the bytes, and so "
                     "the timing, change: sync training gives the same parameters as with dense messages. Always "
                     "on with `protocol.mode: " +
                     names([](const Scheme& x) { return x.layout == Layout::Hybrid; }, "or") + "`."),
       omittable("checkpoint",
                 map_of({required("every", scalar(VT::Duration, 1e-3, 1e9),
                                   "Each shard writes a checkpoint of its slice this often."),
                         omittable("bandwidth", scalar_above(VT::Bandwidth, 0),
                                   "Writing takes the slice's bytes / bandwidth of the shard's time (an update due "
                                   "then waits); a restore after a server crash reads it back as long. Absent: "
                                   "instant.")}),
                 "Checkpoints of the parameter shards: a server crash rolls its shards back to their last "
                 "checkpoint (the updates since are lost and counted). Absent: no checkpoints (a crash rolls back "
                 "to the initial parameters).")});
}

SchemaPtr inputs_schema() {
  return map_of({required("key", scalar(VT::String), "The key naming the file: events_file, model.module, "
                                                      "data.module, or data (a data set)."),
                 required("path", scalar(VT::Path), "The file (or fortune directory)."),
                 omittable("sha256", scalar(VT::String), "The SHA-256 of its bytes, in hex."),
                 omittable("files", scalar(VT::Count, 1), "A directory: the files read."),
                 omittable("bytes", scalar(VT::Count, 0), "Its size (a directory: of the files read)."),
                 omittable("modified", scalar(VT::String),
                           "Its modification time (a directory: the latest), ISO 8601 UTC.")});
}

SchemaPtr event_schema() {
  const auto target = [](const char* doc) { return required("target", scalar(VT::Name), doc); };
  const auto recover = [] {
    return omittable("recover_after", scalar_above(VT::Duration, 0, 1e9),
                     "The host comes back this long after the crash. Absent: only a recover event brings it back.");
  };
  return variant(
      "kind", "What happens.", std::nullopt,
      {{"worker_crash",
        "A worker's host fails: its computation and its messages in flight are cancelled (never delivered late). "
        "A scheme without rounds goes on without it; barriers stop counting it after protocol.failure_timeout; "
        "an all-reduce stalls until then and rebuilds its ring without it.",
        {target("`worker-<i>`."), recover()}},
       {"worker_recover",
        "A worker's host comes back: it pulls the current parameters and goes on. All-reduce rebuilds its ring "
        "with it at once (before or after protocol.failure_timeout): it gets a copy of the replica and the round "
        "under way runs again with its gradient.",
        {target("`worker-<i>`.")}},
       {"server_crash",
        "A server host fails: the shards on it lose their state since their last checkpoint "
        "(cluster.servers.checkpoint); on recovery they read it back and training goes on from there. Not "
        "with protocol hybrid (its shards would roll back while the all-reduced part goes on).",
        {target("`server-<j>`."), recover()}},
       {"server_recover", "A server host comes back (its shards read their checkpoints).", {target("`server-<j>`.")}},
       {"link",
        "A link changes: its capacity (both directions) at once for every flow crossing it, its latency for "
        "messages sent from then on.",
        {target("A host (`worker-3`, `server-0`: its NIC link) or a link between two nodes, `a--b` "
                "(`tor-0--core` in a two-tier network)."),
         omittable("bandwidth", scalar(VT::Bandwidth, 0),
                   "New capacity in each direction; `0` is a failure: the flows crossing it stall until it "
                   "comes back."),
         omittable("latency", scalar(VT::Duration, 0, 10), "New one-way latency.")}},
       {"worker_speed",
        "A worker computes at `factor` times its usual speed from now on (the rest of an iteration under way "
        "too).",
        {target("`worker-<i>`."),
         required("factor", scalar_above(VT::Real, 0, 1e6), "Speed factor (0.25: four times slower).")}}},
      {omittable("at", scalar(VT::Duration, 0, 1e9),
                 "Simulated time of the event (recurring, Poisson: the first possible time). Absent: 0 for `rate`, "
                 "`every` for `every`."),
       omittable("every", scalar(VT::Duration, 1e-3, 1e9), "A recurring event: this often (at least 1 ms)."),
       omittable("rate", scalar_above(VT::Real, 0, 1000),
                 "Poisson-random events: this many per second on average (at most 1000), drawn from their own random stream "
                 "(one per entry of the list)."),
       omittable("until", scalar(VT::Duration, 0, 1e9), "Recurring and Poisson events: none after this time.")});
}

SchemaPtr cluster_schema() {
  return map_of({section("workers", workers_schema(), "The workers that compute gradients."),
                 section("servers", servers_schema(), "The parameter servers and the sharding of parameters.")});
}

SchemaPtr nic_schema(const std::string& default_bandwidth) {
  return map_of({optional("bandwidth", scalar_above(VT::Bandwidth, 0), default_bandwidth,
                          "Capacity in each direction (full duplex)."),
                 omittable("up", scalar_above(VT::Bandwidth, 0), "Sending capacity, if not `bandwidth`."),
                 omittable("down", scalar_above(VT::Bandwidth, 0), "Receiving capacity, if not `bandwidth`."),
                 optional("latency", scalar(VT::Duration, 0, 10), "20us",
                          "One-way latency of the host's link to its switch.")});
}

std::vector<Field> host_network_fields() {
  return {section("worker_nic", nic_schema("10Gbps"), "The network interface of every worker host."),
          section("server_nic", nic_schema("25Gbps"), "The network interface of every server host."),
          optional("nic_overrides",
                   list_of(map_of({required("host", scalar(VT::Name), "Host name: `worker-<i>` or `server-<i>`."),
                                   omittable("bandwidth", scalar_above(VT::Bandwidth, 0), "Capacity both ways."),
                                   omittable("up", scalar_above(VT::Bandwidth, 0), "Sending capacity."),
                                   omittable("down", scalar_above(VT::Bandwidth, 0), "Receiving capacity."),
                                   omittable("latency", scalar(VT::Duration, 0, 10), "Link latency.")})),
                   "[]", "Per-host exceptions to the NIC settings (one slow NIC, say).")};
}

SchemaPtr framing_schema() {
  return variant(
      "kind", "How the payload efficiency is given.", std::nullopt,
      {{"ethernet",
        "TCP over Ethernet: each packet of `mtu` bytes carries mtu - header_bytes of payload, and the wire adds "
        "38 bytes per packet (Ethernet header, frame check, preamble, inter-frame gap): 1448 / 1538 = 0.9415 at "
        "MTU 1500, 8948 / 9038 = 0.9900 at 9000.",
        {optional("mtu", scalar(VT::Count, 68, 65536), "1500", "Largest IP packet (bytes)."),
         optional("header_bytes", scalar(VT::Count, 20, 120), "52",
                  "IP and TCP headers in each packet: 52 for IPv4 with TCP timestamps (Linux's default), 40 "
                  "without, 72 for IPv6 with timestamps. Below `mtu`.")}},
       {"factor", "A plain efficiency (payload bytes per wire byte).",
        {required("efficiency", scalar_above(VT::Real, 0, 1), "In (0, 1]; 1 is no framing.")}}});
}

SchemaPtr network_schema() {
  std::vector<Field> two_tier = host_network_fields();
  two_tier.push_back(required("racks", scalar(VT::Count, 1, kMaxServers), "Number of worker racks."));
  two_tier.push_back(optional("oversubscription", scalar(VT::Real, 1, 1e6), "1",
                              "Rack uplink capacity = sum of the rack's host NIC capacities / this ratio."));
  two_tier.push_back(optional("uplink_latency", scalar(VT::Duration, 0, 10), "1us",
                              "Latency of each top-of-rack to core link."));
  two_tier.push_back(optional("server_racks", enumeration({"own-rack", "spread"}), "own-rack",
                              "`own-rack`: servers share a rack of their own (all traffic crosses the core); "
                              "`spread`: server k joins worker rack k mod racks."));
  const auto names = list_of(scalar(VT::Name), 1);
  std::vector<Field> shared = {
      optional("model", enumeration({"maxmin", "tcp"}), "maxmin",
                "How a message is timed. `maxmin`: it waits its route's latency, then moves at its max-min "
                "fair share of every link direction it crosses (SimGrid's CM02 without corrections). `tcp`: "
                "SimGrid's LV08 calibration against measured TCP (Velho et al., TOMACS 2013): latency x 13.01 "
                "(slow start), payload at 0.97 of the share, ACK cross-traffic of 0.05 of a flow's rate on its "
                "reverse path, a window cap gamma / (2 x route latency), and RTT-unfair sharing (weights 1 / "
                "(route latency + weight_s / bandwidth of each link)); the factors are in `network.tcp`."),
      omittable("tcp",
                map_of({optional("latency_factor", scalar(VT::Real, 0, 1e6), "13.01",
                                 "A message waits this times its route's latency before it moves."),
                        optional("bandwidth_factor", scalar_above(VT::Real, 0, 1), "0.97",
                                 "Payload moves at this fraction of the flow's share of the links."),
                        optional("crosstraffic", scalar(VT::Real, 0, 1), "0.05",
                                 "Share of a flow's rate its ACKs take on every link direction of the reverse path "
                                 "(0: none)."),
                        optional("gamma", scalar(VT::Bytes, 0, 1e15), "4MiB",
                                 "Largest TCP window: a flow moves at most gamma / (2 x route latency) (0: no cap)."),
                        optional("weight_s", scalar(VT::Real, 0, 1e12), "20537",
                                 "Bytes: a flow's sharing weight is 1 / (route latency + weight_s / bandwidth of "
                                 "each link on its route) (0: 1 / route latency).")}),
                "The LV08 factors of `network.model: tcp` (each may be set alone; the neutral values 1, 1, 0, 0, "
                "0 switch a correction off). Only with model tcp."),
      omittable("framing", framing_schema(),
                "The wire's payload efficiency, for both models: a message of b bytes puts b / efficiency bytes "
                "on the wire, so one flow alone on a link of capacity B moves its payload at efficiency x B "
                "(under `tcp`, efficiency x bandwidth_factor x B; LV08's 0.97 was fitted with the headers "
                "inside it, so with framing set `network.tcp.bandwidth_factor` to what TCP loses beyond them, 1 "
                "if nothing). links.csv then counts wire bytes. Absent: efficiency 1, as SimGrid's models.")};
  return variant(
      "topology", "The shape of the network.", "star",
      {{"star", "Every host on one non-blocking switch: the NICs are the only constraints.",
        host_network_fields()},
       {"two-tier",
        "Workers in racks under top-of-rack switches joined by a core switch; rack uplinks may be "
        "oversubscribed. Workers fill racks in order (worker i in rack i * racks / count).",
        two_tier},
       {"explicit", "Nodes and links listed one by one. Hosts are the names in `workers` and `servers`.",
        {optional("switches", list_of(scalar(VT::Name)), "[]", "Names of the switches."),
         required("links",
                  list_of(map_of({required("from", scalar(VT::Name), "One end (host or switch)."),
                                  required("to", scalar(VT::Name), "The other end."),
                                  required("bandwidth", scalar_above(VT::Bandwidth, 0),
                                           "Capacity from -> to (and to -> from unless `reverse` is set)."),
                                  omittable("reverse", scalar_above(VT::Bandwidth, 0), "Capacity to -> from."),
                                  optional("latency", scalar(VT::Duration, 0, 10), "0us", "One-way latency.")}),
                          1),
                  "Full-duplex links; routes follow the lowest total latency (then fewest hops)."),
         required("workers", names, "Host of each worker, in worker order (as many as workers.count)."),
         required("servers", names, "Server hosts, in server order (as many as servers.count).")}}},
      shared);
}

SchemaPtr direction_schema(bool push) {
  const auto ratio = [] {
    return optional("ratio", scalar_above(VT::Ratio, 0, 1), "1%",
                    "Share of the slice's elements sent: k = max(1, round(ratio x n)).");
  };
  std::vector<Field> shared = {
      optional("error_feedback", scalar(VT::Bool), "false",
               push ? "Keep what compression dropped in a residual per (worker, shard) and add it to the next "
                      "gradient (Stich et al. 2018; Karimireddy et al. 2019). Needs a contractive kind: not "
                      "randomk, nor qsgd with levels^2 below the slice's length."
                    : "Take each delta against the worker's copy (mirrored by the shard), so what compression "
                      "dropped is sent later; false: against the last version sent, and the worker's copy "
                      "drifts by the accumulated error. Same kinds as for push."),
      optional("cost_per_element", scalar(VT::FineDuration, 0, 1e-3), "0ns",
               push ? "Time to encode or decode one element: a worker's iteration takes (push + pull costs) x "
                      "parameters longer; a shard's update push cost x its parameters per gradient it decodes."
                    : "Time to encode or decode one element: a shard's update takes pull cost x its "
                      "parameters longer per worker it answers; a worker's iteration pull cost x parameters.")};
  if (push)
    shared.push_back(omittable("momentum_correction", scalar(VT::Real, 0, 0.9999),
                               "DGC momentum correction (Lin et al. 2018) with this momentum: each worker keeps "
                               "its own momentum and sends the compressed velocity; topk, dgc and threshold only. "
                               "Replaces error_feedback and needs training.optimizer.momentum 0 (plain SGD at the "
                               "servers)."));
  return variant(
      "kind", push ? "How workers compress the gradient slice they push to each shard."
                   : "How shards compress the parameter updates they send to workers.",
      "none",
      {{"none", "No compression: 4 bytes per parameter.", {}},
       {"fp16", "Half precision: 2 bytes per element (+5 bytes of header).", {}},
       {"topk", "The k largest magnitudes, exactly, with their indices (index list or bitmap, whichever is smaller).",
        {ratio()}},
       {"dgc",
        "Deep Gradient Compression's top-k: the threshold is estimated on a random sample; sends about k "
        "entries (at most 2k).",
        {ratio(), optional("sample", scalar_above(VT::Ratio, 0, 1), "1%",
                           "Share of elements sampled to estimate the threshold (at least 1000).")}},
       {"randomk", "k elements chosen at random, scaled by n/k (unbiased); the indices travel as a seed.",
        {ratio()}},
       {"qsgd", "QSGD stochastic quantization (Alistarh et al. 2017; unbiased): a norm, then per element a sign "
                "and one of `levels` levels.",
        {optional("levels", scalar(VT::Count, 1, static_cast<double>(models::kMaxQsgdLevels)), "7",
                  "Quantization levels s: 1 + ceil(log2(s + 1)) bits per element (7: 4 bits).")}},
       {"sign", "Scaled sign (EF-SignSGD): 1 bit per element and one scale, the mean magnitude. Use with "
                "error_feedback.",
        {}},
       {"threshold", "Every element with magnitude at least `threshold`, exactly (size depends on the values; "
                     "needs model.math true).",
        {required("threshold", scalar(VT::Real, 0, 1e30), "Smallest magnitude sent.")}}},
      shared);
}

SchemaPtr compression_schema() {
  return map_of({section("push", direction_schema(true), "Worker -> server: gradients."),
                 section("pull", direction_schema(false),
                         "Server -> worker: parameters. Version 0 goes whole; every later pull is a compressed "
                         "delta the worker adds to its copy.")});
}

SchemaPtr output_schema() {
  return map_of({optional("utilization_interval", scalar_above(VT::Duration, 0), "10ms",
                          "Bin width of the per-link utilization time series (link_utilization.csv); a long run "
                          "may use a power-of-two multiple of it (see utilization_max_values)."),
                 optional("utilization_max_values", scalar(VT::Count, 16, 1e10), "4194304",
                           "Most utilization values kept (bins x recorded link directions, 4 bytes each). A run "
                           "that would record more merges pairs of adjacent bins into one, doubling the bin width, "
                           "as often as needed, so the series always covers the whole run; link_utilization.csv "
                           "shows the bins used. 4194304 (4M) is about 120 MB of CSV."),
                 optional("trace", scalar(VT::Bool), "false",
                          "Write trace.json (Chrome trace events, for Perfetto): every worker's states, server "
                          "applies, active flows per link. Large for long runs.")});
}

SchemaPtr build() {
  return map_of({
      required("name", scalar(VT::Name), "Name of the experiment; results go to results/<name> by default."),
      omittable("description", scalar(VT::String), "Free text: what the scenario shows."),
      optional("seed", scalar(VT::Count, 0, 4.6e18), "1",
               "Root of every random stream. Same scenario and seed: same output, byte for byte."),
      required("model", model_schema(), "What is trained."),
      section("data", data_schema(), "The data each worker draws batches from."),
      section("training", training_schema(), "Optimization and stopping."),
      section("cluster", cluster_schema(), "Workers and servers."),
      section("network", network_schema(), "Topology, links and NICs."),
      section("protocol", schemes::protocol_schema(),
              "The training scheme: parameter servers (" + on(Layout::ServerShards) + "), all-reduce (" +
                  on(Layout::AllReduced) + "), or both (" + on(Layout::Hybrid) + ")."),
      section("compression", compression_schema(),
              "Message compression per direction. Message sizes are those of the real encodings "
              "(values, indices, scales, headers); with model.math the receiver decodes the real bytes."),
      section("output", output_schema(), "What is recorded besides the standard outputs."),
      omittable("events", list_of(event_schema(), 1, 100'000),
                "A timeline of what happens to the cluster: crashes and recoveries of workers and servers, links "
                "that change or fail, workers that slow down. Each entry has a time (`at`, or `every` for a "
                "recurring event, or `rate` for Poisson-random ones), a `kind` and a `target`. What happened is "
                "written to events.csv. Not with protocol.overlap (per-layer steps are not re-timed); with "
                "partition_bytes, schedule: priority or network.model: tcp only worker_speed events (crashes and "
                "link changes handle whole messages under max-min sharing)."),
      omittable("events_file", scalar(VT::Path),
                "The same events from a CSV trace (e.g. taken from a real cluster), a file path as every path "
                "here (relative to the scenario file): a header `time,kind,target,value` (an optional `latency` column after `value` is "
                "read too), then one event per line, times in non-decreasing order. time: seconds or a "
                "duration (`12.5s`); value: worker_crash and server_crash: recover_after (seconds or a duration, "
                "above 0; empty: none); link: the bandwidth (`500Mbps`, `0`); worker_speed: the factor; "
                "recoveries: empty. Targets are named as pssim names them (`worker-1`, not `worker-01`). A UTF-8 "
                "byte order mark before the header is allowed; control characters (a NUL) are not. A line is "
                "held in 40 bytes, and a run adds about 50 more per line (bench/trace_memory.sh): millions of "
                "lines fit."),
      omittable("inputs", list_of(inputs_schema()),
                "Written by pssim into the resolved scenario (scenario.yaml), not by you: the files the scenario "
                "reads and what identifies their content when the run started, so a result names its trace, "
                "module source and data, and a sweep point whose files changed runs again (its identity is its "
                "resolved scenario). `events_file`, `model.module` and `data.module`: the SHA-256 of the file "
                "(what `sha256sum` prints). Data sets (`data`: the IDX files, a text corpus): their size in "
                "bytes and their modification time (UTC), as hashing tens of megabytes on every run and sweep "
                "point would cost about 0.2 s each; a fortune directory is one entry with the number of `files` "
                "read, their total `bytes` and the latest modification. A file that does not exist is not "
                "listed. Whatever a scenario file gives here is replaced by the fingerprints taken when it is "
                "loaded."),
  });
}

}  // namespace

const Schema& scenario_schema() {
  static const SchemaPtr schema = build();
  return *schema;
}

std::string scenario_reference_markdown() {
  return schema_markdown(
      scenario_schema(), "Scenario file reference",
      "A scenario is one YAML file describing one experiment. This page lists every key, generated\n"
      "from the schema the validator uses (`pssim schema` prints it). Quantities take units as\n"
      "people write them: durations `50us`, `2ms`, `120s`; bandwidths `10Gbps` (bits) or\n"
      "`1.25GB/s` (bytes); sizes `4.8MB`, `512KiB`; counts `16`, `25M`; operations `4GFLOP`;\n"
      "throughputs `2TFLOPS`. A value with a dimension must have a unit.\n\n"
      "Keys marked *required* have no default. Every other key may be left out; its default is\n"
      "shown. The resolved scenario written next to the results (`scenario.yaml`) states every\n"
      "key with the value the run used. `--set path.to.key=value` overrides any key from the\n"
      "command line; `--seed N` overrides `seed`.\n\n"
      "File paths (`events_file`, `data.path`, `data.corpus`, the file of a `module`) are relative to\n"
      "the file that names them: a scenario, or a sweep for the values it sets, so a scenario and\n"
      "the files beside it run from any directory. A relative path not found there but found from\n"
      "the working directory is read from there (the form `scenarios/torch/small_cnn.py`, from the\n"
      "repository root, keeps working); one given by `--set` or from Python is relative to the\n"
      "working directory. The resolved scenario records each as an absolute path, so a results\n"
      "directory's `scenario.yaml` re-runs from anywhere on the same machine.");
}

}  // namespace pssim::scenario
