#include "report/tune.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "core/errors.hpp"
#include "report/analysis.hpp"

namespace colltune {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::optional<std::string> setting(const Dataset& d, const std::string& point,
                                   const std::string& key) {
  const PointInfo* p = find_point(d, point);
  if (p == nullptr || !p->settings.count(key)) return std::nullopt;
  return p->settings.at(key);
}

bool supported(const SizeVerdict& v) {
  const bool baseline_tied =
      v.baseline && std::find(v.tied.begin(), v.tied.end(), *v.baseline) != v.tied.end();
  return v.significant || (v.baseline && *v.baseline != v.winner && !baseline_tied);
}

int hosts_of(const Dataset& d, const std::string& point) {
  const auto it = d.contexts.find(point);
  if (it == d.contexts.end() || !it->second.contains("hosts")) return -1;
  return static_cast<int>(it->second["hosts"].size());
}

// Adjacent sizes with the same choice become one range; ranges cover measured sizes only.
struct Range {
  std::uint64_t min_bytes, max_bytes;
  std::string choice;
};

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

std::string tuner_algorithm(const std::optional<std::string>& v) {
  if (!v) return "-1";
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
  if (!v) return "-1";
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

std::string shell_single_quote(const std::string& text) {
  std::string out = "'";
  for (char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

std::string metric_label(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '\\' || ch == '"') out += '\\';
    out += ch == '\n' ? std::string("\\n") : std::string(1, ch);
  }
  return out;
}

}  // namespace

std::string emit_nccl_tuner(const Dataset& d) {
  std::string out = fmt::format(
      "# NCCL example tuner plugin config from colltune ({}).\n"
      "# "
      "collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,"
      "regBuff\n"
      "# Ranges cover measured sizes only; sizes without a supported winner keep NCCL's choice.\n",
      d.source);
  int rows = 0;
  for (const Panel& panel : build_panels(d)) {
    const auto coll = nccl_tuner_collectives().find(panel.key.collective);
    if (coll == nccl_tuner_collectives().end() || panel.key.in_place) continue;
    std::vector<std::pair<std::uint64_t, std::string>> choices;
    int nodes = -1;
    for (const SizeVerdict& v : winners(panel, d)) {
      if (setting(d, v.winner, "backend").value_or("") != "nccl" || !supported(v)) {
        choices.emplace_back(v.bytes, "");
        continue;
      }
      const std::string algo = tuner_algorithm(setting(d, v.winner, "NCCL_ALGO"));
      const std::string proto = tuner_protocol(setting(d, v.winner, "NCCL_PROTO"));
      const std::string channels = tuner_channels(d, v.winner);
      nodes = hosts_of(d, v.winner);
      const bool nothing = algo == "-1" && proto == "-1" && channels == "-1";
      choices.emplace_back(v.bytes, algo.empty() || proto.empty() || nothing
                                        ? ""
                                        : fmt::format("{},{},{}", algo, proto, channels));
    }
    for (const Range& r : ranges(choices)) {
      if (r.choice.empty()) continue;
      out += fmt::format("{},{},{},{},{},{},-1,-1\n", coll->second, r.min_bytes, r.max_bytes,
                         r.choice, nodes, panel.key.nranks);
      ++rows;
    }
  }
  if (rows == 0)
    out += "# no NCCL point beat NCCL's own choice significantly: nothing to override\n";
  return out;
}

std::string emit_ompi_rules(const Dataset& d) {
  // coll/tuned collective ids and MCA names (Open MPI 4.1 and 5.0).
  static const std::vector<std::tuple<std::string, int, std::string>> kColls{
      {"allgather", 0, "allgather"},
      {"allreduce", 2, "allreduce"},
      {"alltoall", 3, "alltoall"},
      {"broadcast", 7, "bcast"},
      {"reduce", 11, "reduce"}};
  // collective id -> comm size -> rules (message bytes, algorithm)
  std::map<int, std::map<int, std::vector<std::pair<std::uint64_t, int>>>> table;
  std::set<std::string> used_panels;
  for (const Panel& panel : build_panels(d)) {
    if (panel.key.in_place) continue;
    for (const auto& [coll, id, mca] : kColls) {
      if (panel.key.collective != coll) continue;
      const std::string knob = "OMPI_MCA_coll_tuned_" + mca + "_algorithm";
      // Candidates: points forcing this collective's algorithm, and the baselines (0: Open
      // MPI's own decision). Points turning other knobs say nothing about this collective.
      Panel candidates = panel;
      candidates.point_ids.clear();
      bool swept = false;
      for (const auto& p : panel.point_ids) {
        const PointInfo* info = find_point(d, p);
        if (info && info->settings.count(knob)) swept = true;
        if (info && (info->baseline || info->settings.count(knob)))
          candidates.point_ids.push_back(p);
      }
      if (!swept) continue;
      const auto done = table.find(id);
      if (done != table.end() && done->second.count(panel.key.nranks))
        continue;  // first panel decides
      std::vector<std::pair<std::uint64_t, int>> rules;
      for (const SizeVerdict& v : winners(candidates, d)) {
        const int algorithm =
            supported(v) ? std::stoi(setting(d, v.winner, knob).value_or("0")) : 0;
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
                    "out-of-place allgather, allreduce, alltoall, broadcast or "
                    "reduce; allowed: a sweep over those knobs",
                    d.source));
  }
  std::string out = fmt::format(
      "# Open MPI coll/tuned dynamic rules from colltune ({}).\n# Use with "
      "--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename <this file>.\n"
      "# Message sizes are the bytes each rank contributes: dtsize*count (allreduce, bcast,\n"
      "# reduce), dtsize*comm_size*count (alltoall, allgather). 0 = Open MPI's own decision.\n",
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
  // knob -> value -> log speedups over the point's baseline, per (panel, size) cell
  std::map<std::string, std::map<std::string, std::vector<double>>> logs;
  for (const Panel& panel : build_panels(d)) {
    for (const auto& id : panel.point_ids) {
      const PointInfo* p = find_point(d, id);
      const auto base = baseline_of(d, id);
      if (!p || p->baseline || !base || !panel.cells.count(id) || !panel.cells.count(*base))
        continue;
      for (const auto& [bytes, cell] : panel.cells.at(id)) {
        if (bytes < o.min_bytes || bytes > o.max_bytes) continue;
        const auto b = panel.cells.at(*base).find(bytes);
        if (b == panel.cells.at(*base).end() || cell.summary.median <= 0) continue;
        for (const auto& [key, value] : p->settings) {
          if (std::any_of(key.begin(), key.end(),
                          [](unsigned char c) { return std::isupper(c); })) {
            logs[key][value].push_back(std::log(b->second.summary.median / cell.summary.median));
          }
        }
      }
    }
  }
  std::string out = fmt::format(
      "# colltune tune --emit env from {}: for each swept knob, the value with the best geometric\n"
      "# mean speedup over the baseline across every (collective, size) cell in {}..{} bytes.\n",
      d.source, o.min_bytes,
      o.max_bytes == UINT64_MAX ? std::string("max") : std::to_string(o.max_bytes));
  for (const auto& [key, by_value] : logs) {
    std::string best;
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
    if (best.empty()) {
      out += fmt::format("# {}: no value beats leaving it unset\n", key);
    } else {
      out += fmt::format("export {}={}  # x{:.3f} over {} cells\n", key, shell_single_quote(best),
                         std::exp(best_gain), cells);
    }
  }
  return out;
}

std::string emit_openmetrics(const Dataset& d) {
  std::string busbw =
      "# TYPE colltune_busbw_gbps gauge\n# UNIT colltune_busbw_gbps gbps\n"
      "# HELP colltune_busbw_gbps Bus bandwidth at the median time, GB/s (1e9 bytes).\n";
  std::string time =
      "# TYPE colltune_time_seconds gauge\n# UNIT colltune_time_seconds seconds\n"
      "# HELP colltune_time_seconds Median time of one op, the maximum over ranks.\n";
  for (const Panel& panel : build_panels(d)) {
    for (const auto& [id, by_size] : panel.cells) {
      const PointInfo* p = find_point(d, id);
      for (const auto& [bytes, cell] : by_size) {
        const std::string labels = fmt::format(
            "source=\"{}\",point=\"{}\",label=\"{}\",collective=\"{}\",dtype=\"{}\",op=\"{}\","
            "in_place=\"{}\",nranks=\"{}\",bytes=\"{}\"",
            metric_label(d.source), metric_label(id), metric_label(p ? p->label : id),
            metric_label(panel.key.collective), metric_label(panel.key.dtype),
            metric_label(panel.key.op), panel.key.in_place ? "true" : "false", panel.key.nranks,
            bytes);
        busbw += fmt::format("colltune_busbw_gbps{{{}}} {:.6g}\n", labels, cell.busbw_gbps);
        time += fmt::format("colltune_time_seconds{{{}}} {:.6g}\n", labels, cell.summary.median);
      }
    }
  }
  return busbw + time + "# EOF\n";
}

}  // namespace colltune
