#include "report/tune.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "core/environment.hpp"
#include "core/errors.hpp"
#include "knobs/interleave.hpp"
#include "knobs/knob_scope.hpp"
#include "knobs/knobs.hpp"
#include "report/analysis.hpp"
#include "report/escape.hpp"
#include "report/tune_parts.hpp"
#include "store/json_text.hpp"

namespace colltune {
namespace tune_parts {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

std::optional<std::string> setting(const Dataset& d, const std::string& point,
                                   const std::string& key) {
  const PointInfo* p = find_point(d, point);
  if (p == nullptr || !p->settings.count(key)) return std::nullopt;
  return p->settings.at(key);
}

std::optional<Panel> forcing_candidates(const Dataset& d, const Panel& panel,
                                        const std::string& knob) {
  Panel candidates = panel;
  candidates.point_ids.clear();
  bool swept = false;
  for (const auto& p : panel.point_ids) {
    const PointInfo* info = find_point(d, p);
    if (info && info->settings.count(knob)) swept = true;
    if (info && (info->baseline || info->settings.count(knob))) candidates.point_ids.push_back(p);
  }
  if (!swept) return std::nullopt;
  return candidates;
}

int hosts_of(const Dataset& d, const std::string& point) {
  const auto it = d.contexts.find(point);
  if (it == d.contexts.end() || !it->second.contains("hosts")) return -1;
  return static_cast<int>(it->second["hosts"].size());
}

std::vector<Range> ranges(const std::vector<std::pair<std::uint64_t, std::string>>& choices) {
  std::vector<Range> out;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    const std::uint64_t hi = i + 1 < choices.size() ? choices[i + 1].first - 1 : choices[i].first;
    if (!out.empty() && out.back().choice == choices[i].second) {
      out.back().max_bytes = hi;
    } else {
      out.push_back({choices[i].first, hi, choices[i].second});
    }
  }
  return out;
}

const std::map<std::string, std::string>& nccl_tuner_collectives() {
  static const std::map<std::string, std::string> kNames{{"allreduce", "allreduce"},
                                                         {"broadcast", "broadcast"},
                                                         {"reduce", "reduce"},
                                                         {"allgather", "allgather"},
                                                         {"reduce_scatter", "reducescatter"}};
  return kNames;
}

// NCCL's example plugin has no "keep NCCL's choice" for algorithm or protocol: a name it does not
// know falls back to ring / simple. So an unset or list value gives "" (emit nothing).
std::string tuner_algorithm(const std::optional<std::string>& v) {
  if (!v) return "";
  static const std::map<std::string, std::string> kAlgos{{"tree", "tree"},
                                                         {"ring", "ring"},
                                                         {"collnetdirect", "collnet_direct"},
                                                         {"collnetchain", "collnet_chain"},
                                                         {"nvls", "nvls"},
                                                         {"nvlstree", "nvls_tree"},
                                                         {"pat", "pat"}};
  const auto it = kAlgos.find(lower(*v));
  return it == kAlgos.end() ? "" : it->second;  // lists, exclusions: not one algorithm
}

std::string tuner_protocol(const std::optional<std::string>& v) {
  if (!v) return "";
  const std::string p = lower(*v);
  return p == "ll" || p == "ll128" || p == "simple" ? p : "";
}

std::string tuner_channels(const Dataset& d, const std::string& point) {
  for (const char* key :
       {"NCCL_MAX_CTAS", "NCCL_MIN_CTAS", "NCCL_MAX_NCHANNELS", "NCCL_MIN_NCHANNELS"}) {
    if (auto v = setting(d, point, key)) return *v;
  }
  return "-1";
}

}  // namespace tune_parts

