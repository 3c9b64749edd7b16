#include "store/nccl_tests_text.hpp"

#include <fmt/format.h>

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

// The collective of a table that does not name it: its redop, root and bus factor.
std::optional<std::string> infer(const Section& s, const std::string& path, int nranks) {
  const std::string file = std::filesystem::path(path).filename().string();
  for (const char* binary : {"all_reduce", "all_gather", "alltoall", "broadcast", "reduce_scatter",
                             "reduce", "sendrecv"}) {
    if (file.find(binary) != std::string::npos)
      return collective_of_binary(binary + std::string("_perf"));
  }
  const Row* row = nullptr;
  for (const auto& r : s.rows)
    if (r.algbw[0] > 0 && r.busbw[0] > 0) row = &r;
  if (row == nullptr) return std::nullopt;
  const double ratio = row->busbw[0] / row->algbw[0];
  const double n = nranks;
  const auto near = [&](double factor) {
    return std::abs(ratio - factor) <= 0.02 * factor + 0.011;
  };
  const bool op = !row->redop.empty() && row->redop != "none";
  const bool rooted = row->root >= 0;
  std::vector<std::string> fits;
  if (op && !rooted && near(2 * (n - 1) / n)) fits.push_back("allreduce");
  if (op && !rooted && near((n - 1) / n)) fits.push_back("reduce_scatter");
  if (op && !rooted && near(1)) fits.push_back("sendrecv");
  if (op && rooted && near(1)) fits.push_back("reduce");
  if (!op && rooted && near(1)) fits.push_back("broadcast");
  if (!op && !rooted && near((n - 1) / n)) {
    fits.push_back("allgather");
    fits.push_back("alltoall");
  }
  if (fits.size() == 1) return fits[0];
  throw ConfigError(fmt::format(
      "{}:{}: the log does not name its collective (nccl-tests before 2.16.7 prints no '# "
      "Collective test starting:'), and its table (redop '{}', root {}, busbw/algbw {:.3f} on {} "
      "ranks) fits {}; allowed: a file name that names the binary, like all_gather_perf.log ({})",
      path, s.header_line, row->redop, row->root, ratio, nranks,
      fits.empty() ? std::string("no collective colltune reads")
                   : fmt::format("{}", fmt::join(fits, " and ")),
      kNcclTestsBinaries));
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
    if (s.footer) continue;  // 2.13.4-2.17.2 end with NCCL's last error text, no '#'
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
  std::map<std::tuple<std::string, std::string, std::string, bool, int, std::uint64_t>, std::size_t>
      seen;  // repeated sweeps (-N) of one point: more samples of it
  for (const Section& s : sections) {
    if (s.rows.empty()) continue;
    const int nranks = static_cast<int>(s.ranks.size());
    if (nranks == 0) {
      throw ConfigError(fmt::format(
          "{}:{}: no '# Using devices' rank lines before the table; allowed: nccl-tests' whole "
          "output (the rank count comes from them)",
          path, s.header_line));
    }
    std::string collective;
    if (!s.binary.empty()) {
      const auto named = collective_of_binary(s.binary);
      if (!named) {
        throw ConfigError(fmt::format("{}:{}: '{}' is not a benchmark colltune reads; allowed: {}",
                                      path, s.header_line, s.binary, kNcclTestsBinaries));
      }
      collective = *named;
    } else {
      collective = infer(s, path, nranks).value_or("");
    }
    const auto kind = parse_coll_kind(collective);
    if (!kind) {
      throw ConfigError(fmt::format(
          "{}:{}: the table has no row with a bandwidth to tell its collective by; allowed: a "
          "log with '# Collective test starting:' or a file named after the binary",
          path, s.header_line));
    }
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
        r.bus_factor = bus_factor(*kind, nranks);
        r.algbw_bytes = row.algbw[half] > 0 ? row.algbw[half] * 1e9 * row.time_us[half] * 1e-6
                                            : static_cast<double>(row.size);
        r.samples_seconds = {row.time_us[half] * 1e-6};
        const auto key = std::make_tuple(r.collective, r.dtype, r.op, r.in_place, r.root, r.bytes);
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
  d.name = fmt::format("{}", fmt::join(names, "+"));
  d.points.front().label = "nccl-tests " + d.name;
  d.points.front().settings["backend"] = "nccl";
  return d;
}

}  // namespace colltune
