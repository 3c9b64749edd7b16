#include "report/compare.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <tuple>

#include "core/decision.hpp"
#include "core/sizes.hpp"
#include "report/analysis.hpp"
#include "report/escape.hpp"

namespace colltune {
namespace {

using Key =
    std::tuple<std::string, std::string, std::string, std::string, bool, int, std::uint64_t>;

struct Merged {
  std::map<int, std::vector<double>> launches;  // round -> samples
  int nranks = 0;
  std::string label;
};

std::map<Key, Merged> merge(const Dataset& d) {
  std::map<Key, Merged> out;
  for (const Record& r : d.records) {
    if (r.skipped) continue;
    Merged& m = out[{r.point_id, r.collective, r.dtype, r.op, r.in_place, r.root, r.bytes}];
    auto& samples = m.launches[r.round];
    samples.insert(samples.end(), r.samples_seconds.begin(), r.samples_seconds.end());
    m.nranks = r.nranks;
    const PointInfo* p = find_point(d, r.point_id);
    m.label = p ? p->label : r.point_id;
  }
  return out;
}

LaunchSamples launches_of(const Merged& m) {
  LaunchSamples out;
  for (const auto& [round, samples] : m.launches) out.push_back(samples);
  return out;
}

Comparison row_of(const Key& key, const std::string& label) {
  Comparison c;
  std::tie(c.point_id, c.collective, c.dtype, c.op, c.in_place, c.root, c.bytes) = key;
  c.label = label;
  return c;
}

std::string case_name(const Comparison& c) {
  return fmt::format("{} {} {} {} {} {}", c.label, c.dtype, c.op, format_bytes(c.bytes),
                     c.in_place ? "in-place" : "out-of-place", c.collective);
}

// The test's one-sided p-values, kept until the whole family is known for the adjustment.
struct Pending {
  std::size_t row;
  double p_slower, p_faster;
};

}  // namespace

std::string comparison_series_key(const std::string& point_id, const std::string& collective,
                                  const std::string& dtype, const std::string& op, bool in_place,
                                  int root, std::uint64_t bytes, int nranks) {
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}", point_id, collective, dtype, op,
                     in_place ? "in" : "out", root, bytes, nranks);
}

std::string_view name(Verdict v) {
  switch (v) {
    case Verdict::kSlower:
      return "slower";
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSame:
      return "same";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kMissing:
      return "missing";
    case Verdict::kRankMismatch:
      return "rank counts differ";
  }
  return "?";
}

bool is_gap(Verdict v) {
  return v == Verdict::kInconclusive || v == Verdict::kMissing || v == Verdict::kRankMismatch;
}

