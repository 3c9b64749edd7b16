#include "health/health_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "health/switch_layout.hpp"

namespace colltune {
namespace {

const std::string& host(const HealthResult& r, int node) {
  return r.input.nodes[static_cast<std::size_t>(node)];
}

// "p < 0.001; nodes spread 2%": the probability and the fleet's own spread it was held against.
std::string p_text(const Evidence& e) {
  const std::string p = e.p < 0.001 ? "p < 0.001" : fmt::format("p = {:.3f}", e.p);
  return fmt::format("{}; nodes spread {:.0f}%", p, (std::exp(e.between_sd) - 1) * 100);
}

// "bw 0.49x the fleet median": a time ratio shown as the figure's own (bandwidth falls, latency
// rises).
std::string ratio_text(const Evidence& e) {
  return e.metric.ends_with("latency")
             ? fmt::format("{} {:.2f}x the fleet median", e.metric, 1 / e.ratio)
             : fmt::format("{} {:.2f}x the fleet median", e.metric, e.ratio);
}

const AloneVerdict* alone_of(const HealthResult& r, int node) {
  for (const AloneVerdict& a : r.judgement.alone) {
    if (a.node == node) return &a;
  }
  return nullptr;
}

// "; confirmed: slow in 3 of 3 fresh pairs": what the confirmation pass saw of a suspect.
std::string confirmation_text(const NodeVerdict& v) {
  if (v.confirm_slow < 0) return "";
  const char* word = v.verdict == HealthVerdict::kNotConfirmed ? "not confirmed" : "confirmed";
  if (v.slow_alone) {
    return fmt::format("; {}: slow alone again in {} of {} fresh runs", word, v.confirm_slow,
                       v.confirm_judged);
  }
  return fmt::format("; {}: slow in {} of {} fresh pairs", word, v.confirm_slow, v.confirm_judged);
}

// Where a node slow through its pairs is slow: stage 1 found it ok alone.
std::string network_path_text(const NodeVerdict& v) {
  return v.network_path && v.verdict == HealthVerdict::kSlow
             ? "; ok alone, so its network path: NIC, cable or switch port"
             : "";
}

std::string node_reason(const HealthResult& r, const NodeVerdict& v) {
  if (v.failed_first) return fmt::format("{}: {}", name(v.verdict), v.reason);
  if ((v.verdict == HealthVerdict::kSlow || v.verdict == HealthVerdict::kNotConfirmed) &&
      v.slow_alone) {
    return fmt::format("{} alone: {} over {} launches ({}){}", name(v.verdict), ratio_text(v.worst),
                       v.worst.launches, p_text(v.worst), confirmation_text(v));
  }
  if (v.verdict == HealthVerdict::kSlow || v.verdict == HealthVerdict::kNotConfirmed) {
    return fmt::format("{}: {} in {} of {} pairs ({}){}{}", name(v.verdict), ratio_text(v.worst),
                       v.slow_pairs, v.judged_pairs, p_text(v.worst), confirmation_text(v),
                       network_path_text(v));
  }
  if (v.verdict == HealthVerdict::kFailed || v.verdict == HealthVerdict::kUnreachable)
    return fmt::format("{}: {}", name(v.verdict), v.reason);
  (void)r;
  return std::string(name(v.verdict));
}

bool is_bad(HealthVerdict v) {
  return v == HealthVerdict::kSlow || v == HealthVerdict::kFailed ||
         v == HealthVerdict::kUnreachable;
}

// A node the confirmation pass cleared is fine: a slow pair of it is its link's doing.
bool fine(HealthVerdict v) { return v == HealthVerdict::kOk || v == HealthVerdict::kNotConfirmed; }

int judged_nodes(const HealthResult& r) {
  return static_cast<int>(std::count_if(
      r.judgement.nodes.begin(), r.judgement.nodes.end(),
      [](const NodeVerdict& v) { return fine(v.verdict) || v.verdict == HealthVerdict::kSlow; }));
}

}  // namespace

int health_exit_code(const HealthResult& r) {
  // Launches failing alike at once fail for the check's own setup, not for the nodes they ran on.
  if (!r.stopped.empty()) return kHealthCouldNotCheck;
  // A suspect that cannot be paired again is neither named nor cleared.
  if (!r.unconfirmable.empty()) return kHealthCouldNotCheck;
  bool bad = std::any_of(r.judgement.nodes.begin(), r.judgement.nodes.end(),
                         [](const NodeVerdict& v) { return is_bad(v.verdict); });
  bad = bad || std::any_of(r.judgement.pairs.begin(), r.judgement.pairs.end(),
                           [&](const PairVerdict& p) { return link_fault(r.judgement, p); });
  bad = bad || std::any_of(r.together.begin(), r.together.end(), [](const TogetherFigure& t) {
          return t.verdict == HealthVerdict::kSlow;
        });
  bad = bad || !r.port_findings.empty();
  if (bad) return kHealthSomeBad;
  // Nothing found, but too little checked to say "ok".
  const bool unjudged =
      std::any_of(r.judgement.nodes.begin(), r.judgement.nodes.end(),
                  [](const NodeVerdict& v) { return v.verdict == HealthVerdict::kNotJudged; });
  if (judged_nodes(r) < 2 || unjudged || r.interrupted) return kHealthCouldNotCheck;
  return kHealthAllOk;
}

std::string health_text(const HealthResult& r, const HealthRule& rule) {
  std::string out;
  std::vector<std::string> bad;
  for (const NodeVerdict& v : r.judgement.nodes) {
    if (is_bad(v.verdict)) bad.push_back(host(r, v.node) + " " + node_reason(r, v));
  }
  for (const auto& [node, findings] : r.port_findings) {
    const auto& v = r.judgement.nodes[static_cast<std::size_t>(node)];
    if (!is_bad(v.verdict)) bad.push_back(host(r, node) + " ports: " + findings.front());
  }
  std::vector<std::string> links;
  for (const UplinkVerdict& u : judge_uplinks(r.input, r.judgement)) {
    links.push_back(fmt::format(
        "switch {}{}: its uplinks: {} of the {} pairs leaving it are slow links ({} of {} within "
        "it); the links below through it are its doing",
        u.leaf,
        u.tied.empty() ? ""
                       : fmt::format(" or {} (as many slow links each: the figures cannot tell "
                                     "which)",
                                     fmt::join(u.tied, ", ")),
        u.slow_crossing, u.crossing, u.slow_within, u.within));
  }
  for (const PairVerdict& p : r.judgement.pairs) {
    if (!link_fault(r.judgement, p)) continue;
    links.push_back(fmt::format("link {}-{} {}: {}; both nodes are fine in their other pairs",
                                host(r, p.pair.first), host(r, p.pair.second), name(p.verdict),
                                p.verdict == HealthVerdict::kSlow
                                    ? fmt::format("{} ({})", ratio_text(p.worst), p_text(p.worst))
                                    : p.reason));
  }
  const std::size_t n = r.input.nodes.size();
  const int code = health_exit_code(r);
  if (!r.stopped.empty() || !r.unconfirmable.empty()) {
    out += fmt::format("colltune health: could not check: {}\n",
                       r.stopped.empty() ? "cannot confirm: " + r.unconfirmable : r.stopped);
    bad.clear();
  } else if (code == kHealthAllOk) {
    out += fmt::format("colltune health: all {} nodes ok ({} pairs measured)\n", n,
                       r.judgement.pairs.size());
  } else if (code == kHealthCouldNotCheck && bad.empty()) {
    out += fmt::format("colltune health: could not check: {} of {} nodes judged{}{}\n",
                       judged_nodes(r), n, r.budget_spent ? "; the budget was spent" : "",
                       r.interrupted ? "; interrupted" : "");
  } else {
    out += fmt::format("colltune health: {} of {} nodes need{} attention{}\n", bad.size(), n,
                       bad.size() == 1 ? "s" : "", links.empty() ? "" : ", and links");
  }
  for (const std::string& line : bad) out += "  " + line + "\n";
  for (const std::string& line : links) out += "  " + line + "\n";
  for (const TogetherFigure& t : r.together) {
    if (t.verdict == HealthVerdict::kSlow) {
      out += fmt::format(
          "  all nodes together: {} busbw {:.3f} GB/s is below {:g}x of the {:.3f} "
          "GB/s the slowest healthy pair predicts\n",
          t.collective, t.busbw_gbps, kTogetherFloor, t.predicted_gbps);
    }
  }
  for (const std::string& note : r.judgement.notes) out += "  note: " + note + "\n";
  if (r.budget_spent) out += "  note: the budget was spent before every launch ran\n";
  out += fmt::format(
      "\nRule: slow = at least {:.0f}% slower than the fleet's median, beyond {:g} robust sds "
      "of the nodes' own spread (or launch sds, where more), and significant over launches "
      "(Benjamini-Hochberg-adjusted "
      "p < {:g}); a node slow in most of its pairs is slow, a slow pair of two fine nodes is a "
      "slow link.\n",
      rule.min_effect * 100, kOutlierZ, rule.alpha);
  out += "\nStages:\n";
  for (const std::string& s : r.stages) out += "  " + s + "\n";
  out += fmt::format("  {} launches, {:.1f} s\n", r.launches, r.seconds);
  out += "\nNodes:\n";
  out += fmt::format("  {:<24} {:<12} {}\n", "node", "verdict", "evidence");
  for (const NodeVerdict& v : r.judgement.nodes) {
    std::string evidence =
        v.judged_pairs > 0 && !v.slow_alone
            ? fmt::format("{}, slow in {} of {} pairs{}{}", ratio_text(v.worst), v.slow_pairs,
                          v.judged_pairs, confirmation_text(v), network_path_text(v))
            : v.reason;
    if (v.slow_alone) evidence = node_reason(r, v);
    if ((is_bad(v.verdict) && v.verdict != HealthVerdict::kSlow) || v.failed_first)
      evidence = v.reason;
    if (v.link_only) evidence += "; a link of it is bad";
    if (!v.behind_uplink.empty()) {
      evidence += fmt::format(
          "; slow only in pairs through switch {}'s uplinks (named above), ok alone: the "
          "uplinks, not this node",
          v.behind_uplink);
    }
    if (const auto it = r.port_findings.find(v.node); it != r.port_findings.end()) {
      for (const std::string& f : it->second) evidence += "; port " + f;
    }
    out += fmt::format("  {:<24} {:<12} {}\n", host(r, v.node), name(v.verdict), evidence);
  }
  if (!r.judgement.alone.empty()) {
    out += "\nEach node alone (its worst metric: time of one op, or a memcpy's seconds per GB):\n";
    out += fmt::format("  {:<24} {:<10} {:<18} {:>10} {:>10} {:>7} {:>9} {}\n", "node", "verdict",
                       "metric", "median_us", "fleet_us", "ratio", "p", "launches");
    for (const AloneVerdict& a : r.judgement.alone) {
      out += fmt::format("  {:<24} {:<10} {:<18} {:>10.2f} {:>10.2f} {:>7.3f} {:>9.2g} {}{}\n",
                         host(r, a.node), std::string(name(a.verdict)) + (a.undecided ? "?" : ""),
                         a.worst.metric, a.worst.median_seconds * 1e6, a.worst.fleet_seconds * 1e6,
                         a.worst.ratio, a.worst.p, a.worst.launches,
                         a.undecided ? " (undecided)" : "");
    }
  }
  out += "\nPairs (time of one op, median over launches; fleet median and launch spread):\n";
  out += fmt::format("  {:<36} {:<10} {:<8} {:>10} {:>10} {:>7} {:>9} {}\n", "pair", "verdict",
                     "metric", "median_us", "fleet_us", "ratio", "p", "launches");
  for (const PairVerdict& p : r.judgement.pairs) {
    const std::string pair = host(r, p.pair.first) + " - " + host(r, p.pair.second);
    if (p.verdict == HealthVerdict::kFailed) {
      out += fmt::format("  {:<36} {:<10} {}\n", pair, "failed", p.reason);
      continue;
    }
    out += fmt::format("  {:<36} {:<10} {:<8} {:>10.2f} {:>10.2f} {:>7.3f} {:>9.2g} {}{}\n", pair,
                       std::string(name(p.verdict)) + (p.undecided ? "?" : ""), p.worst.metric,
                       p.worst.median_seconds * 1e6, p.worst.fleet_seconds * 1e6, p.worst.ratio,
                       p.worst.p, p.worst.launches, p.undecided ? " (undecided)" : "");
  }
  if (!r.together.empty()) {
    out += "\nAll nodes together (busbw, geometric mean over launches):\n";
    for (const TogetherFigure& t : r.together) {
      out += fmt::format(
          "  {:<10} {:>9.3f} GB/s, {:.2f}x the slowest healthy pair's bw "
          "({:.3f} GB/s), {} launches: {}{}\n",
          t.collective, t.busbw_gbps, t.predicted_gbps > 0 ? t.busbw_gbps / t.predicted_gbps : 0,
          t.predicted_gbps, t.launches, name(t.verdict),
          t.verdict == HealthVerdict::kNotJudged && t.predicted_gbps > 0
              ? " (Open MPI's allreduce on a node count not a power of two is no ring: a pair's "
                "bw does not predict it)"
              : "");
    }
  }
  return out;
}

nlohmann::json health_json(const HealthResult& r, const HealthRule& rule) {
  const auto evidence = [](const Evidence& e) {
    return nlohmann::json{{"metric", e.metric},
                          {"ratio", e.ratio},
                          {"p", e.p},
                          {"median_seconds", e.median_seconds},
                          {"fleet_seconds", e.fleet_seconds},
                          {"spread_log_sd", e.spread},
                          {"between_log_sd", e.between_sd},
                          {"launches", e.launches}};
  };
  nlohmann::json j{
      {"schema_version", 1},
      {"exit_code", health_exit_code(r)},
      {"rule", {{"min_effect", rule.min_effect}, {"alpha", rule.alpha}, {"outlier_z", kOutlierZ}}},
      {"seconds", r.seconds},
      {"launches", r.launches},
      {"budget_spent", r.budget_spent},
      {"stopped", r.stopped},
      {"unconfirmable", r.unconfirmable},
      {"stages", r.stages},
      {"events", r.events},
      {"fleet_seconds", r.judgement.fleet_seconds},
      {"spread_log_sd", r.judgement.spread},
      {"between_log_sd", r.judgement.between_sd},
      {"notes", r.judgement.notes}};
  j["nodes"] = nlohmann::json::array();
  for (const NodeVerdict& v : r.judgement.nodes) {
    const AloneVerdict* alone = alone_of(r, v.node);
    j["nodes"].push_back(
        {{"node", host(r, v.node)},
         {"verdict", name(v.verdict)},
         {"slow_alone", v.slow_alone},
         {"alone", alone ? nlohmann::json{{"verdict", name(alone->verdict)},
                                          {"undecided", alone->undecided},
                                          {"evidence", evidence(alone->worst)}}
                         : nlohmann::json(nullptr)},
         {"slow_pairs", v.slow_pairs},
         {"judged_pairs", v.judged_pairs},
         {"confirmation", v.confirm_slow < 0 ? nlohmann::json(nullptr)
                                             : nlohmann::json{{"slow", v.confirm_slow},
                                                              {"judged", v.confirm_judged}}},
         {"evidence", evidence(v.worst)},
         {"reason", v.reason},
         {"bad_link", v.link_only},
         {"network_path", v.network_path && v.verdict == HealthVerdict::kSlow},
         {"behind_uplink",
          v.behind_uplink.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.behind_uplink)},
         {"port_findings",
          r.port_findings.count(v.node) ? r.port_findings.at(v.node) : std::vector<std::string>{}},
         {"ib_ports_before", to_json(r.ports_before.count(v.node) ? r.ports_before.at(v.node)
                                                                  : std::vector<IbPort>{})}});
  }
  j["pairs"] = nlohmann::json::array();
  for (const PairVerdict& p : r.judgement.pairs) {
    j["pairs"].push_back(
        {{"nodes", {host(r, p.pair.first), host(r, p.pair.second)}},
         {"verdict", name(p.verdict)},
         {"undecided", p.undecided},
         {"link_fault", link_fault(r.judgement, p)},
         {"confirmation",
          p.confirm_verdict ? nlohmann::json(name(*p.confirm_verdict)) : nlohmann::json(nullptr)},
         {"evidence", evidence(p.worst)},
         {"reason", p.reason}});
  }
  j["uplinks"] = nlohmann::json::array();
  for (const UplinkVerdict& u : judge_uplinks(r.input, r.judgement)) {
    j["uplinks"].push_back({{"switch", u.leaf},
                            {"slow_crossing", u.slow_crossing},
                            {"crossing", u.crossing},
                            {"slow_within", u.slow_within},
                            {"within", u.within},
                            {"tied_with", u.tied}});
  }
  j["together"] = nlohmann::json::array();
  for (const TogetherFigure& t : r.together) {
    j["together"].push_back({{"collective", t.collective},
                             {"busbw_gbps", t.busbw_gbps},
                             {"predicted_gbps", t.predicted_gbps},
                             {"launches", t.launches},
                             {"verdict", name(t.verdict)}});
  }
  return j;
}

std::string drain_lines(const HealthResult& r) {
  std::string out;
  if (!r.stopped.empty()) return out;  // no node is to blame for the check's own setup
  for (const NodeVerdict& v : r.judgement.nodes) {
    const auto ports = r.port_findings.find(v.node);
    if (!is_bad(v.verdict) && ports == r.port_findings.end()) continue;
    std::string reason = "colltune health: " +
                         (is_bad(v.verdict) ? node_reason(r, v) : "port " + ports->second.front());
    // The reason sits inside double quotes for scontrol: no quote or newline may end it early.
    for (char& ch : reason) {
      if (ch == '"' || ch == '\n' || ch == '\r') ch = '\'';
    }
    out += fmt::format("nodename={} state=drain reason=\"{}\"\n", host(r, v.node),
                       reason.substr(0, 200));
  }
  return out;
}

}  // namespace colltune
