// PythonMath: the ExternalMath of the Python package. It asks a provider object
// (pssim/_torch.py, Provider) for the datasets of data.kind torch and for the bridge of
// model.kind torch, and wraps the bridge as a TorchNetwork:
//
//   provider.load_data(module: str, seed: int)
//       -> (train_x f32 [N, ...], train_y int [N], test_x f32 [M, ...], test_y int [M])
//   provider.build(module: str, init_seed: int, task: str, item_shape: tuple,
//                  outputs: int, seq_len: int) -> TorchModule
//
// (module: "file.py:function", or "" for the objects given to pssim.run). Calls take the
// GIL: the experiment is built with it released.
#pragma once

#include <memory>

#include <pybind11/pybind11.h>

#include "sim/experiment/external_math.hpp"
#include "sim/python/torch_network.hpp"

namespace pssim::python {

class PythonMath : public experiment::ExternalMath {
 public:
  PythonMath(pybind11::object provider, std::shared_ptr<PythonErrors> errors);
  ~PythonMath() override;

  models::TrainingData load_data(const scenario::Scenario& s) const override;
  std::unique_ptr<models::Network> build_network(const scenario::Scenario& s,
                                                 const models::TrainingData& data) const override;

 private:
  pybind11::object provider_;
  std::shared_ptr<PythonErrors> errors_;
};

}  // namespace pssim::python
