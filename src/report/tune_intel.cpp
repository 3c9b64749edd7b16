#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "knobs/knob_scope.hpp"
#include "report/tune_parts.hpp"

namespace colltune::tune_parts {
namespace {

bool is_preset_id(const std::string& value) {
  return !value.empty() &&
         std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace

std::optional<IntelRangedLine> intel_ranged_line(const Dataset& d, const std::string& knob,
                                                 const std::string& overall,
                                                 std::uint64_t min_bytes, std::uint64_t max_bytes) {
  if (!knob.starts_with("I_MPI_ADJUST_") || !is_preset_id(overall)) return std::nullopt;
  const auto collective = mpi_algorithm_knob_collective(knob);
  // For these three Intel's size and colltune's bytes are one count x type size, and a counting
  // reduction shows the line applied (report.impi_ranged). For the per-peer collectives the
  // reference does not say which size it compares: one preset, no range on a guess.
  if (!collective ||
      (*collective != "allreduce" && *collective != "broadcast" && *collective != "reduce")) {
    return std::nullopt;
  }
  // The first out-of-place panel that sets the knob decides, as for Open MPI's rules file.
  for (const Panel& panel : build_panels(d)) {
    if (panel.key.in_place || panel.key.collective != *collective) continue;
    const auto candidates = forcing_candidates(d, panel, knob);
    if (!candidates) continue;
    std::vector<std::pair<std::uint64_t, std::string>> choices;
    std::vector<std::string> won;
    for (const SizeVerdict& v : winners(*candidates, d)) {
      if (v.bytes < min_bytes || v.bytes > max_bytes) continue;
      const auto value = setting(d, v.fastest, knob);
      // Only a preset that beat Intel's own choice significantly replaces the overall one; Intel
      // has no entry meaning "your own choice" (0 is preset 1's pattern), so every size gets one.
      if (v.significant && !v.baseline_fastest && value && is_preset_id(*value) &&
          *value != overall) {
        choices.emplace_back(v.bytes, *value);
        won.push_back(fmt::format("{} at {} B", *value, v.bytes));
      } else {
        choices.emplace_back(v.bytes, overall);
      }
    }
    if (won.empty()) return std::nullopt;
    const std::vector<Range> spans = ranges(choices);
    // Contiguous from 0, ascending, the last entry open: Intel MPI 2021.13 ignores lower bounds,
    // takes the first entry whose upper bound reaches the size and the last one past them all,
    // so this reads the same there as under the reference's own reading.
    std::string value;
    for (std::size_t i = 0; i + 1 < spans.size(); ++i) {
      value += fmt::format("{}:{}-{};", spans[i].choice, i == 0 ? 0 : spans[i].min_bytes,
                           spans[i].max_bytes);
    }
    value += spans.back().choice;
    std::string joined;
    for (const auto& w : won) joined += (joined.empty() ? "" : ", ") + w;
    return IntelRangedLine{
        value, fmt::format("# {}: per size from {}: won significantly {}; {} elsewhere\n", knob,
                           panel.key.title(), joined, overall)};
  }
  return std::nullopt;
}

}  // namespace colltune::tune_parts
