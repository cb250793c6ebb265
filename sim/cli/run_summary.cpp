#include "sim/cli/run_summary.hpp"

#include <fmt/format.h>

namespace pssim::cli {
namespace {

std::string figure(const experiment::JobResult& r, const std::string& name) {
  for (const auto& f : r.figures)
    if (f.name == name) return f.value;
  return "";
}

std::string how_it_stopped(const scenario::Scenario& s, const experiment::JobResult& r) {
  const auto& t = r.stats.training;
  switch (r.stats.stopped_by) {
    case experiment::StopReason::Diverged:
      return fmt::format("DIVERGED at update {} (training loss NaN or infinite)", t.diverged_at_update.value_or(0));
    case experiment::StopReason::Collapsed:
      return fmt::format("COLLAPSED at update {} ({})", t.diverged_at_update.value_or(0), t.collapse.value_or(""));
    case experiment::StopReason::Target:
      return fmt::format("stopped at the target accuracy {:g} %", 100 * s.training.target_accuracy.value_or(0));
    case experiment::StopReason::Updates: return "stopped at the update limit";
    case experiment::StopReason::Epochs: return "stopped at the epoch limit";
    case experiment::StopReason::SimTime: return "stopped at the time limit";
    case experiment::StopReason::NoLiveWorkers: return "STOPPED: every worker is down and none can come back";
    case experiment::StopReason::NoProgress:
      return "STOPPED: a failed link or server never came back (no_progress in events.csv)";
  }
  return "stopped";
}

}  // namespace

std::string run_summary_line(const scenario::Scenario& s, const experiment::JobResult& r,
                             const std::filesystem::path& dir) {
  const auto& t = r.stats.training;
  std::string line = fmt::format("{}: {}, {:.6g} s simulated ({:.3g} s wall), {} updates", s.name, how_it_stopped(s, r),
                                 to_seconds(r.stats.sim_time), r.stats.wall_seconds, figure(r, "updates"));
  if (t.evaluations > 0) {
    const bool diverged = r.stats.stopped_by == experiment::StopReason::Diverged;
    const char* when = diverged ? "last evaluated" : "final";  // a diverged run is not evaluated again
    if (t.final_eval.language_model)
      line += fmt::format("; {} held-out perplexity {:.4g}", when, t.final_eval.perplexity);
    else
      line += fmt::format("; {} test accuracy {:.2f} % (best {:.2f} %)", when, 100 * t.final_eval.test_accuracy,
                          100 * t.best_accuracy);
    if (const auto& target = s.training.target_accuracy) {
      if (t.time_to_target)
        line += fmt::format(", target {:g} % reached at {:.4g} s", 100 * *target, to_seconds(*t.time_to_target));
      else
        line += fmt::format(", target {:g} % not reached", 100 * *target);
    }
  }
  return line + fmt::format("; results in {}", dir.string());
}

std::string divergence_warning(const scenario::Scenario& s, const experiment::JobResult& r) {
  const auto& t = r.stats.training;
  const bool diverged = r.stats.stopped_by == experiment::StopReason::Diverged;
  if (!diverged && r.stats.stopped_by != experiment::StopReason::Collapsed) return "";
  return fmt::format("pssim: warning: {}: training {} at update {} ({}) and the run stopped at {:.6g} s; try a lower "
                     "training.optimizer.lr (now {:g}), training.clip_norm, or a staleness-aware rate "
                     "(training.staleness_lr)",
                     s.name, diverged ? "diverged" : "collapsed", t.diverged_at_update.value_or(0),
                     diverged ? "training loss NaN or infinite" : t.collapse.value_or(""),
                     to_seconds(r.stats.sim_time), s.training.optimizer.lr);
}

}  // namespace pssim::cli
