// tune --emit nccl-plugin: the tuned file colltune's NCCL tuner plugin reads
// (docs/tuned-file.md). The same decision as every other emitter (winners()), with each row's
// measured gain over the default at every size it covers.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "core/decision.hpp"
#include "core/nccl_tuned_format.hpp"
#include "report/analysis.hpp"
#include "report/tune.hpp"
#include "report/tune_parts.hpp"

namespace colltune {
namespace {

using namespace tune_parts;
using nlohmann::json;

// The fastest point's speedup over its baseline at one size: baseline time / its time, with the
// launch-level test's 95% interval (the gate's test), or nullopt where it cannot decide.
std::optional<json> measured_gain(const Panel& panel, const SizeVerdict& v) {
  if (!v.baseline) return std::nullopt;
  const auto fast = panel.cells.find(v.fastest);
  const auto base = panel.cells.find(*v.baseline);
  if (fast == panel.cells.end() || base == panel.cells.end()) return std::nullopt;
  const auto fc = fast->second.find(v.bytes);
  const auto bc = base->second.find(v.bytes);
  if (fc == fast->second.end() || bc == base->second.end()) return std::nullopt;
  const LaunchTest t = launch_level_test(bc->second, fc->second);
  json m{{"bytes", v.bytes}, {"gain", t.ratio > 0 ? 1 / t.ratio : 0}};
  if (!t.method.empty() && t.ratio_low > 0) {
    m["gain_low"] = 1 / t.ratio_high;
    m["gain_high"] = 1 / t.ratio_low;
  } else {
    m["gain_interval"] = t.why_not.empty() ? "not decidable" : t.why_not;
  }
  m["launches"] = {t.base_launches, t.cand_launches};
  return m;
}

// What a row says, apart from its sizes.
struct Choice {
  std::string algorithm, protocol, point;
  int nodes = 0;
  bool nodes_from_nccl = false;
};

// The node count a row needs, as NCCL counts it: what NCCL handed colltune's plugin where it
// was loaded in the winning launches (their tuner_plugin setting: a multi-node NVLink clique is
// one node), else their host count (-1 unknown), which is NCCL's count off MNNVL systems.
std::pair<int, bool> nodes_of(const Dataset& d, const std::string& point) {
  const auto context = d.contexts.find(point);
  if (context != d.contexts.end()) {
    const json settings = context->second.value("backend_settings", json::object());
    if (settings.is_object() && settings.contains("tuner_plugin") &&
        settings["tuner_plugin"].is_string()) {
      const json seen = json::parse(settings["tuner_plugin"].get<std::string>(), nullptr, false);
      if (seen.is_object() && seen.value("nnodes", 0) > 0) return {seen.value("nnodes", 0), true};
    }
  }
  return {hosts_of(d, point), false};
}

// One panel's say at one size: its choice key ("" for NCCL's default) and its measured gain.
struct PanelSay {
  std::string panel, choice;
  std::optional<json> measured;
};

// The rows of one (collective, ranks): NCCL's getCollInfo knows the collective and the bytes,
// never the dtype or op, so every panel of them speaks for every call. A size gets a row only
// where every panel that measured it chose the same; where they differ NCCL keeps its default.
// One sequence of sizes per group also means its rows never overlap, which the plugin requires.
struct Group {
  std::map<std::uint64_t, std::vector<PanelSay>> by_size;
};

// "tree/any on 1 node" for a not_written line.
std::string said(const PanelSay& s, const std::map<std::string, Choice>& choice_of) {
  if (s.choice.empty()) return s.panel + ": NCCL's default";
  const Choice& c = choice_of.at(s.choice);
  return fmt::format("{}: {}/{}", s.panel, c.algorithm, c.protocol);
}

}  // namespace

std::string emit_nccl_plugin(const Dataset& d) {
  namespace tf = tuned_format;
  json rows = json::array(), not_written = json::array();
  std::map<std::pair<std::string, int>, Group> groups;  // (collective, ranks)
  std::map<std::string, Choice> choice_of;              // by its key
  for (const Panel& panel : build_panels(d)) {
    const std::string& coll = panel.key.collective;
    if (tf::id_of(tf::kCollectives, coll) < 0 || panel.key.in_place) continue;
    Group& group = groups[{coll, panel.key.nranks}];
    for (const SizeVerdict& v : winners(panel, d)) {
      std::string choice;
      const PointInfo* p = find_point(d, v.fastest);
      const std::string label = p ? p->label : v.fastest;
      if (setting(d, v.fastest, "backend").value_or("") == "nccl" && v.significant &&
          !v.baseline_fastest) {
        const auto algo_value = setting(d, v.fastest, "NCCL_ALGO");
        const auto proto_value = setting(d, v.fastest, "NCCL_PROTO");
        const std::string algo = algo_value ? tuner_algorithm(algo_value) : std::string(tf::kAny);
        const std::string proto = proto_value ? tuner_protocol(proto_value) : std::string(tf::kAny);
        const auto [nodes, from_nccl] = nodes_of(d, v.fastest);
        const std::string channels = tuner_channels(d, v.fastest);
        if (algo.empty() || proto.empty() || nodes < 1) {
          not_written.push_back(fmt::format(
              "{} {} B: {} won, but it set a list or exclusion of NCCL_ALGO/NCCL_PROTO (or its "
              "node count is unknown): a row would force what was not measured",
              coll, v.bytes, label));
        } else if (channels != "-1") {
          // NCCL_MIN/MAX_CTAS and _NCHANNELS bound the whole communicator; a row's nChannels
          // is taken per call as it is (enqueue.cc), past NCCL's reduction by size.
          not_written.push_back(fmt::format(
              "{} {} B: {} won with a channel limit for the whole communicator, which a row "
              "cannot carry per size (--emit env writes it)",
              coll, v.bytes, label));
        } else {
          choice = fmt::format("{} {} {} {}", algo, proto, nodes, v.fastest);
          choice_of[choice] = {algo, proto, v.fastest, nodes, from_nccl};
        }
      }
      group.by_size[v.bytes].push_back(
          {panel.key.title(), choice, choice.empty() ? std::nullopt : measured_gain(panel, v)});
    }
  }
  for (const auto& [key, group] : groups) {
    const auto& [coll, nranks] = key;
    std::vector<std::pair<std::uint64_t, std::string>> agreed, disagreed;
    for (const auto& [bytes, says] : group.by_size) {
      const bool same = std::all_of(says.begin(), says.end(), [&](const PanelSay& s) {
        return s.choice == says.front().choice;
      });
      agreed.emplace_back(bytes, same ? says.front().choice : "");
      std::string why;
      for (const PanelSay& s : says) why += (why.empty() ? "" : "; ") + said(s, choice_of);
      disagreed.emplace_back(bytes, same ? "" : why);
    }
    for (const Range& r : ranges(disagreed)) {
      if (r.choice.empty()) continue;
      not_written.push_back(fmt::format(
          "{} {}-{} B on {} ranks: the dtype/op panels disagree ({}), and NCCL's tuner sees "
          "neither dtype nor op: NCCL's default",
          coll, r.min_bytes, r.max_bytes, nranks, r.choice));
    }
    for (const Range& r : ranges(agreed)) {
      if (r.choice.empty()) continue;
      const Choice& c = choice_of.at(r.choice);
      json measured = json::array();
      std::set<std::string> panels;
      for (auto it = group.by_size.lower_bound(r.min_bytes);
           it != group.by_size.end() && it->first <= r.max_bytes; ++it) {
        for (const PanelSay& s : it->second) {
          panels.insert(s.panel);
          if (s.measured) measured.push_back(*s.measured);
        }
      }
      const PointInfo* p = find_point(d, c.point);
      rows.push_back({{"collective", coll},
                      {"min_bytes", r.min_bytes},
                      {"max_bytes", r.max_bytes},
                      {"nnodes", c.nodes},
                      {"nnodes_from", c.nodes_from_nccl ? "nccl" : "hosts"},
                      {"nranks", nranks},
                      {"algorithm", c.algorithm},
                      {"protocol", c.protocol},
                      {"channels", tf::kAny},
                      {"measured_on", fmt::format("{}", fmt::join(panels, "; "))},
                      {"measured", measured},
                      {"point", p ? p->label : c.point},
                      {"point_id", c.point}});
    }
  }
  json notes = json::array();
  if (std::any_of(rows.begin(), rows.end(),
                  [](const json& r) { return r["nnodes_from"] == "hosts"; })) {
    notes.push_back(
        "nnodes is the winning launches' host count (nnodes_from: hosts): NCCL's own count "
        "except on multi-node NVLink, where a clique is one node and such a row never applies; "
        "sweep with the plugin loaded (NCCL_TUNER_PLUGIN) to record NCCL's count");
  }
  const json doc{{"format", tf::kFormat},
                 {"version", tf::kVersion},
                 {"generator", "colltune tune --emit nccl-plugin"},
                 {"store", d.source},
                 {"rows", rows},
                 {"notes", notes},
                 {"not_written", not_written}};
  return doc.dump(2) + "\n";
}

}  // namespace colltune
