// A one-line progress bar on the terminal (stderr), redrawn at most 5 times a second.
// Silent when stderr is not a terminal or when disabled (--quiet).
#pragma once

#include <chrono>
#include <string>

namespace pssim::cli {

class ProgressBar {
 public:
  explicit ProgressBar(bool enabled);
  ~ProgressBar();
  /// `fraction` in [0, 1]; `detail` is shown after the bar (rates, counts).
  void update(double fraction, const std::string& detail);
  /// Erases the bar.
  void finish();
  /// Wall seconds since construction.
  double elapsed() const;

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace pssim::cli
