#include "report/verify.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/decision.hpp"
#include "report/analysis.hpp"

namespace colltune {
namespace {

struct SizeResult {
  std::string collective;
  std::uint64_t bytes = 0;
  std::uint64_t wrong = 0;  // wrong elements in either point's records at this size
  LaunchTest test;
  double p_beyond = 1, p_slower = 1, p_faster = 1;  // adjusted
};

constexpr const char* kSlightlySlower = "slightly slower, not shown beyond 5%";
constexpr const char* kWrongResults = "WRONG RESULTS";

bool told(const std::string& verdict) { return verdict.rfind("could not tell", 0) != 0; }

// Slower only where the data shows more than the smallest slowdown worth not deploying for (the
// null is "at most 5% slower", not "equal"): launches here drift a few percent in regimes, and
// testing against equality with the 5% on the point estimate called a file restating the
// defaults slower in 3 of 80 verifies (docs/statistics.md).
std::string verdict_of(const SizeResult& s) {
  if (s.wrong > 0) return kWrongResults;
  if (s.test.method.empty()) return "could not tell (" + s.test.why_not + ")";
  if (s.p_beyond < kSignificanceLevel) return "slower";
  // Not shown slower is not shown safe: where the interval reaches past 5% the data has not
  // ruled a slowdown out ([0.005, 514] is no evidence either way).
  if (!(s.test.ratio_high <= 1 + kVerifyMaxSlowdown)) {
    return fmt::format("could not tell (the interval reaches {:.3f}, past {:.2f})",
                       s.test.ratio_high, 1 + kVerifyMaxSlowdown);
  }
  if (s.p_slower < kSignificanceLevel && s.test.ratio > 1) return kSlightlySlower;
  if (s.p_faster < kSignificanceLevel) return "faster";
  return "same";
}

// The rows of `f` that apply to a communicator of `nranks`: for a rules file, Open MPI applies
// the largest listed comm size at or below it; plugin rows, their own rank count; env, all.
std::vector<const VerifiedRow*> applicable(const TunedFile& f, int nranks) {
  std::vector<const VerifiedRow*> out;
  for (const VerifiedRow& row : f.rows) {
    if (row.nranks == 0 || (f.kind != TunedKind::kOmpiRules && row.nranks == nranks)) {
      out.push_back(&row);
      continue;
    }
    if (f.kind != TunedKind::kOmpiRules || row.nranks > nranks) continue;
    const bool larger_listed = std::any_of(f.rows.begin(), f.rows.end(), [&](const auto& r) {
      return r.collective == row.collective && r.nranks > row.nranks && r.nranks <= nranks;
    });
    if (!larger_listed) out.push_back(&row);
  }
  return out;
}

}  // namespace

std::optional<std::string> plugin_not_applied(const Dataset& d, const TunedFile& f,
                                              std::string& seen) {
  for (const PointInfo& p : d.points) {
    if (p.baseline) continue;
    const auto context = d.contexts.find(p.id);
    const nlohmann::json settings =
        context == d.contexts.end()
            ? nlohmann::json::object()
            : context->second.value("backend_settings", nlohmann::json::object());
    if (!settings.is_object() || !settings.contains("tuner_plugin") ||
        !settings["tuner_plugin"].is_string()) {
      return "the tuned launches' records do not say that NCCL loaded colltune's tuner plugin "
             "(no tuner_plugin among their backend settings)";
    }
    const std::string text = settings["tuner_plugin"].get<std::string>();
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) return "NCCL did not load colltune's tuner plugin: " + text;
    const auto count = [&](const char* key) { return j.value(key, std::int64_t{0}); };
    if (count("rows") == 0) {
      return fmt::format(
          "NCCL loaded colltune's tuner plugin, but none of the {} rows of {} is for this "
          "communicator: NCCL counts {} ranks on {} node(s), the file's rows are for {} node(s){}",
          count("rows_in_file"), f.path, count("nranks"), count("nnodes"), f.nnodes,
          j.value("note", "").empty() ? "" : " (" + j.value("note", "") + ")");
    }
    seen = fmt::format(
        "NCCL loaded colltune's tuner plugin: {} of its {} rows for this communicator ({} ranks on "
        "{} node(s), as NCCL counts them)\n",
        count("rows"), count("rows_in_file"), count("nranks"), count("nnodes"));
  }
  return std::nullopt;
}

