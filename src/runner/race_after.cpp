#include "runner/race_after.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "core/race.hpp"
#include "store/json_text.hpp"
#include "store/record.hpp"

namespace colltune {
namespace {

RaceAfter::Row row_of(const Collective& c, int nranks) {
  return {std::string(name(c.kind)),
          std::string(name(c.dtype)),
          std::string(name(c.op)),
          c.in_place,
          c.root,
          static_cast<std::uint64_t>(op_bytes(c, nranks))};
}

}  // namespace

std::vector<bool> RaceAfter::settings_for(const Collective& c, int nranks,
                                          std::size_t settings) const {
  const auto it = open.find(row_of(c, nranks));
  return it != open.end() ? it->second : std::vector<bool>(settings, true);
}

bool RaceAfter::holds(const Collective& c, int nranks) const {
  return open.count(row_of(c, nranks)) > 0;
}

RaceAfter parse_race_after(const std::string& text, const std::string& path,
                           const std::vector<InProcessSettings>& settings, int nranks) {
  std::vector<std::string> names;
  for (const auto& s : settings) names.push_back(setting_name(s));
  // Per row: each setting's outcome there (kNotRaced where the file has no record of it).
  std::map<RaceAfter::Row, std::vector<RaceOutcome>> outcomes;
  std::istringstream lines(text);
  std::string line;
  bool raced = false;
  std::vector<bool> seen_setting(names.size(), false);
  for (int number = 1; std::getline(lines, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = fmt::format("--race-after: {} line {}", path, number);
    const auto j = parse_json_input(line, where);
    if (j.is_discarded()) {
      throw ConfigError(
          fmt::format("{}: not JSON; allowed: the --json records of a colltune "
                      "run --interleave launch",
                      where));
    }
    const Record r = record_from_json(j, where);
    const std::string setting = setting_name(r.in_process_knobs);
    const auto at = std::find(names.begin(), names.end(), setting);
    if (at == names.end()) {
      throw ConfigError(fmt::format(
          "{}: setting '{}' is not among this run's --interleave settings; allowed: the records "
          "of a launch that interleaved the same settings",
          where, setting.empty() ? "(none)" : setting));
    }
    if (r.nranks != nranks) {
      throw ConfigError(
          fmt::format("{}: nranks {} but this run has {}; allowed: a launch of the same rank count",
                      where, r.nranks, nranks));
    }
    raced = raced || r.race != RaceOutcome::kNotRaced;
    auto& row = outcomes[{r.collective, r.dtype, r.op, r.in_place, r.root, r.bytes}];
    row.resize(settings.size(), RaceOutcome::kNotRaced);
    row[static_cast<std::size_t>(at - names.begin())] = r.race;
    seen_setting[static_cast<std::size_t>(at - names.begin())] = true;
  }
  // Every setting of this run in the file: a run with one more would never measure it (it
  // counts as not raced in every row), and a --race-after launch's own file leaves out what
  // the first eliminated, so a third launch after it would race decided rows again.
  for (std::size_t s = 0; s < names.size(); ++s) {
    if (!seen_setting[s]) {
      throw ConfigError(fmt::format(
          "--race-after: {}: setting '{}' of this run has no record there; allowed: the records "
          "of a first launch with the same settings (not a --race-after launch's own)",
          path, names[s]));
    }
  }
  if (!raced) {
    throw ConfigError(fmt::format(
        "--race-after: {}: no record was raced; allowed: the --json records of a racing launch "
        "(two or more --interleave settings, --race on)",
        path));
  }
  RaceAfter out;
  for (const auto& [row, by_setting] : outcomes) {
    // Not raced there (one setting measured, or a fixed budget): nothing is known, race it all.
    if (std::count(by_setting.begin(), by_setting.end(), RaceOutcome::kNotRaced) ==
        static_cast<std::ptrdiff_t>(by_setting.size())) {
      continue;
    }
    std::vector<bool> open(settings.size(), false);
    const bool won = std::count(by_setting.begin(), by_setting.end(), RaceOutcome::kWon) > 0;
    for (std::size_t s = 0; s < by_setting.size(); ++s) {
      // Tied sets too: a launch that measures two settings alike reads as a tie as often as
      // undecided, and a tie that holds the wrong one costs up to the tolerance.
      open[s] =
          !won && (by_setting[s] == RaceOutcome::kTied || by_setting[s] == RaceOutcome::kUndecided);
    }
    // One setting left open is a winner in all but name; none: nothing was raced there.
    if (std::count(open.begin(), open.end(), true) < 2) std::fill(open.begin(), open.end(), false);
    out.open[row] = open;
  }
  return out;
}

}  // namespace colltune