std::vector<Comparison> compare(const Dataset& base, const Dataset& cand, const CompareOptions& o) {
  const auto a = merge(base);
  const auto b = merge(cand);
  std::vector<Comparison> rows;
  std::vector<Pending> pending;
  for (const auto& [key, old] : a) {
    Comparison c = row_of(key, old.label);
    c.base_nranks = old.nranks;
    c.base_launches = old.launches.size();
    const auto it = b.find(key);
    if (it == b.end()) {
      c.verdict = Verdict::kMissing;
      c.note = "not in the candidate";
      rows.push_back(std::move(c));
      continue;
    }
    const Merged& now = it->second;
    c.cand_nranks = now.nranks;
    c.cand_launches = now.launches.size();
    CompareOptions::RunSpread run_sd = o.run_sd;
    if (const auto sd = o.run_sd_by_series.find(comparison_series_key(
            c.point_id, c.collective, c.dtype, c.op, c.in_place, c.root, c.bytes, old.nranks));
        sd != o.run_sd_by_series.end()) {
      run_sd = sd->second;
    }
    const LaunchTest t =
        run_sd.sd_log > 0 ? test_runs(launches_of(old), launches_of(now), run_sd.sd_log, run_sd.df)
                          : test_launches(launches_of(old), launches_of(now), o.noise_floor_sd);
    c.ratio = t.ratio;
    c.ratio_low = t.ratio_low;
    c.ratio_high = t.ratio_high;
    c.method = t.method;
    if (old.nranks != now.nranks) {
      c.verdict = Verdict::kRankMismatch;
      c.note = fmt::format("{} ranks against {}", old.nranks, now.nranks);
    } else if (!t.method.empty() && !(std::isfinite(t.ratio) && std::isfinite(t.p_slower) &&
                                      std::isfinite(t.p_faster))) {
      // Fail closed: a NaN compares false with every threshold, which would read as "same".
      c.verdict = Verdict::kInconclusive;
      c.note = fmt::format("the test gave no number (ratio {}, p {} / {}); nothing is decided",
                           t.ratio, t.p_slower, t.p_faster);
    } else if (t.method.empty()) {
      c.verdict = Verdict::kInconclusive;
      c.note = fmt::format(
          "{} and {} launches: {}; give each side two launches or more (sweep "
          "rounds, or several run files), or --noise-floor",
          c.base_launches, c.cand_launches, t.why_not);
    } else {
      pending.push_back({rows.size(), t.p_slower, t.p_faster});
    }
    rows.push_back(std::move(c));
  }
  for (const auto& [key, now] : b) {
    if (a.count(key)) continue;
    Comparison c = row_of(key, now.label);
    c.cand_nranks = now.nranks;
    c.cand_launches = now.launches.size();
    c.verdict = Verdict::kMissing;
    c.note = "not in the baseline";
    rows.push_back(std::move(c));
  }
  // Many sizes are tested at once: adjust over the family so that an unchanged candidate fails
  // the gate with probability about alpha, not alpha per size.
  std::vector<double> slower, faster;
  for (const auto& p : pending) {
    slower.push_back(p.p_slower);
    faster.push_back(p.p_faster);
  }
  slower = benjamini_hochberg(slower);
  faster = benjamini_hochberg(faster);
  for (std::size_t i = 0; i < pending.size(); ++i) {
    Comparison& c = rows[pending[i].row];
    c.p_value = c.ratio >= 1 ? slower[i] : faster[i];
    if (!std::isfinite(slower[i]) || !std::isfinite(faster[i])) {
      c.verdict = Verdict::kInconclusive;
      c.note = "the adjusted p-value is not a number; nothing is decided";
    } else if (slower[i] < o.alpha && c.ratio > 1 + o.max_slowdown) {
      c.verdict = Verdict::kSlower;
    } else if (faster[i] < o.alpha && c.ratio < 1 / (1 + o.max_slowdown)) {
      c.verdict = Verdict::kFaster;
    }
  }
  return rows;
}

int gate_exit_code(const std::vector<Comparison>& rows, const CompareOptions& o) {
  bool gap = false;
  for (const auto& r : rows) {
    if (r.verdict == Verdict::kSlower) return 1;
    gap = gap || is_gap(r.verdict);
  }
  return gap && !o.allow_incomplete ? 3 : 0;
}

