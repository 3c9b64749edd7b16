#include "store/nccl_tests_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/bandwidth.hpp"
#include "core/errors.hpp"
#include "store/nccl_tests_import.hpp"
#include "store/text_log_parts.hpp"

namespace colltune {
namespace {

// NCCL's own lines (NCCL_DEBUG=INFO/WARN) land in the same stdout, anywhere.
bool is_nccl_line(const std::string& line) {
  return line.find(" NCCL INFO ") != std::string::npos ||
         line.find(" NCCL WARN ") != std::string::npos || line.starts_with("NCCL ");
}

struct Row {
  int line = 0;
  std::uint64_t size = 0, count = 0;
  std::string type, redop;
  int root = -1;
  double time_us[2] = {0, 0}, algbw[2] = {0, 0}, busbw[2] = {0, 0};
  std::optional<std::uint64_t> wrong[2];
};

struct Section {
  int header_line = 0;
  std::string binary;  // from "# Collective test starting:"
  std::string version;
  int nccl_library = 0;
  std::vector<std::pair<std::string, std::string>> ranks;  // host, device name (bus)
  std::vector<std::string> buses;
  std::vector<Row> rows;
  bool footer = false;
  std::uint64_t failed_checks = 0;  // "# Out of bounds values : N FAILED"
  int rows_after_footer = 0;        // table-like lines past the footer, ignored with a warning
};

Row parse_row(const std::vector<std::string>& w, int line, const std::string& where) {
  const auto refuse = [&] {
    return ConfigError(fmt::format(
        "{}: '{}' is not an nccl-tests table row; allowed: size count type [redop] [root] then "
        "time algbw busbw #wrong for out-of-place and in-place (a truncated log?)",
        where, fmt::join(w, " ")));
  };
  if (w.size() < 11 || w.size() > 13) throw refuse();
  const std::size_t lead = w.size() - 8;
  Row r;
  r.line = line;
  const auto size = text_log_number<std::uint64_t>(w[0]),
             count = text_log_number<std::uint64_t>(w[1]);
  if (!size || !count || !parse_dtype(w[2])) throw refuse();
  r.size = *size;
  r.count = *count;
  r.type = w[2];
  // Older per-collective tables print redop, root, both or neither.
  for (std::size_t k = 3; k < lead; ++k) {
    if (const auto root = text_log_number<int>(w[k])) {
      r.root = *root;
    } else {
      r.redop = w[k];
    }
  }
  for (int half = 0; half < 2; ++half) {
    const std::size_t at = lead + 4 * static_cast<std::size_t>(half);
    const auto t = text_log_number<double>(w[at]), a = text_log_number<double>(w[at + 1]),
               b = text_log_number<double>(w[at + 2]);
    if (!t || !a || !b) throw refuse();
    r.time_us[half] = *t;
    r.algbw[half] = *a;
    r.busbw[half] = *b;
    // A count (2.13+), "N/A" with validation off, or before 2.13 an "error" column holding the
    // largest numerical error, which is not a count of wrong elements and is not read as one.
    if (const auto wrong = text_log_number<std::uint64_t>(w[at + 3])) r.wrong[half] = *wrong;
  }
  return r;
}

// A row's busbw/algbw: the bus factor nccl-tests applied, the log's own evidence of its
// collective. nullopt without a row that has both.
std::optional<double> bus_ratio(const Section& s) {
  for (const auto& r : s.rows)
    if (r.algbw[0] > 0 && r.busbw[0] > 0) return r.busbw[0] / r.algbw[0];
  return std::nullopt;
}

// The collectives whose bus factor on `nranks` is `ratio` (nccl-tests prints two decimals).
std::vector<std::string> ratio_fits(double ratio, int nranks) {
  const double n = nranks;
  const auto near = [&](double factor) { return std::abs(ratio - factor) <= 0.02 * factor + 0.011; };
  std::vector<std::string> out;
  if (near(2 * (n - 1) / n)) out.push_back("allreduce");
  if (near((n - 1) / n)) out.insert(out.end(), {"allgather", "reduce_scatter", "alltoall"});
  if (near(1)) out.insert(out.end(), {"broadcast", "reduce", "sendrecv"});
  return out;
}

// The collective a file name names: "all_reduce_perf.log", "allreduce-8xA100.txt". Underscores
// and dashes are dropped and the longer names tried first, so "allreduce" is never read as
// "reduce" (two of three public all_reduce_perf logs were).
std::optional<std::string> named_by_file(const std::string& path) {
  std::string file;
  for (const char c : std::filesystem::path(path).filename().string())
    if (c != '_' && c != '-') file += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& [word, collective] :
       std::vector<std::pair<std::string, std::string>>{{"reducescatter", "reduce_scatter"},
                                                        {"allreduce", "allreduce"},
                                                        {"allgather", "allgather"},
                                                        {"alltoall", "alltoall"},
                                                        {"broadcast", "broadcast"},
                                                        {"sendrecv", "sendrecv"},
                                                        {"reduceperf", "reduce"}}) {
    if (file.find(word) != std::string::npos) return collective;
  }
  return std::nullopt;
}

// The collective of a table: what the log shows first (its busbw/algbw ratio, then its redop
// and root columns), a name (the log's "# Collective test starting:" or the file's) only where
// that evidence agrees with it. Where the evidence is missing or disagrees: ConfigError naming
// the file and how to name the collective.
std::string collective_of_table(const Section& s, const std::string& path, int nranks) {
  std::optional<std::string> named;
  std::string by;
  if (!s.binary.empty()) {
    named = collective_of_binary(s.binary);
    if (!named) {
      throw ConfigError(fmt::format("{}:{}: '{}' is not a benchmark colltune reads; allowed: {}",
                                    path, s.header_line, s.binary, kNcclTestsBinaries));
    }
    by = "its '# Collective test starting: " + s.binary + "' line";
  } else if ((named = named_by_file(path))) {
    by = "its file name";
  }
  const auto ratio = bus_ratio(s);
  const std::string how =
      "allowed: a log whose '# Collective test starting:' line or file name (like "
      "all_gather_perf.log) names a collective its busbw/algbw agrees with";
  if (!ratio) {
    if (named) return *named;
    throw ConfigError(fmt::format(
        "{}:{}: the table has no row with a bandwidth to tell its collective by, and no name; {}",
        path, s.header_line, how));
  }
  const auto fits = ratio_fits(*ratio, nranks);
  if (named) {
    if (std::find(fits.begin(), fits.end(), *named) != fits.end()) return *named;
    throw ConfigError(fmt::format(
        "{}:{}: {} names {}, but its busbw/algbw {:.3f} on {} ranks is {}'s factor; {}", path,
        s.header_line, by, *named, *ratio, nranks,
        fits.empty() ? std::string("no collective") : fmt::format("{}", fmt::join(fits, " or ")),
        how));
  }
  // No name: the columns narrow the ratio's candidates (a redop: a reduction; a root: rooted).
  const Row& row = s.rows.front();
  const bool op = !row.redop.empty() && row.redop != "none";
  const bool rooted = row.root >= 0;
  std::vector<std::string> narrowed;
  for (const auto& c : fits) {
    const auto kind = parse_coll_kind(c);
    const bool reduces = kind && is_reduction(*kind);
    const bool has_a_root = kind && has_root(*kind);
    if (reduces == op && has_a_root == rooted) narrowed.push_back(c);
  }
  if (narrowed.size() == 1) return narrowed[0];
  throw ConfigError(fmt::format(
      "{}:{}: the log does not name its collective (nccl-tests before 2.16.7 prints no '# "
      "Collective test starting:'), and its table (redop '{}', root {}, busbw/algbw {:.3f} on {} "
      "ranks) fits {}; {}",
      path, s.header_line, row.redop, row.root, *ratio, nranks,
      narrowed.empty() ? std::string("no collective colltune reads")
                       : fmt::format("{}", fmt::join(narrowed, " and ")),
      how));
}

}  // namespace

