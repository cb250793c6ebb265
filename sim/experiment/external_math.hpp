// ExternalMath: training math that lives outside models/, handed to an Experiment by
// its caller (model.kind torch and data.kind torch: a PyTorch module and datasets,
// provided by the Python package, sim/python/). The experiment library knows nothing of
// Python: it asks this interface for the network and the data and then treats them as
// its own (partitions, batches, gradients, evaluation, compression all stay the same).
// The command-line tool has none, and says so for a torch scenario.
#pragma once

#include <memory>

#include "models/data/training_data.hpp"
#include "models/nets/network.hpp"
#include "sim/scenario/scenario.hpp"

namespace pssim::experiment {

class ExternalMath {
 public:
  virtual ~ExternalMath() = default;

  /// The data of a scenario with data.kind torch. Throws models::DataError or
  /// std::invalid_argument, with a message naming the datasets, for unusable data.
  virtual models::TrainingData load_data(const scenario::Scenario& s) const = 0;

  /// The network of a scenario with model.kind torch, for `data`. Its layout is the
  /// module's parameters in state_dict order; init_params(derive_seed(seed, "init")) gives
  /// the module's initial parameters; flops_per_sample() counts from the layer shapes.
  /// Safe to call from the experiment's job-pool threads (each with its own Workspace).
  virtual std::unique_ptr<models::Network> build_network(const scenario::Scenario& s,
                                                         const models::TrainingData& data) const = 0;
};

/// Whether `s` needs an ExternalMath: model.kind torch or data.kind torch.
inline bool uses_external_math(const scenario::Scenario& s) { return s.model.torch || s.data.spec.kind == "torch"; }

}  // namespace pssim::experiment
