#pragma once
// Racing across a sweep's launches (spec `race: true`), for knobs that need one launch per value
// (NCCL_P2P_LEVEL, placement-independent MCA parameters): `repetitions` becomes a maximum, and
// a point stops being launched once its group's best beats it clearly at every size it measures.
// Rounds are the blocks: every point runs once per round, so a round's drift hits all alike.

#include <cstdio>
#include <string>
#include <vector>

#include "store/manifest.hpp"
#include "sweep/expand.hpp"

namespace colltune {

// The fewest rounds a decision rests on.
inline constexpr int kSweepRaceMinRounds = 3;

struct RaceStop {
  std::string point_id;
  std::string why;  // for the manifest's warnings and the report
};

// After `round`, from the records of the done launches in `store`: the points (never a
// baseline) to launch no more. Points are compared within their group (every setting but the
// environment knobs alike). At each (collective, dtype, op, in-place, ranks, size) a point is
// beaten when the 99% Student t interval of its per-round log time ratio to the best (the
// lowest mean log launch median) lies above log(1 + tie); it stops when beaten at every one it
// measured, over at least kSweepRaceMinRounds shared rounds. Driver only.
std::vector<RaceStop> race_after_round(const std::vector<Point>& points, const Manifest& manifest,
                                       const std::string& store, int round, double tie);

// Applies race_after_round: every launch of a stopped point after `round` that is not done gets
// status "decided" and the reason among its warnings; prints one line per point to `out`.
// Returns how many launches it marked. Driver only.
std::size_t mark_race_stops(Manifest& manifest, const std::vector<Point>& points,
                            const std::string& store, int round, double tie, std::FILE* out);

}  // namespace colltune