bool looks_like_nccl_tests_text(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("# nThread ")) return true;
    if (!line.empty() && line[0] != '#' && !is_nccl_line(line)) return false;
  }
  return false;
}

Dataset load_nccl_tests_text(const std::string& path, const std::string& text,
                             const LoadOptions& o) {
  std::vector<Section> sections;
  std::string pending_binary, pending_version;
  int pending_library = 0;
  int number_of_line = 0;
  for (const std::string& line : text_log_lines(text)) {
    ++number_of_line;
    const auto w = text_log_words(line);
    if (w.empty() || is_nccl_line(line)) continue;
    const std::string where = fmt::format("{}:{}", path, number_of_line);
    if (line.starts_with("# nccl-tests version ")) {
      pending_version = w.size() > 3 ? w[3] : "";
      for (const auto& word : w)
        if (word.starts_with("nccl-library="))
          pending_library = text_log_number<int>(word.substr(13)).value_or(0);
      continue;
    }
    if (line.starts_with("# Collective test starting:")) {
      pending_binary = w.size() > 4 ? w[4] : "";
      continue;
    }
    if (line.starts_with("# nThread ")) {
      if (!sections.empty() && !sections.back().rows.empty() && !sections.back().footer) {
        throw ConfigError(fmt::format(
            "{}: a new table starts before the last one's footer (# Avg bus bandwidth); "
            "allowed: whole nccl-tests logs, one after another (is one truncated?)",
            where));
      }
      Section next;
      next.header_line = number_of_line;
      next.binary = pending_binary;
      next.version = pending_version;
      next.nccl_library = pending_library;
      sections.push_back(std::move(next));
      pending_binary.clear();
      pending_version.clear();
      pending_library = 0;
      continue;
    }
    if (sections.empty()) {
      if (line[0] == '#') continue;
      throw ConfigError(
          fmt::format("{}: '{}' before any '# nThread' header; allowed: nccl-tests' text output",
                      where, line.substr(0, 80)));
    }
    Section& s = sections.back();
    if (s.footer) {
      // 2.13.4-2.17.2 end with NCCL's last error text, no '#'; a line shaped like a row is
      // something else (a second run's rows without their header?), said, not read.
      if (line[0] != '#' && w.size() >= 11 && text_log_number<std::uint64_t>(w[0]))
        ++s.rows_after_footer;
      continue;
    }
    if (line[0] == '#') {
      if (w.size() >= 2 && w[1] == "Rank") {
        // "#  Rank  0 Group  0 Pid 123 on host device  0 [0000:18:00] NVIDIA H100 ..."
        std::string host, bus, model;
        for (std::size_t k = 2; k + 1 < w.size(); ++k) {
          if (w[k] == "on") host = w[k + 1];
          if (w[k] == "device" && k + 2 < w.size()) {
            bus = w[k + 2];
            for (std::size_t m = k + 3; m < w.size(); ++m)
              model += (model.empty() ? "" : " ") + w[m];
          }
        }
        s.ranks.push_back({host, model});
        s.buses.push_back(bus);
      } else if (line.starts_with("# Avg bus bandwidth")) {
        s.footer = true;
      } else if (line.starts_with("# Out of bounds values") && w.size() >= 7 &&
                 w.back() == "FAILED") {
        // nccl-tests' own verdict on the run: a failure even where rows print no count.
        s.failed_checks = std::max<std::uint64_t>(
            1, text_log_number<std::uint64_t>(w[w.size() - 2]).value_or(1));
      }
      continue;
    }
    s.rows.push_back(parse_row(w, number_of_line, where));
  }
  if (sections.empty() || std::all_of(sections.begin(), sections.end(),
                                      [](const Section& s) { return s.rows.empty(); })) {
    throw ConfigError(fmt::format(
        "{}: no nccl-tests table (a '# nThread' header and its rows); allowed: nccl-tests' text "
        "output",
        path));
  }
  if (!sections.back().footer) {
    throw ConfigError(fmt::format(
        "{}:{}: the log ends before nccl-tests' footer (# Avg bus bandwidth); allowed: a whole "
        "log (truncated?)",
        path, number_of_line));
  }
  Dataset d = text_log_dataset(path, "nccl-tests", "nccl-tests");
  std::vector<std::string> names;
  // Repeated sweeps (-N) of one point: more samples of it. Tables of other rank counts are
  // sets of their own, never merged into one record.
  std::map<std::tuple<std::string, std::string, std::string, bool, int, std::uint64_t, int>,
           std::size_t>
      seen;
  for (const Section& s : sections) {
    if (s.rows.empty()) continue;
    const int nranks = static_cast<int>(s.ranks.size());
    if (nranks == 0) {
      throw ConfigError(fmt::format(
          "{}:{}: no '# Using devices' rank lines before the table; allowed: nccl-tests' whole "
          "output (the rank count comes from them)",
          path, s.header_line));
    }
    const std::string collective = collective_of_table(s, path, nranks);
    const auto kind = parse_coll_kind(collective);
    names.push_back(collective);
    nlohmann::json& context = d.contexts["nccl-tests"];
    if (context.is_null()) {
      std::vector<std::string> hosts;
      std::map<std::string, int> per_host;
      nlohmann::json placement = nlohmann::json::array();
      for (std::size_t r = 0; r < s.ranks.size(); ++r) {
        if (per_host[s.ranks[r].first]++ == 0) hosts.push_back(s.ranks[r].first);
        placement.push_back({{"rank", r},
                             {"host", s.ranks[r].first},
                             {"gpu", s.buses[r]},
                             {"gpu_model", s.ranks[r].second}});
      }
      nlohmann::json versions = nlohmann::json::object();
      if (!s.version.empty()) versions["nccl-tests"] = s.version;
      if (s.nccl_library > 0) {
        versions["nccl"] = fmt::format("{}.{}.{}", s.nccl_library / 10000,
                                       s.nccl_library / 100 % 100, s.nccl_library % 100);
      }
      context = {{"backend", "nccl"},
                 {"nranks", nranks},
                 {"hosts", hosts},
                 {"ranks_per_host", per_host},
                 {"placement", placement},
                 {"library_versions", versions},
                 {"environment", nlohmann::json::object()},
                 {"timing", "batch"},
                 {"logged", true}};
    }
    for (const Row& row : s.rows) {
      for (int half = 0; half < 2; ++half) {
        Record r;
        r.point_id = "nccl-tests";
        r.kind = *kind;
        r.collective = collective;
        r.dtype = row.type;
        r.op = is_reduction(*kind) ? row.redop : "none";
        r.root = has_root(*kind) ? row.root : -1;
        r.in_place = half == 1;
        r.bytes = row.size;
        r.count = row.count;
        r.nranks = nranks;
        r.backend = "nccl";
        r.timing = "batch";
        r.cache = "warm";
        r.wrong = row.wrong[half];
        if (s.failed_checks > 0 && r.wrong.value_or(0) == 0) r.wrong = s.failed_checks;
        r.bus_factor = bus_factor(*kind, nranks);
        r.algbw_bytes = row.algbw[half] > 0 ? row.algbw[half] * 1e9 * row.time_us[half] * 1e-6
                                            : static_cast<double>(row.size);
        r.samples_seconds = {row.time_us[half] * 1e-6};
        const auto key =
            std::make_tuple(r.collective, r.dtype, r.op, r.in_place, r.root, r.bytes, nranks);
        try {
          check_record(r, fmt::format("{}:{}", path, row.line));
          if (const auto it = seen.find(key); it != seen.end()) {
            d.records[it->second].samples_seconds.push_back(r.samples_seconds[0]);
            continue;
          }
          seen[key] = d.records.size();
          d.records.push_back(std::move(r));
        } catch (const ConfigError& e) {
          if (!o.skip_bad_records) throw;
          d.left_out.push_back(e.what());
        }
      }
    }
  }
  for (const Section& s : sections) {
    if (s.rows_after_footer > 0) {
      d.left_out.push_back(fmt::format(
          "{}:{}: {} row-like line(s) after the table's footer (# Avg bus bandwidth) were not "
          "read (a second run's rows without their header?)",
          path, s.header_line, s.rows_after_footer));
    }
  }
  d.name = fmt::format("{}", fmt::join(names, "+"));
  d.points.front().label = "nccl-tests " + d.name;
  d.points.front().settings["backend"] = "nccl";
  return d;
}

}  // namespace colltune
