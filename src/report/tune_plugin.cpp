// tune --emit nccl-plugin: the tuned file colltune's NCCL tuner plugin reads
// (docs/tuned-file.md). The same decision as every other emitter (winners()), with each row's
// measured gain over the default at every size it covers.

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

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
  std::string algorithm, protocol, channels, point;
  int nodes = 0;
};

}  // namespace

std::string emit_nccl_plugin(const Dataset& d) {
  namespace tf = tuned_format;
  json rows = json::array(), not_written = json::array();
  // One row per call: a second panel (another dtype or op) may not claim the same sizes.
  std::set<std::tuple<std::string, int, int, std::uint64_t>> taken;
  for (const Panel& panel : build_panels(d)) {
    const std::string& coll = panel.key.collective;
    if (tf::id_of(tf::kCollectives, coll) < 0 || panel.key.in_place) continue;
    std::vector<std::pair<std::uint64_t, std::string>> choices;
    std::map<std::string, std::vector<const SizeVerdict*>> by_choice;
    std::map<std::string, Choice> choice_of;  // by its key in `choices`
    const std::vector<SizeVerdict> verdicts = winners(panel, d);
    for (const SizeVerdict& v : verdicts) {
      std::string choice;
      if (setting(d, v.fastest, "backend").value_or("") == "nccl" && v.significant &&
          !v.baseline_fastest) {
        const auto algo_value = setting(d, v.fastest, "NCCL_ALGO");
        const auto proto_value = setting(d, v.fastest, "NCCL_PROTO");
        const std::string algo = algo_value ? tuner_algorithm(algo_value) : std::string(tf::kAny);
        const std::string proto = proto_value ? tuner_protocol(proto_value) : std::string(tf::kAny);
        const int nodes = hosts_of(d, v.fastest);
        const std::string channels = tuner_channels(d, v.fastest);
        const PointInfo* p = find_point(d, v.fastest);
        if (algo.empty() || proto.empty() || nodes < 1) {
          not_written.push_back(fmt::format(
              "{} {} B: {} won, but it set a list or exclusion of NCCL_ALGO/NCCL_PROTO (or its "
              "node count is unknown): a row would force what was not measured",
              coll, v.bytes, p ? p->label : v.fastest));
        } else {
          choice = fmt::format("{} {} {} {} {}", algo, proto, channels, nodes, v.fastest);
          choice_of[choice] = {algo, proto, channels, v.fastest, nodes};
        }
      }
      choices.emplace_back(v.bytes, choice);
      if (!choice.empty()) by_choice[choice].push_back(&v);
    }
    for (const Range& r : ranges(choices)) {
      if (r.choice.empty()) continue;
      const Choice& c = choice_of.at(r.choice);
      if (!taken.insert({coll, c.nodes, panel.key.nranks, r.min_bytes}).second) {
        not_written.push_back(fmt::format("{} {}-{} B ({}): another panel's row has these sizes",
                                          coll, r.min_bytes, r.max_bytes, panel.key.title()));
        continue;
      }
      json measured = json::array();
      for (const SizeVerdict* v : by_choice[r.choice]) {
        if (v->bytes < r.min_bytes || v->bytes > r.max_bytes) continue;
        if (auto m = measured_gain(panel, *v)) measured.push_back(*m);
      }
      const PointInfo* p = find_point(d, c.point);
      rows.push_back(
          {{"collective", coll},
           {"min_bytes", r.min_bytes},
           {"max_bytes", r.max_bytes},
           {"nnodes", c.nodes},
           {"nranks", panel.key.nranks},
           {"algorithm", c.algorithm},
           {"protocol", c.protocol},
           {"channels", c.channels == "-1" ? json(tf::kAny) : json(std::stoi(c.channels))},
           {"measured_on", panel.key.title()},
           {"measured", measured},
           {"point", p ? p->label : c.point},
           {"point_id", c.point}});
    }
  }
  const json doc{{"format", tf::kFormat},
                 {"version", tf::kVersion},
                 {"generator", "colltune tune --emit nccl-plugin"},
                 {"store", d.source},
                 {"rows", rows},
                 {"not_written", not_written}};
  return doc.dump(2) + "\n";
}

}  // namespace colltune
