#include "report/compare.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "core/sizes.hpp"
#include "core/stats.hpp"
#include "report/analysis.hpp"
#include "report/escape.hpp"

namespace colltune {
namespace {

using Key = std::tuple<std::string, std::string, std::string, std::string, bool, std::uint64_t>;

struct Merged {
  std::vector<double> samples;
  int nranks = 0;
  std::string label;
};

std::map<Key, Merged> merge(const Dataset& d) {
  std::map<Key, Merged> out;
  for (const Record& r : d.records) {
    if (r.skipped) continue;
    Merged& m = out[{r.point_id, r.collective, r.dtype, r.op, r.in_place, r.bytes}];
    m.samples.insert(m.samples.end(), r.samples_seconds.begin(), r.samples_seconds.end());
    m.nranks = r.nranks;
    const PointInfo* p = find_point(d, r.point_id);
    m.label = p ? p->label : r.point_id;
  }
  return out;
}

Comparison row_of(const Key& key, const std::string& label) {
  Comparison c;
  std::tie(c.point_id, c.collective, c.dtype, c.op, c.in_place, c.bytes) = key;
  c.label = label;
  return c;
}

std::string case_name(const Comparison& c) {
  return fmt::format("{} {} {} {} {} {}", c.label, c.dtype, c.op, format_bytes(c.bytes),
                     c.in_place ? "in-place" : "out-of-place", c.collective);
}

}  // namespace

std::string_view name(Verdict v) {
  switch (v) {
    case Verdict::kSlower:
      return "slower";
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSame:
      return "same";
    case Verdict::kTooFewSamples:
      return "too few samples";
    case Verdict::kMissing:
      return "missing";
    case Verdict::kRankMismatch:
      return "rank counts differ";
  }
  return "?";
}

std::vector<Comparison> compare(const Dataset& base, const Dataset& cand, const CompareOptions& o) {
  const auto a = merge(base);
  const auto b = merge(cand);
  std::vector<Comparison> rows;
  for (const auto& [key, old] : a) {
    Comparison c = row_of(key, old.label);
    c.base_nranks = old.nranks;
    c.base_samples = old.samples.size();
    const auto it = b.find(key);
    if (it == b.end()) {
      c.verdict = Verdict::kMissing;
      c.note = "not in the candidate";
      rows.push_back(std::move(c));
      continue;
    }
    const Merged& now = it->second;
    c.cand_nranks = now.nranks;
    c.cand_samples = now.samples.size();
    const Summary s_old = summarize(old.samples), s_new = summarize(now.samples);
    if (s_old.median > 0) {
      c.ratio = s_new.median / s_old.median;
      c.ratio_low = s_old.ci_high > 0 ? s_new.ci_low / s_old.ci_high : 0;
      c.ratio_high = s_old.ci_low > 0 ? s_new.ci_high / s_old.ci_low : 0;
    }
    c.p_value = mann_whitney_p(old.samples, now.samples);
    if (old.nranks != now.nranks) {
      c.verdict = Verdict::kRankMismatch;
      c.note = fmt::format("{} ranks against {}", old.nranks, now.nranks);
    } else if (std::min(c.base_samples, c.cand_samples) < o.min_samples) {
      c.verdict = Verdict::kTooFewSamples;
      c.note = fmt::format("{} and {} samples; a verdict needs {} on each side", c.base_samples,
                           c.cand_samples, o.min_samples);
    } else if (c.p_value < o.alpha && c.ratio > 1 + o.max_slowdown) {
      c.verdict = Verdict::kSlower;
    } else if (c.p_value < o.alpha && c.ratio < 1 / (1 + o.max_slowdown)) {
      c.verdict = Verdict::kFaster;
    }
    rows.push_back(std::move(c));
  }
  for (const auto& [key, now] : b) {
    if (a.count(key)) continue;
    Comparison c = row_of(key, now.label);
    c.cand_nranks = now.nranks;
    c.cand_samples = now.samples.size();
    c.verdict = Verdict::kMissing;
    c.note = "not in the baseline";
    rows.push_back(std::move(c));
  }
  return rows;
}

bool any_regression(const std::vector<Comparison>& rows) {
  for (const auto& r : rows) {
    if (r.verdict == Verdict::kSlower) return true;
  }
  return false;
}

std::string compare_markdown(const std::vector<Comparison>& rows, const Dataset& base,
                             const Dataset& cand, const CompareOptions& o) {
  std::map<Verdict, int> counts;
  for (const auto& r : rows) ++counts[r.verdict];
  std::string md = fmt::format(
      "# colltune compare\n\nbaseline {} against candidate {}: {} comparisons; **{} slower**, {} "
      "faster, {} same, {} with too few samples, {} missing, {} with other rank counts.\n\n"
      "A verdict needs a Mann-Whitney p below {:g} and a change beyond {:g}% in the median time; "
      "ratio = candidate / baseline time (above 1 is slower), with the range its medians' 95% "
      "intervals allow.\n",
      markdown_escape(base.source), markdown_escape(cand.source), rows.size(),
      counts[Verdict::kSlower], counts[Verdict::kFaster], counts[Verdict::kSame],
      counts[Verdict::kTooFewSamples], counts[Verdict::kMissing], counts[Verdict::kRankMismatch],
      o.alpha, o.max_slowdown * 100);
  bool header = false;
  for (const auto& r : rows) {
    if (r.verdict == Verdict::kSame) continue;
    if (!header) {
      md +=
          "\n| verdict | configuration | collective | size | ratio | range | p | note |\n"
          "|---|---|---|---:|---:|---|---:|---|\n";
      header = true;
    }
    md +=
        fmt::format("| {} | {} | {} {} {}{} | {} | {} | {} | {} | {} |\n", name(r.verdict),
                    markdown_escape(r.label), markdown_escape(r.collective),
                    markdown_escape(r.dtype), markdown_escape(r.op), r.in_place ? " in-place" : "",
                    format_bytes(r.bytes), r.ratio > 0 ? fmt::format("{:.3f}", r.ratio) : "",
                    r.ratio > 0 ? fmt::format("{:.3f}-{:.3f}", r.ratio_low, r.ratio_high) : "",
                    r.ratio > 0 ? fmt::format("{:.2g}", r.p_value) : "", markdown_escape(r.note));
  }
  return md;
}

std::string compare_junit(const std::vector<Comparison>& rows) {
  int failures = 0, skipped = 0;
  std::string cases;
  for (const auto& r : rows) {
    cases += fmt::format("    <testcase classname=\"colltune.{}\" name=\"{}\">\n",
                         html_escape(r.collective), html_escape(case_name(r)));
    if (r.verdict == Verdict::kSlower) {
      ++failures;
      cases += fmt::format("      <failure message=\"{:.1f}% slower (ratio {:.3f}, p={:.2g})\"/>\n",
                           (r.ratio - 1) * 100, r.ratio, r.p_value);
    } else if (r.verdict == Verdict::kTooFewSamples || r.verdict == Verdict::kMissing ||
               r.verdict == Verdict::kRankMismatch) {
      ++skipped;
      cases += fmt::format("      <skipped message=\"{}: {}\"/>\n", name(r.verdict),
                           html_escape(r.note));
    }
    cases += "    </testcase>\n";
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"colltune "
      "compare\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n{}  </testsuite>\n</testsuites>\n",
      rows.size(), failures, skipped, cases);
}

}  // namespace colltune
