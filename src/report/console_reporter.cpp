#include "report/console_reporter.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/exchange.hpp"
#include "core/mpi_family.hpp"
#include "knobs/interleave.hpp"
#include "report/sampling_text.hpp"

namespace colltune {
namespace {

// A median whose interval spans more than this fraction of it is flagged as noisy.
constexpr double kNoisyCiWidth = 0.10;

bool noisy(const Measurement& m) {
  return !m.skipped && relative_ci_width(m.summary) > kNoisyCiWidth;
}

std::string root_text(const Collective& c) {
  return has_root(c.kind) ? fmt::format("{}", c.root) : "-1";
}

}  // namespace

std::string format_half_row(const Measurement& m) {
  if (m.skipped) return fmt::format("{:>8} {:>7} {:>7} {:>6}", "--", "--", "--", "skip");
  const std::string wrong = m.wrong ? fmt::format("{}", *m.wrong) : "N/A";
  return fmt::format("{:>8.2f} {:>7.2f} {:>7.2f} {:>6}", m.summary.median * 1e6,
                     m.at_median.algbw_gbps, m.at_median.busbw_gbps, wrong);
}

void ConsoleReporter::begin(const RunContext& c) {
  const std::string per_process =
      c.gpus_per_process > 1 ? fmt::format(" ({} process(es) x {} GPUs)",
                                           c.nranks / c.gpus_per_process, c.gpus_per_process)
                             : "";
  fmt::print(out_, "# colltune {} ({}) | backend {} | {} ranks{} on {} host(s)\n",
             c.colltune_version, c.git_revision, c.backend, c.nranks, per_process, c.hosts.size());
  fmt::print(out_, "# timing {}: {}; a sample is {} over ranks; time is the median\n",
             name(c.timing), sampling_text(sampling_plan(c)),
             c.rank_reduction == RankReduction::kRank0  ? "rank 0's time, not reduced"
             : c.rank_reduction == RankReduction::kMean ? "the mean"
             : c.rank_reduction == RankReduction::kMin  ? "the min"
                                                        : "the max");
  fmt::print(out_, "# cache {} | check {} | algbw and busbw in GB/s (1e9 bytes) as nccl-tests\n",
             name(c.cache),
             c.check_rounds > 0 ? fmt::format("{} round(s)", c.check_rounds) : "off");
  check_asked_ = c.check_rounds > 0;
  for (const auto& [lib, version] : c.library_versions) {
    // MPICH's text is many lines with its configure line (2 KB): the record keeps it whole.
    const bool parsed = lib == "mpi" && !c.mpi_family.empty();
    fmt::print(out_, "# {}: {}\n", lib,
               parsed ? MpiIdentity{c.mpi_family, c.mpi_version}.text() : version);
  }
  if (!c.backend_settings.empty()) {
    std::vector<std::string> settings;
    for (const auto& [key, value] : c.backend_settings) settings.push_back(key + " " + value);
    fmt::print(out_, "# {} settings: {}\n", c.backend, fmt::join(settings, ", "));
  }
  for (const auto& p : c.placement) {
    fmt::print(out_, "#  rank {:>3} on {} cpus {}{}\n", p.rank, p.host, p.cpus,
               p.gpu.empty() ? "" : fmt::format(" gpu {} {}", p.gpu, p.gpu_model));
  }
  for (const auto& w : c.warnings) fmt::print(out_, "# warning: {}\n", w);
  std::fflush(out_);
}

void ConsoleReporter::add(const Measurement& m) {
  if (table_ != m.coll.kind) {
    close_table();
    table_ = m.coll.kind;
    fmt::print(out_, "#\n# Collective: {}\n", name(m.coll.kind));
    if (m.coll.kind == CollKind::kAlltoallv) {
      // Whole elements flatten a pattern at small sizes (2 elements cannot split 2:1), and the
      // table opens at the smallest: the header gives the pattern's own skew, taken at a size
      // where rounding no longer matters; each record and CSV row carries its own.
      Collective large = m.coll;
      large.count = std::size_t{1} << 24;
      const double imbalance = exchange_totals(large, m.nranks).imbalance;
      fmt::print(out_,
                 "# exchange {} (seed {}): the busiest rank moves {:.2f}x the mean{}; size is the "
                 "mean bytes per rank, algbw is from the busiest rank's bytes\n",
                 exchange_name(m.coll.exchange), m.coll.exchange.seed, imbalance,
                 imbalance > 1 ? " (less at small sizes, in whole elements)" : "");
    }
    fmt::print(out_, "#{:>83}{:>34}\n", "out-of-place", "in-place");
    fmt::print(
        out_,
        "#{:>11} {:>13} {:>9} {:>7} {:>6}  {:>8} {:>7} {:>7} {:>6}   {:>8} {:>7} {:>7} {:>6}\n",
        "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
        "algbw", "busbw", "#wrong");
    fmt::print(
        out_,
        "#{:>11} {:>13} {:>9} {:>7} {:>6}  {:>8} {:>7} {:>7} {:>6}   {:>8} {:>7} {:>7} {:>6}\n",
        "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
        "");
    if (messages_per_second(m.coll, m.nranks, 1) > 0) {
      // osu_mbw_mr's figures beside OSU's per-pair bandwidth.
      fmt::print(out_,
                 "# {} pair(s) (r, r + n/2) at once; algbw per pair; rate: out-of-place "
                 "messages/s over all pairs (osu_mbw_mr)\n",
                 point_to_point_pairs(m.nranks));
    }
  }
  if (m.skipped) {
    skips_.insert(
        {fmt::format("{}{}", name(m.coll.kind), m.coll.in_place ? " in-place" : ""), *m.skipped});
  } else {
    busbw_sum_ += m.at_median.busbw_gbps;
    ++busbw_rows_;
  }
  if (m.wrong) {
    checked_ = true;
    wrong_total_ += *m.wrong;
  }
  const auto waiting = pending_.find(m.in_process_knobs);
  if (!m.coll.in_place) {
    if (waiting != pending_.end()) print_row(waiting->second, std::nullopt);
    pending_.insert_or_assign(m.in_process_knobs, m);
    return;
  }
  if (waiting == pending_.end()) {
    print_row(std::nullopt, m);
    return;
  }
  print_row(waiting->second, m);
  pending_.erase(waiting);
}

void ConsoleReporter::print_row(const std::optional<Measurement>& oop,
                                const std::optional<Measurement>& ip) {
  const Measurement& any = oop ? *oop : *ip;
  const auto half = [](const std::optional<Measurement>& m) {
    return m ? format_half_row(*m) : fmt::format("{:>8} {:>7} {:>7} {:>6}", "", "", "", "--");
  };
  const bool flag = (oop && noisy(*oop)) || (ip && noisy(*ip));
  noisy_in_table_ = noisy_in_table_ || flag;
  std::vector<std::string> knobs;  // --interleave: which setting the row measured
  for (const auto& [knob, value] : any.in_process_knobs) {
    knobs.push_back(fmt::format("{}={}", parameter_name(knob), value));
  }
  // Racing: how each half's sampling ended ("eliminated@8": after turn 8).
  std::vector<std::string> races;
  for (const auto* m : {oop ? &*oop : nullptr, ip ? &*ip : nullptr}) {
    if (m != nullptr && m->race != RaceOutcome::kNotRaced) {
      races.push_back(fmt::format("{}@{}", name(m->race), m->race_turn));
    }
  }
  const double rate =
      oop && !oop->skipped ? messages_per_second(oop->coll, oop->nranks, oop->summary.median) : 0;
  fmt::print(out_, " {:>11} {:>13} {:>9} {:>7} {:>6}  {}   {}{}{}{}{}\n", any.bytes,
             any.bytes / element_bytes(any.coll.dtype), name(any.coll.dtype), name(any.coll.op),
             root_text(any.coll), half(oop), half(ip),
             rate > 0 ? fmt::format("  rate {:.4g} msg/s", rate) : "", flag ? " ~" : "",
             knobs.empty() ? "" : fmt::format("  [{}]", fmt::join(knobs, " ")),
             races.empty() ? "" : fmt::format(" race {}", fmt::join(races, "/")));
  std::fflush(out_);
}

void ConsoleReporter::close_table() {
  if (!table_) return;
  for (const auto& [knobs, oop] : pending_) print_row(oop, std::nullopt);
  pending_.clear();
  for (const auto& [what, why] : skips_) fmt::print(out_, "# skipped {}: {}\n", what, why);
  if (noisy_in_table_) {
    fmt::print(out_,
               "# ~ the median's 95% interval is wider than {:.0f}% of it: noisy, repeat "
               "or add --repetitions\n",
               kNoisyCiWidth * 100);
  }
  skips_.clear();
  noisy_in_table_ = false;
}

void ConsoleReporter::end() {
  close_table();
  fmt::print(out_, "# Out of bounds values : {}\n",
             !checked_           ? (check_asked_ ? "N/A (no row checked)" : "N/A (check off)")
             : wrong_total_ == 0 ? "0 OK"
                                 : fmt::format("{} FAILED", wrong_total_));
  fmt::print(out_,
             "# Avg bus bandwidth    : {:.4f} GB/s (arithmetic mean over rows, as nccl-tests)\n#\n",
             busbw_rows_ > 0 ? busbw_sum_ / busbw_rows_ : 0.0);
  std::fflush(out_);
}

}  // namespace colltune
