#pragma once
// Where one launch's wall time went (`colltune run --phase-times`): seconds per phase on this
// rank's steady clock, so that what is not sampling can be seen and cut.

#include <array>
#include <chrono>
#include <cstddef>
#include <string>

namespace colltune {

enum class Phase {
  kStartup,        // process start to a ready world (MPI_Init, options, plan)
  kContext,        // roll call, reporters, the run's context gathered
  kCommunicators,  // one per --interleave setting (MPI_T writes and MPI_Comm_dup; NCCL init)
  kWarmup,         // buffers, the skip agreement and the first ops
  kCalibration,    // growing batches until one lasts --min-sample-seconds
  kSampling,       // the timed samples, barriers included
  kDecisions,      // racing: each turn's reduction over ranks and its decision
  kSummaries,      // samples reduced over ranks, statistics
  kValidation,     // the checked ops (-c)
  kRecords,        // the reporters: console lines, JSONL
  kTeardown,       // destroying the communicators
};
inline constexpr std::size_t kPhaseCount = 11;

struct PhaseSeconds {
  std::array<double, kPhaseCount> seconds{};
  void add(Phase phase, double s) { seconds[static_cast<std::size_t>(phase)] += s; }
  double of(Phase phase) const { return seconds[static_cast<std::size_t>(phase)]; }
};

// Adds the time from construction to destruction to `phases` (nothing when it is null).
class PhaseScope {
 public:
  PhaseScope(PhaseSeconds* phases, Phase phase)
      : phases_(phases), phase_(phase), start_(std::chrono::steady_clock::now()) {}
  ~PhaseScope() {
    if (phases_ != nullptr) {
      phases_->add(
          phase_, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
    }
  }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  PhaseSeconds* phases_;
  Phase phase_;
  std::chrono::steady_clock::time_point start_;
};

// Phases one after another: each mark() adds the time since the previous mark (or restart) to
// a phase; nothing when the sink is null.
class PhaseLaps {
 public:
  explicit PhaseLaps(PhaseSeconds* phases,
                     std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now())
      : phases_(phases), last_(since) {}
  void restart() { last_ = std::chrono::steady_clock::now(); }
  void mark(Phase phase) {
    const auto now = std::chrono::steady_clock::now();
    if (phases_ != nullptr) phases_->add(phase, std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }

 private:
  PhaseSeconds* phases_;
  std::chrono::steady_clock::time_point last_;
};

// One line: each phase's seconds and share of `wall_seconds`, then what no phase accounts for.
std::string describe_phases(const PhaseSeconds& phases, double wall_seconds);

}  // namespace colltune
