#include "models/layers/layer.hpp"

#include <fmt/format.h>

namespace pssim::models {

std::string to_string(const Shape3& s) { return fmt::format("[{},{},{}]", s.c, s.h, s.w); }

}  // namespace pssim::models
