#include "core/phase_times.hpp"

#include <fmt/format.h>

namespace colltune {

std::string describe_phases(const PhaseSeconds& phases, double wall_seconds) {
  static constexpr std::array<const char*, kPhaseCount> kNames = {
      "startup",   "context",   "communicators", "warm-up", "calibration", "sampling",
      "decisions", "summaries", "validation",    "records", "teardown"};
  std::string text = fmt::format("phase times (rank 0): wall {:.3f} s", wall_seconds);
  double accounted = 0;
  const double share = wall_seconds > 0 ? 100 / wall_seconds : 0;
  for (std::size_t p = 0; p < kPhaseCount; ++p) {
    accounted += phases.seconds[p];
    text += fmt::format(", {} {:.3f} s ({:.0f}%)", kNames[p], phases.seconds[p],
                        phases.seconds[p] * share);
  }
  const double other = wall_seconds - accounted;
  text += fmt::format(", other {:.3f} s ({:.0f}%)", other, other * share);
  return text;
}

}  // namespace colltune
