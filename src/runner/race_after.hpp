#pragma once
// `colltune run --race-after FILE`: a second launch that races again only what an earlier
// launch's race left open. One launch can measure two settings alike where every other launch
// tells them apart (np 4, 512 B, ranks bound: one of 8 launches put allreduce algorithm 2 at
// 0.97x of 1, the other seven at 1.34-1.41x), and no rule inside that launch can see it; a second
// launch can, and costs only the sizes the first left tied or undecided. Pure parsing: every rank
// gets the same answer from the same text.

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core/collective.hpp"
#include "knobs/interleave.hpp"

namespace colltune {

// What an earlier launch left open, per measured row, in this run's setting order.
struct RaceAfter {
  // (collective, dtype, op, in-place, root, bytes) as the records name them.
  using Row = std::tuple<std::string, std::string, std::string, bool, int, std::uint64_t>;
  // A row's settings to race again (tied or undecided there); all false: decided there (a
  // winner), not measured again. A row the file does not hold is raced in full.
  std::map<Row, std::vector<bool>> open;

  // The settings (by index into the run's --interleave settings, `settings` of them) to measure
  // for `c` on `nranks` ranks: every one where the file has no such row.
  std::vector<bool> settings_for(const Collective& c, int nranks, std::size_t settings) const;
  // Whether the file measured `c` on `nranks` ranks and raced it.
  bool holds(const Collective& c, int nranks) const;
};

// Reads `text`, the JSONL records of the earlier launch (`path` names it in errors), against
// this run's `settings` and `nranks`. Throws ConfigError with one line naming the file, the line
// and what is allowed: a record of a setting this run does not measure, a setting of this run
// with no record there, another rank count, or a file with no raced record at all.
RaceAfter parse_race_after(const std::string& text, const std::string& path,
                           const std::vector<InProcessSettings>& settings, int nranks);

}  // namespace colltune
