#include "models/optim/clip_norm.hpp"

#include <cmath>

namespace pssim::models {

double clip_global_norm(std::span<float> grad, double max_norm) {
  double sum = 0;
  for (const float g : grad) sum += static_cast<double>(g) * static_cast<double>(g);
  const double norm = std::sqrt(sum);
  const double coefficient = max_norm / (norm + 1e-6);
  if (coefficient < 1.0) {
    const auto c = static_cast<float>(coefficient);
    for (float& g : grad) g *= c;
  }
  return norm;
}

}  // namespace pssim::models