std::string compare_markdown(const std::vector<Comparison>& rows, const Dataset& base,
                             const Dataset& cand, const CompareOptions& o) {
  std::map<Verdict, int> counts;
  std::size_t min_base = SIZE_MAX, min_cand = SIZE_MAX;
  for (const auto& r : rows) {
    ++counts[r.verdict];
    if (r.verdict == Verdict::kMissing) continue;
    min_base = std::min(min_base, r.base_launches);
    min_cand = std::min(min_cand, r.cand_launches);
  }
  const int gaps =
      counts[Verdict::kInconclusive] + counts[Verdict::kMissing] + counts[Verdict::kRankMismatch];
  std::string md = fmt::format(
      "# colltune compare\n\nbaseline {} against candidate {}: {} comparisons; **{} slower**, {} "
      "faster, {} same, **{} not compared** ({} inconclusive, {} missing, {} with other rank "
      "counts){}.\n\n",
      markdown_escape(base.source), markdown_escape(cand.source), rows.size(),
      counts[Verdict::kSlower], counts[Verdict::kFaster], counts[Verdict::kSame], gaps,
      counts[Verdict::kInconclusive], counts[Verdict::kMissing], counts[Verdict::kRankMismatch],
      gaps > 0 && o.allow_incomplete ? "; allowed by --allow-incomplete" : "");
  if (min_base != SIZE_MAX) {
    md +=
        fmt::format("Launches per side: at least {} baseline, {} candidate. ", min_base, min_cand);
  }
  md += fmt::format(
      "The unit is the launch: each launch's median time, compared on a log scale by {}, "
      "one-sided p-values adjusted over the comparisons (Benjamini-Hochberg). A verdict needs an "
      "adjusted p below {:g} and a change beyond {:g}%; ratio = candidate / baseline time (above "
      "1 is slower) with its 95% interval.\n",
      o.run_sd.sd_log > 0 || !o.run_sd_by_series.empty()
          ? fmt::format("a t-test of the two runs with the spread between runs history measured "
                        "in {} (per series; {:.2f}% pooled for the others)",
                        markdown_escape(o.noise_floor_source), std::expm1(o.run_sd.sd_log) * 100)
      : o.noise_floor_sd > 0
          ? fmt::format("a z-test with the noise floor {:.2f}% from {}",
                        std::expm1(o.noise_floor_sd) * 100, markdown_escape(o.noise_floor_source))
          : std::string("Welch's t-test"),
      o.alpha, o.max_slowdown * 100);
  bool header = false;
  for (const auto& r : rows) {
    if (r.verdict == Verdict::kSame) continue;
    if (!header) {
      md +=
          "\n| verdict | configuration | collective | size | ratio | 95% interval | launches | "
          "p | note |\n|---|---|---|---:|---:|---|---|---:|---|\n";
      header = true;
    }
    const bool tested = !r.method.empty();
    md += fmt::format(
        "| {} | {} | {} {} {}{} | {} | {} | {} | {} / {} | {} | {} |\n", name(r.verdict),
        markdown_escape(r.label), markdown_escape(r.collective), markdown_escape(r.dtype),
        markdown_escape(r.op), r.in_place ? " in-place" : "", format_bytes(r.bytes),
        r.ratio > 0 ? fmt::format("{:.3f}", r.ratio) : "",
        tested ? fmt::format("{:.3f}-{:.3f}", r.ratio_low, r.ratio_high) : "", r.base_launches,
        r.cand_launches, tested ? fmt::format("{:.2g}", r.p_value) : "", markdown_escape(r.note));
  }
  return md;
}

std::string compare_junit(const std::vector<Comparison>& rows, const CompareOptions& o) {
  int failures = 0, errors = 0, skipped = 0;
  std::string cases;
  for (const auto& r : rows) {
    cases += fmt::format("    <testcase classname=\"colltune.{}\" name=\"{}\">\n",
                         html_escape(r.collective), html_escape(case_name(r)));
    if (r.verdict == Verdict::kSlower) {
      ++failures;
      cases += fmt::format(
          "      <failure message=\"{:.1f}% slower (ratio {:.3f}, interval {:.3f}-{:.3f}, "
          "adjusted p={:.2g}, {} and {} launches)\"/>\n",
          (r.ratio - 1) * 100, r.ratio, r.ratio_low, r.ratio_high, r.p_value, r.base_launches,
          r.cand_launches);
    } else if (is_gap(r.verdict)) {
      // A comparison that could not be made is an error of the gate unless the user relaxed it.
      (o.allow_incomplete ? skipped : errors)++;
      cases +=
          fmt::format("      <{} message=\"{}: {}\"/>\n", o.allow_incomplete ? "skipped" : "error",
                      name(r.verdict), html_escape(r.note));
    }
    cases += "    </testcase>\n";
  }
  return junit_document("compare", rows.size(), failures, errors, skipped, cases);
}

std::string junit_document(const std::string& suite, std::size_t tests, int failures, int errors,
                           int skipped, const std::string& cases) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"colltune "
      "{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n{}  "
      "</testsuite>\n</testsuites>\n",
      html_escape(suite), tests, failures, errors, skipped, cases);
}

}  // namespace colltune