namespace {

using namespace tune_parts;

std::string shell_single_quote(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

}  // namespace

std::string emit_nccl_tuner(const Dataset& d) {
  std::string out = fmt::format(
      "# NCCL example tuner plugin config from colltune ({}).\n"
      "# "
      "collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,"
      "regBuff\n"
      "# Ranges cover measured sizes only; sizes without a significant winner keep NCCL's choice.\n"
      "# A row names an algorithm and a protocol measured together, on that node and rank count.\n",
      d.source);
  int rows = 0;
  std::set<std::string> unmeasured;       // winners that left the algorithm or protocol to NCCL
  std::set<std::string> channel_limited;  // winners that set NCCL_MIN/MAX_CTAS or _NCHANNELS
  for (const Panel& panel : build_panels(d)) {
    const auto coll = nccl_tuner_collectives().find(panel.key.collective);
    if (coll == nccl_tuner_collectives().end() || panel.key.in_place) continue;
    std::vector<std::pair<std::uint64_t, std::string>> choices;
    int nodes = -1;
    for (const SizeVerdict& v : winners(panel, d)) {
      if (setting(d, v.fastest, "backend").value_or("") != "nccl" || !v.significant ||
          v.baseline_fastest) {
        choices.emplace_back(v.bytes, "");
        continue;
      }
      const std::string algo = tuner_algorithm(setting(d, v.fastest, "NCCL_ALGO"));
      const std::string proto = tuner_protocol(setting(d, v.fastest, "NCCL_PROTO"));
      nodes = hosts_of(d, v.fastest);
      if (algo.empty() || proto.empty() || nodes < 1) {
        const PointInfo* p = find_point(d, v.fastest);
        unmeasured.insert(p ? p->label : v.fastest);
        choices.emplace_back(v.bytes, "");
        continue;
      }
      if (tuner_channels(d, v.fastest) != "-1") {
        // A communicator-wide channel limit, which a row would apply per call (as the plugin).
        const PointInfo* p = find_point(d, v.fastest);
        channel_limited.insert(p ? p->label : v.fastest);
        choices.emplace_back(v.bytes, "");
        continue;
      }
      choices.emplace_back(v.bytes, fmt::format("{},{},-1", algo, proto));
    }
    for (const Range& r : ranges(choices)) {
      if (r.choice.empty()) continue;
      out += fmt::format("{},{},{},{},{},{},-1,-1\n", coll->second, r.min_bytes, r.max_bytes,
                         r.choice, nodes, panel.key.nranks);
      ++rows;
    }
  }
  for (const auto& label : unmeasured) {
    out += fmt::format(
        "# not written: {} won, but it did not set one NCCL_ALGO and one NCCL_PROTO (or its node "
        "count is unknown); a row would force what was not measured\n",
        label);
  }
  for (const auto& label : channel_limited) {
    out += fmt::format(
        "# not written: {} won with a channel limit for the whole communicator, which a row "
        "would apply to every call of its range (--emit env carries it)\n",
        label);
  }
  if (rows == 0)
    out += "# no NCCL point beat NCCL's own choice significantly: nothing to override\n";
  return out;
}

std::string emit_ompi_rules(const Dataset& d) {
  // collective id -> comm size -> rules (message bytes, algorithm)
  std::map<int, std::map<int, std::vector<std::pair<std::uint64_t, int>>>> table;
  std::set<std::string> used_panels;
  for (const Panel& panel : build_panels(d)) {
    if (panel.key.in_place) continue;
    for (const TunedCollective& tuned : tuned_collectives()) {
      if (tuned.rules_id < 0 || panel.key.collective != tuned.collective) continue;
      const int id = tuned.rules_id;
      const std::string knob = *tuned_algorithm_knob(tuned.collective);
      // The baselines are 0, Open MPI's own decision.
      const auto candidates = forcing_candidates(d, panel, knob);
      if (!candidates) continue;
      const auto done = table.find(id);
      if (done != table.end() && done->second.count(panel.key.nranks))
        continue;  // first panel decides
      std::vector<std::pair<std::uint64_t, int>> rules;
      for (const SizeVerdict& v : winners(*candidates, d)) {
        // Only a measured algorithm that beat Open MPI's own choice significantly; else 0.
        const int algorithm = v.significant && !v.baseline_fastest
                                  ? std::stoi(setting(d, v.fastest, knob).value_or("0"))
                                  : 0;
        // The rule at or below a message size applies, so a rule is needed only where it changes.
        if (rules.empty() || rules.back().second != algorithm) {
          rules.emplace_back(rules.empty() ? 0 : v.bytes, algorithm);
        }
      }
      if (!rules.empty()) {
        table[id][panel.key.nranks] = rules;
        used_panels.insert(panel.key.title());
      }
    }
  }
  if (table.empty()) {
    throw ConfigError(
        fmt::format("{}: no point sets OMPI_MCA_coll_tuned_<coll>_algorithm for an "
                    "out-of-place allgather, allreduce, alltoall, broadcast, reduce or "
                    "reduce_scatter; allowed: a sweep over those knobs",
                    d.source));
  }
  std::string out = fmt::format(
      "# Open MPI coll/tuned dynamic rules from colltune ({}).\n# Use with "
      "--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename <this file>.\n"
      "# Message sizes are the bytes each rank contributes: dtsize*count (allreduce, bcast,\n"
      "# reduce), dtsize*comm_size*count (alltoall, allgather, reduce_scatter_block, id 13:\n"
      "# colltune's reduce_scatter). 0 = Open MPI's own decision,\n"
      "# written wherever no measured algorithm beat it significantly. A rule for N ranks also\n"
      "# applies to every larger communicator until the next listed size: it was measured on N.\n",
      d.source);
  for (const auto& title : used_panels) out += fmt::format("# from: {}\n", title);
  out += fmt::format("{} # collectives\n", table.size());
  for (const auto& [id, sizes] : table) {
    out += fmt::format("{} # collective id\n{} # comm sizes\n", id, sizes.size());
    for (const auto& [comm_size, rules] : sizes) {
      out += fmt::format(
          "{} # comm size\n{} # rules: message bytes, algorithm, fan in/out, segment size\n",
          comm_size, rules.size());
      for (const auto& [bytes, algorithm] : rules)
        out += fmt::format("{} {} 0 0\n", bytes, algorithm);
    }
  }
  return out;
}

std::string emit_env(const Dataset& d, const TuneOptions& o) {
  // One decision with the report: each (panel, size) cell's verdict is winners()'s, the one the
  // report's tables and "What to set" render. A knob value gains log(1 + its margin over the
  // baseline) in a cell where the report names a configuration setting it the significant
  // winner over the baseline, and nothing in the other cells it can change.
  std::map<std::string, std::map<std::string, std::vector<double>>> logs;
  for (const Panel& panel : build_panels(d)) {
    for (const SizeVerdict& v : winners(panel, d)) {
      if (v.bytes < o.min_bytes || v.bytes > o.max_bytes) continue;
      const bool named = v.significant && !v.baseline_fastest && v.margin_over_baseline;
      for (const auto& id : panel.point_ids) {
        const PointInfo* p = find_point(d, id);
        const auto base = baseline_of(d, id);
        if (!p || p->baseline || !base || !panel.cells.count(id) ||
            !panel.cells.at(id).count(v.bytes) || !panel.cells.count(*base) ||
            !panel.cells.at(*base).count(v.bytes))
          continue;
        const PointInfo* b = find_point(d, *base);
        // Where the report keeps the baseline (it won significantly), a value pays what it
        // measured there, so a value that wins one cell and loses the rest is not exported.
        const auto& mine = panel.cells.at(id).at(v.bytes).center_seconds;
        const auto& theirs = panel.cells.at(*base).at(v.bytes).center_seconds;
        const double gain = named && v.fastest == id ? std::log1p(*v.margin_over_baseline)
                            : v.significant && v.baseline_fastest && mine > 0
                                ? std::min(0.0, std::log(theirs / mine))
                                : 0.0;
        for (const auto& [key, value] : p->settings) {
          const auto same = b->settings.find(key);
          if ((!is_env_key(key) && key != kMpiAxis) || is_secret_variable(key) ||
              (same != b->settings.end() && same->second == value) ||
              !knob_affects(key, value, panel.key.collective,
                            setting(d, id, "backend").value_or("")))
            continue;
          logs[key][value].push_back(gain);
        }
      }
    }
  }
  std::string out = fmt::format(
      "# colltune tune --emit env from {}: for each swept knob, the value with the best geometric\n"
      "# mean speedup over the baseline across every (collective, size) cell in {}..{} bytes that\n"
      "# it can change; a cell where the report names no significant winner setting it counts as\n"
      "# no speedup, a cell where it keeps the baseline as what the value measured there.\n"
      "# Secret-named knobs are never written (the store holds their values redacted).\n",
      d.source, o.min_bytes,
      o.max_bytes == UINT64_MAX ? std::string("max") : std::to_string(o.max_bytes));
  bool mpich_algorithm = false;
  for (const auto& [key, by_value] : logs) {
    std::optional<std::string> best;  // a value may be "": emptiness is not "none"
    double best_gain = 0;
    std::size_t cells = 0;
    for (const auto& [value, l] : by_value) {
      double sum = 0;
      for (double x : l) sum += x;
      const double gain = sum / static_cast<double>(l.size());
      if (gain > best_gain) {
        best_gain = gain;
        best = value;
        cells = l.size();
      }
    }
    if (!best) {
      out += fmt::format("# {}: no value beats leaving it unset significantly\n", key);
    } else if (key == kMpiAxis) {
      // Which MPI runs is the launcher's and the binary's choice, not a variable's.
      out += fmt::format(
          "# mpi: {} is faster, x{:.3f} over {} cells: run under that MPI (an env "
          "file cannot choose it)\n",
          unescape_bytes(*best), std::exp(best_gain), cells);
    } else {
      // Stores hold escape_bytes text (a backslash as two): the shell gets the bytes themselves.
      std::string value = unescape_bytes(*best);
      if (const auto ranged = intel_ranged_line(d, key, value, o.min_bytes, o.max_bytes)) {
        out += ranged->comment;
        value = ranged->value;
      }
      out += fmt::format("export {}={}  # x{:.3f} over {} cells\n", key, shell_single_quote(value),
                         std::exp(best_gain), cells);
      mpich_algorithm = mpich_algorithm || is_mpich_in_process_knob(key);
    }
  }
  if (mpich_algorithm && logs.count("MPIR_CVAR_DEVICE_COLLECTIVES") == 0) {
    // As measured (the sweep required it): with ch4's device collectives the variable would
    // often not be what runs.
    out += "export MPIR_CVAR_DEVICE_COLLECTIVES='none'  # what MPICH's algorithm variables need\n";
  }
  return out;
}

std::string emit_openmetrics(const Dataset& d) {
  // Base units, as OpenMetrics asks (a unit is the name's suffix): bytes per second, seconds.
  std::string busbw =
      "# TYPE colltune_busbw_bytes_per_second gauge\n"
      "# UNIT colltune_busbw_bytes_per_second bytes_per_second\n"
      "# HELP colltune_busbw_bytes_per_second Bus bandwidth at the median time (geometric mean "
      "over launches).\n";
  std::string time =
      "# TYPE colltune_time_seconds gauge\n# UNIT colltune_time_seconds seconds\n"
      "# HELP colltune_time_seconds Median time of one op, the maximum over ranks (geometric mean "
      "of the launch medians).\n";
  // The store's name, not its path: a label is an identity, and paths differ by machine.
  std::filesystem::path path = std::filesystem::path(d.source).lexically_normal();
  if (path.filename().empty()) path = path.parent_path();  // "results/x/"
  const std::string source = path.filename().string();
  for (const Panel& panel : build_panels(d)) {
    for (const auto& [id, by_size] : panel.cells) {
      const PointInfo* p = find_point(d, id);
      for (const auto& [bytes, cell] : by_size) {
        const std::string labels = fmt::format(
            "source=\"{}\",point=\"{}\",label=\"{}\",collective=\"{}\",dtype=\"{}\",op=\"{}\","
            "in_place=\"{}\",nranks=\"{}\",bytes=\"{}\"",
            metric_label(source), metric_label(id), metric_label(p ? p->label : id),
            metric_label(panel.key.collective), metric_label(panel.key.dtype),
            metric_label(panel.key.op), panel.key.in_place ? "true" : "false", panel.key.nranks,
            bytes);
        busbw += fmt::format("colltune_busbw_bytes_per_second{{{}}} {:.6g}\n", labels,
                             cell.busbw_gbps * 1e9);
        time += fmt::format("colltune_time_seconds{{{}}} {:.6g}\n", labels, cell.center_seconds);
      }
    }
  }
  return busbw + time + "# EOF\n";
}

}  // namespace colltune
