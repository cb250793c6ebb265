#include "sim/cli/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace pssim::cli {

ProgressBar::ProgressBar(bool enabled)
    : enabled_(enabled && ::isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_ - std::chrono::seconds(1)) {}

ProgressBar::~ProgressBar() { finish(); }

double ProgressBar::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressBar::update(double fraction, const std::string& detail) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  fraction = std::clamp(fraction, 0.0, 1.0);
  constexpr int kWidth = 28;
  const int filled = static_cast<int>(std::lround(fraction * kWidth));
  std::string eta = "--:--";
  const double spent = elapsed();
  if (fraction > 0.001) {
    const auto left = static_cast<long>(spent * (1 - fraction) / fraction);
    eta = fmt::format("{}:{:02}", left / 60, left % 60);
  }
  fmt::print(stderr, "\r[{}{}] {:5.1f}%  {}  ETA {}\x1b[K", std::string(static_cast<std::size_t>(filled), '='),
             std::string(static_cast<std::size_t>(kWidth - filled), ' '), 100 * fraction, detail, eta);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (drawn_) fmt::print(stderr, "\r\x1b[K");
  drawn_ = false;
}

}  // namespace pssim::cli
