// The scalar that one compilation of the models' templates instantiates them for: float in
// the pssim_models library (what the simulator computes with), double in pssim_models_f64
// (the tests' finite-difference gradient checks). The two libraries compile the same
// sources once each (models/CMakeLists.txt), so building the pssim command compiles no
// double-precision code, and a file's two instantiations compile in parallel.
#pragma once

#ifndef PSSIM_MODELS_REAL
#error "models/ compiles its templates with -DPSSIM_MODELS_REAL=float or double (models/CMakeLists.txt)"
#endif

namespace pssim::models {

using InstantiatedReal = PSSIM_MODELS_REAL;

}  // namespace pssim::models
