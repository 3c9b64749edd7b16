#include "report/compare.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "core/decision.hpp"
#include "core/sizes.hpp"
#include "report/analysis.hpp"
#include "report/compare_side.hpp"
#include "report/escape.hpp"
#include "report/view.hpp"

namespace colltune {
namespace {

using Key = CompareSide::Key;
using Series = CompareSide::Series;

bool measured(const Series& s) { return s.launch_count() > 0; }

std::string rank_text(const Series& s) { return fmt::format("{}", fmt::join(rank_counts(s), "/")); }

Comparison row_of(const Key& key, const Dataset& d) {
  Comparison c;
  c.point_id = *key.point_id;
  c.collective = *key.collective;
  c.dtype = *key.dtype;
  c.op = *key.op;
  c.in_place = key.in_place;
  c.root = key.root;
  c.bytes = key.bytes;
  const PointInfo* p = find_point(d, c.point_id);
  c.label = p ? p->label : c.point_id;
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
    case Verdict::kWrong:
      return "wrong results";
  }
  return "?";
}

bool is_gap(Verdict v) {
  return v == Verdict::kInconclusive || v == Verdict::kMissing || v == Verdict::kRankMismatch;
}

std::vector<Comparison> compare(const Dataset& base, const Dataset& cand, const CompareOptions& o) {
  return compare(compare_side(base), base, compare_side(cand), cand, o);
}

std::vector<Comparison> compare(CompareSide base_side, const Dataset& base, CompareSide cand_side,
                                const Dataset& cand, const CompareOptions& o) {
  auto& a = base_side.series();
  auto& b = cand_side.series();
  std::vector<Comparison> rows;
  // Room for every row at once: grown by doubling, the copy held old and new rows together.
  std::size_t cand_only = 0;
  for (const auto& [key, now] : b) cand_only += a.count(key) == 0;
  rows.reserve(a.size() + cand_only);
  std::vector<Pending> pending;
  // Each series leaves its side once its row is made, so the rows grow into the memory the
  // merged samples held.
  for (auto old_at = a.begin(); old_at != a.end(); old_at = a.erase(old_at)) {
    const Key& key = old_at->first;
    const Series& old = old_at->second;
    Comparison c = row_of(key, base);
    c.base_nranks = rank_counts(old).back();
    c.base_launches = old.launch_count();
    const auto it = b.find(key);
    const Series* now = it == b.end() ? nullptr : &it->second;
    if (now) {
      c.cand_nranks = rank_counts(*now).back();
      c.cand_launches = now->launch_count();
    }
    const auto done = [&] {
      rows.push_back(std::move(c));
      if (now) b.erase(it);
    };
    // Wrong results fail whatever the times say: a fast wrong answer is no answer.
    if (old.wrong > 0 || (now && now->wrong > 0)) {
      c.verdict = Verdict::kWrong;
      c.note = fmt::format("{} wrong elements in the baseline, {} in the candidate", old.wrong,
                           now ? now->wrong : 0);
      done();
      continue;
    }
    if (!now || !measured(*now) || !measured(old)) {
      c.verdict = Verdict::kMissing;
      c.note = !now             ? std::string("not in the candidate")
               : !measured(old) ? "skipped in the baseline: " + *old.skipped
                                : "skipped in the candidate: " + *now->skipped;
      done();
      continue;
    }
    if (!old.other_nranks.empty() || !now->other_nranks.empty() || old.nranks != now->nranks) {
      c.verdict = Verdict::kRankMismatch;
      c.note = fmt::format("{} ranks against {}", rank_text(old), rank_text(*now));
      done();
      continue;
    }
    CompareOptions::RunSpread run_sd = o.run_sd;
    if (const auto sd = o.run_sd_by_series.find(comparison_series_key(
            c.point_id, c.collective, c.dtype, c.op, c.in_place, c.root, c.bytes, c.base_nranks));
        sd != o.run_sd_by_series.end()) {
      run_sd = sd->second;
    }
    const LaunchTest t = run_sd.sd_log > 0
                             ? test_runs(old.launches(), now->launches(), run_sd.sd_log, run_sd.df)
                             : test_launches(old.launches(), now->launches(), o.noise_floor_sd);
    c.ratio = t.ratio;
    c.ratio_low = t.ratio_low;
    c.ratio_high = t.ratio_high;
    c.method = t.method;
    if (!t.method.empty() &&
        !(std::isfinite(t.ratio) && std::isfinite(t.p_slower) && std::isfinite(t.p_faster))) {
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
    done();
  }
  // What is left of the candidate is in it alone.
  for (const auto& [key, now] : b) {
    Comparison c = row_of(key, cand);
    c.cand_nranks = rank_counts(now).back();
    c.cand_launches = now.launch_count();
    c.verdict = now.wrong > 0 ? Verdict::kWrong : Verdict::kMissing;
    c.note = now.wrong > 0 ? fmt::format("{} wrong elements in the candidate", now.wrong)
                           : std::string("not in the baseline");
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
  const double tolerated = 1 + o.max_slowdown;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    Comparison& c = rows[pending[i].row];
    c.p_value = c.ratio >= 1 ? slower[i] : faster[i];
    if (!std::isfinite(slower[i]) || !std::isfinite(faster[i])) {
      c.verdict = Verdict::kInconclusive;
      c.note = "the adjusted p-value is not a number; nothing is decided";
    } else if (slower[i] < o.alpha && c.ratio > tolerated) {
      c.verdict = Verdict::kSlower;
    } else if (faster[i] < o.alpha && c.ratio < 1 / tolerated) {
      c.verdict = Verdict::kFaster;
    } else if (!(c.ratio_high <= tolerated)) {
      // "Same" is a claim that any slowdown stays within the tolerance: where the interval
      // reaches past it, the data has not ruled the slowdown out, so it cannot pass.
      c.verdict = Verdict::kInconclusive;
      c.note = fmt::format(
          "a slowdown beyond {:g}% is not ruled out: the 95% interval reaches {:.3f}; more "
          "launches a side narrow it",
          o.max_slowdown * 100, c.ratio_high);
      const double floor_alone = std::expm1(1.96 * o.noise_floor_sd *
                                            std::sqrt(1.0 / static_cast<double>(c.base_launches) +
                                                      1.0 / static_cast<double>(c.cand_launches)));
      if (c.method == "noise floor" && floor_alone > o.max_slowdown) {
        c.note = fmt::format(
            "the noise floor ({}) is too wide to see a {:g}% slowdown: alone it makes the "
            "interval +/-{:.0f}%; measure a tighter one (colltune noise) or give more launches",
            o.noise_floor_source, o.max_slowdown * 100, floor_alone * 100);
      }
    }
  }
  return rows;
}

std::size_t compared_count(const std::vector<Comparison>& rows) {
  std::size_t n = 0;
  for (const auto& r : rows) n += !is_gap(r.verdict) && r.verdict != Verdict::kWrong;
  return n;
}

int gate_exit_code(const std::vector<Comparison>& rows, const CompareOptions& o) {
  bool gap = false;
  for (const auto& r : rows) {
    if (r.verdict == Verdict::kSlower || r.verdict == Verdict::kWrong) return 1;
    gap = gap || is_gap(r.verdict);
  }
  // --allow-incomplete forgives some gaps, never a gate that compared nothing at all.
  if (compared_count(rows) == 0) return 3;
  return gap && !o.allow_incomplete ? 3 : 0;
}

namespace {

std::string nothing_compared_text(const std::vector<Comparison>& rows) {
  return fmt::format(
      "nothing was compared: {} ({}); a gate that compared nothing cannot pass, even with "
      "--allow-incomplete",
      rows.empty() ? std::string("neither side has a measured record")
                   : fmt::format("none of the {} rows could be compared", rows.size()),
      rows.empty() ? "all skipped, empty inputs, or a different benchmark" : "see each row's note");
}

}  // namespace

void compare_markdown(const std::vector<Comparison>& rows, const Dataset& base, const Dataset& cand,
                      const CompareOptions& o, const TextSink& out) {
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
      "# colltune compare\n\nbaseline {} against candidate {}: {} comparisons; **{} slower**, "
      "**{} with wrong results**, {} faster, {} same, **{} not compared** ({} inconclusive, {} "
      "missing, {} with other rank counts){}.\n\n",
      markdown_escape(base.source), markdown_escape(cand.source), rows.size(),
      counts[Verdict::kSlower], counts[Verdict::kWrong], counts[Verdict::kFaster],
      counts[Verdict::kSame], gaps, counts[Verdict::kInconclusive], counts[Verdict::kMissing],
      counts[Verdict::kRankMismatch],
      gaps > 0 && o.allow_incomplete ? "; allowed by --allow-incomplete" : "");
  if (compared_count(rows) == 0) md += "**" + nothing_compared_text(rows) + ".**\n\n";
  // Another MPI is another library: a difference may be the MPI's, not the nodes'.
  if (const std::string was = mpi_libraries(base), now = mpi_libraries(cand); was != now) {
    md += fmt::format("**The MPI differs**: baseline {}, candidate {}.\n\n", markdown_escape(was),
                      markdown_escape(now));
  }
  if (min_base != SIZE_MAX) {
    md +=
        fmt::format("Launches per side: at least {} baseline, {} candidate. ", min_base, min_cand);
  }
  md += fmt::format(
      "The unit is the launch: each launch's median time, compared on a log scale by {}, "
      "one-sided p-values adjusted over the comparisons (Benjamini-Hochberg). A verdict needs an "
      "adjusted p below {:g} and a change beyond {:g}%; \"same\" needs the 95% interval to stay "
      "within {:g}%, else the row is inconclusive; ratio = candidate / baseline time (above 1 is "
      "slower) with its 95% interval.\n",
      o.run_sd.sd_log > 0 || !o.run_sd_by_series.empty()
          ? fmt::format("a t-test of the two runs with the spread between runs history measured "
                        "in {} (per series; {:.2f}% pooled for the others)",
                        markdown_escape(o.noise_floor_source), std::expm1(o.run_sd.sd_log) * 100)
      : o.noise_floor_sd > 0
          ? fmt::format("a z-test with the noise floor {:.2f}% from {}",
                        std::expm1(o.noise_floor_sd) * 100, markdown_escape(o.noise_floor_source))
          : std::string("Welch's t-test"),
      o.alpha, o.max_slowdown * 100, o.max_slowdown * 100);
  if (!rows.empty()) {
    md +=
        "\n| verdict | configuration | collective | size | ratio | 95% interval | launches | "
        "p | note |\n|---|---|---|---:|---:|---|---|---:|---|\n";
  }
  out(md);
  // A row at a time: 10^6 rows are 0.1 GB of text, which need not be held.
  for (const auto& r : rows) {
    const bool tested = !r.method.empty();
    out(fmt::format("| {} | {} | {} {} {}{} | {} | {} | {} | {} / {} | {} | {} |\n",
                    name(r.verdict), markdown_escape(r.label), markdown_escape(r.collective),
                    markdown_escape(r.dtype), markdown_escape(r.op), r.in_place ? " in-place" : "",
                    format_bytes(r.bytes), r.ratio > 0 ? fmt::format("{:.3f}", r.ratio) : "",
                    tested ? fmt::format("{:.3f}-{:.3f}", r.ratio_low, r.ratio_high) : "",
                    r.base_launches, r.cand_launches,
                    tested ? fmt::format("{:.2g}", r.p_value) : "", markdown_escape(r.note)));
  }
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
    } else if (r.verdict == Verdict::kWrong) {
      ++failures;
      cases += fmt::format("      <failure message=\"wrong results: {}\"/>\n", html_escape(r.note));
    } else if (is_gap(r.verdict)) {
      // A comparison that could not be made is an error of the gate unless the user relaxed it.
      (o.allow_incomplete ? skipped : errors)++;
      cases +=
          fmt::format("      <{} message=\"{}: {}\"/>\n", o.allow_incomplete ? "skipped" : "error",
                      name(r.verdict), html_escape(r.note));
    }
    cases += "    </testcase>\n";
  }
  std::size_t tests = rows.size();
  if (compared_count(rows) == 0) {
    // A CI that reads tests=0 as green would pass an empty gate: one failing case says why.
    ++tests;
    ++failures;
    cases += fmt::format(
        "    <testcase classname=\"colltune.compare\" name=\"anything compared\">\n      "
        "<failure message=\"{}\"/>\n    </testcase>\n",
        html_escape(nothing_compared_text(rows)));
  }
  return junit_document("compare", tests, failures, errors, skipped, cases);
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