VerifyOutcome verify_dataset(const Dataset& d, const TunedFile& f, int nranks) {
  VerifyOutcome out;
  // A plugin file measured where NCCL never applied it measures the defaults twice: "no
  // measurable gain" would be a claim about nothing.
  if (f.kind == TunedKind::kNcclPlugin) {
    if (const auto why = plugin_not_applied(d, f, out.text)) {
      out.exit_code = kVerifyCannotTell;
      out.text = "verify: could not tell: " + *why + "\n";
      return out;
    }
  }
  std::vector<SizeResult> sizes;
  for (const Panel& panel : build_panels(d)) {
    if (panel.key.nranks != nranks || panel.key.in_place) continue;
    std::string base, tuned;
    for (const std::string& id : panel.point_ids) {
      const PointInfo* p = find_point(d, id);
      (p != nullptr && p->baseline ? base : tuned) = id;
    }
    if (base.empty() || tuned.empty()) continue;
    for (std::uint64_t bytes : panel.sizes) {
      const auto b = panel.cells.at(base).find(bytes);
      const auto t = panel.cells.at(tuned).find(bytes);
      if (b == panel.cells.at(base).end() || t == panel.cells.at(tuned).end()) continue;
      sizes.push_back({panel.key.collective, bytes,
                       b->second.wrong.value_or(0) + t->second.wrong.value_or(0),
                       test_launches(b->second.launches, t->second.launches)});
    }
  }
  std::vector<double> beyond, slower, faster;
  for (const SizeResult& s : sizes) {
    beyond.push_back(p_slower_beyond(s.test, 1 + kVerifyMaxSlowdown));
    slower.push_back(s.test.method.empty() ? 1.0 : s.test.p_slower);
    faster.push_back(s.test.method.empty() ? 1.0 : s.test.p_faster);
  }
  beyond = benjamini_hochberg(beyond);
  slower = benjamini_hochberg(slower);
  faster = benjamini_hochberg(faster);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    sizes[i].p_beyond = beyond[i];
    sizes[i].p_slower = slower[i];
    sizes[i].p_faster = faster[i];
  }
  int told_rows = 0, slow_rows = 0, untold_rows = 0;
  std::vector<std::string> not_to_deploy;
  for (const VerifiedRow* row : applicable(f, nranks)) {
    std::vector<const SizeResult*> in;
    for (const SizeResult& s : sizes) {
      if (s.collective == row->collective && s.bytes >= row->min_bytes && s.bytes <= row->max_bytes)
        in.push_back(&s);
    }
    int slow = 0, slight = 0, fast = 0, decided = 0, wrong = 0;
    std::string lines;
    for (const SizeResult* s : in) {
      const std::string v = verdict_of(*s);
      slow += v == "slower";
      wrong += v == kWrongResults;
      slight += v == kSlightlySlower;
      fast += v == "faster";
      decided += told(v);
      lines += s->test.method.empty()
                   ? fmt::format("    {} B: {}\n", s->bytes, v)
                   : fmt::format(
                         "    {} B: tuned/default time {:.3f} [{:.3f}, {:.3f}] (speedup {:.3f}), "
                         "{} and {} launches: {}\n",
                         s->bytes, s->test.ratio, s->test.ratio_low, s->test.ratio_high,
                         1 / s->test.ratio, s->test.base_launches, s->test.cand_launches, v);
    }
    const std::string verdict = in.empty()  ? "could not tell (no size of it was measured)"
                                : wrong > 0 ? "WRONG RESULTS: do not deploy this row"
                                : slow > 0  ? "SLOWER: do not deploy this row"
                                : decided < static_cast<int>(in.size())
                                    ? "could not tell (a slowdown at some size is "
                                      "not ruled out)"
                                : slight > 0 ? "within 5%: slightly slower at some size"
                                : fast > 0   ? "faster"
                                             : "no measurable gain";
    const bool row_told = !in.empty() && decided == static_cast<int>(in.size());
    told_rows += row_told;
    untold_rows += !row_told && slow == 0 && wrong == 0;
    if (slow > 0 || wrong > 0) {
      ++slow_rows;
      not_to_deploy.push_back(row->what);
    }
    out.text += fmt::format("{} {} B{} ({}): {}\n{}", row->collective, row->min_bytes,
                            row->max_bytes == UINT64_MAX ? std::string(" and up")
                                                         : fmt::format("-{} B", row->max_bytes),
                            row->what, verdict, lines);
  }
  if (slow_rows > 0) {
    out.exit_code = kVerifySlower;
    out.text += fmt::format("verify: slower or wrong at {} row(s); do not deploy: {}\n", slow_rows,
                            fmt::format("{}", fmt::join(not_to_deploy, "; ")));
  } else if (told_rows == 0 || untold_rows > 0) {
    out.exit_code = kVerifyCannotTell;
    out.text += untold_rows == 0
                    ? "verify: could not tell: no row of the file was measured here\n"
                    : fmt::format(
                          "verify: could not tell at {} of {} row(s): a slowdown there is not "
                          "ruled out (too few launches, or too noisy; more --rounds may)\n",
                          untold_rows, told_rows + untold_rows);
  } else {
    out.exit_code = kVerifyNotSlower;
    out.text += "verify: nowhere shown slower by more than 5%\n";
  }
  return out;
}

}  // namespace colltune
