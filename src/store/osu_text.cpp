#include "store/osu_text.hpp"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "core/bandwidth.hpp"
#include "core/errors.hpp"
#include "store/text_log_parts.hpp"

namespace colltune {
namespace {

// More ranks than any machine runs: a number past it in a log is a typo or an attack.
constexpr int kMaxRanks = 1 << 24;

struct Benchmark {
  CollKind kind;
  bool bandwidth = false;  // MB/s (10^6 bytes), else latency in us
};

// OSU's benchmark names (the version line's words before " Test v").
std::optional<Benchmark> benchmark_of(const std::string& name) {
  static const std::map<std::string, Benchmark> kNames{
      {"Latency", {CollKind::kPingpong}},
      {"Bandwidth", {CollKind::kUniBw, true}},
      {"Bi-Directional Bandwidth", {CollKind::kBiBw, true}},
      {"Multiple Bandwidth / Message Rate", {CollKind::kUniBw, true}},
      {"Allreduce Latency", {CollKind::kAllreduce}},
      {"Allgather Latency", {CollKind::kAllgather}},
      {"All-to-All Personalized Exchange Latency", {CollKind::kAlltoall}},
      {"Broadcast Latency", {CollKind::kBroadcast}},
      {"Reduce Latency", {CollKind::kReduce}},
      {"Reduce_scatter Latency", {CollKind::kReduceScatter}},
      {"Gather Latency", {CollKind::kGather}},
      {"Scatter Latency", {CollKind::kScatter}},
      {"Barrier Latency", {CollKind::kBarrier}}};
  const auto it = kNames.find(name);
  if (it == kNames.end()) return std::nullopt;
  return it->second;
}

DType dtype_of(const std::string& mpi_name) {
  if (mpi_name.starts_with("MPI_INT")) return DType::kInt32;
  if (mpi_name.starts_with("MPI_FLOAT")) return DType::kFloat;
  if (mpi_name.starts_with("MPI_DOUBLE")) return DType::kDouble;
  return DType::kInt8;  // MPI_CHAR, OSU's default
}

}  // namespace

bool looks_like_osu_text(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("# OSU MPI")) return true;
    if (!line.empty() && line[0] != '#' && line.find_first_not_of(" \t\r") != std::string::npos)
      return false;
  }
  return false;
}

Dataset load_osu_text(const std::string& path, const std::string& text, const LoadOptions& o) {
  static const std::regex kVersion(R"(^# OSU MPI(-CUDA|-ROCM|-OPENACC)? (.+) Test v([0-9.]+))");
  static const std::regex kPairs(R"(\[ pairs: ([0-9]+) \] \[ window size: ([0-9]+) \])");
  std::optional<Benchmark> bench;
  std::string name, version;
  int pairs = 1, window = 64, version_line = 0;
  DType dtype = DType::kInt8;
  bool full = false, validation = false, header = false;
  struct Row {
    int line;
    std::uint64_t size;
    double value;
    std::optional<bool> failed;
  };
  std::vector<Row> rows;
  int number_of_line = 0;
  for (const std::string& line : text_log_lines(text)) {
    ++number_of_line;
    const auto w = text_log_words(line);
    if (w.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, number_of_line);
    std::smatch m;
    if (std::regex_search(line, m, kVersion)) {
      if (bench && !rows.empty()) {
        throw ConfigError(fmt::format(
            "{}: a second benchmark in one log; allowed: one OSU benchmark's output per file",
            where));
      }
      if (bench) continue;  // osu_mbw_mr 7.0-7.3 print their version line twice
      name = m[2];
      version = m[3];
      version_line = number_of_line;
      bench = benchmark_of(name);
      if (!bench) {
        throw ConfigError(fmt::format(
            "{}: '{} Test' is not an OSU benchmark colltune reads; allowed: osu_latency osu_bw "
            "osu_bibw osu_mbw_mr and the blocking collectives (allreduce allgather alltoall bcast "
            "reduce reduce_scatter gather scatter barrier)",
            where, name));
      }
      continue;
    }
    if (line[0] == '#') {
      if (std::regex_search(line, m, kPairs)) {
        const auto p = text_log_number<int>(m[1]), win = text_log_number<int>(m[2]);
        if (!p || !win || *p < 1 || *p > kMaxRanks / 2 || *win < 1) {
          throw ConfigError(fmt::format(
              "{}: pairs {} and window size {}: not allowed; allowed: pairs from 1 to {} and a "
              "window of 1 or more",
              where, std::string(m[1]), std::string(m[2]), kMaxRanks / 2));
        }
        pairs = *p;
        window = *win;
      } else if (line.starts_with("# Datatype: ")) {
        dtype = dtype_of(w.size() > 2 ? w[2] : "");
      } else if (line.starts_with("# Size") || line.starts_with("# Avg Latency")) {
        header = true;
        full = line.find("Min Latency") != std::string::npos;
        validation = line.find("Validation") != std::string::npos;
      }
      continue;
    }
    if (!bench || !header) {
      throw ConfigError(fmt::format(
          "{}: '{}' before OSU's version line and column header; allowed: OSU Micro-Benchmarks' "
          "output",
          where, line.substr(0, 80)));
    }
    const bool sized = bench->kind != CollKind::kBarrier;
    const std::size_t expected = (sized ? 2 : 1) + (full ? 3 : 0) + (validation ? 1 : 0) +
                                 (name.starts_with("Multiple") ? 1 : 0);
    const auto refuse = [&] {
      return ConfigError(fmt::format(
          "{}: '{}' is not a row of this table ({} columns: {}{}{}{}); allowed: OSU's output "
          "whole (truncated?)",
          where, line.substr(0, 80), expected, sized ? "size, " : "",
          bench->bandwidth ? "MB/s" : "average latency", full ? ", min, max, iterations" : "",
          validation ? ", validation" : ""));
    };
    if (w.size() != expected) throw refuse();
    Row r{number_of_line, 0, 0, std::nullopt};
    const auto size = text_log_number<std::uint64_t>(w[0]);
    const auto value = text_log_number<double>(w[sized ? 1 : 0]);
    if ((sized && !size) || !value) throw refuse();
    r.size = sized ? *size : 0;
    r.value = *value;
    if (validation) {
      if (w.back() != "Pass" && w.back() != "Fail") throw refuse();
      r.failed = w.back() == "Fail";
    }
    rows.push_back(r);
  }
  if (!bench) {
    throw ConfigError(fmt::format(
        "{}: no '# OSU MPI ... Test v...' line; allowed: OSU Micro-Benchmarks' output", path));
  }
  if (rows.empty()) {
    throw ConfigError(
        fmt::format("{}:{}: no rows after the header; allowed: a whole OSU run (truncated?)", path,
                    number_of_line));
  }
  int nranks = is_point_to_point(bench->kind) ? 2 * pairs : 0;
  if (nranks == 0) {
    static const std::regex kRanks(R"((^|[^a-z])np[-_=]?([0-9]+))");
    std::smatch m;
    const std::string file = std::filesystem::path(path).filename().string();
    if (std::regex_search(file, m, kRanks)) {
      const auto n = text_log_number<int>(m[2]);
      if (!n || *n < 1 || *n > kMaxRanks) {
        throw ConfigError(
            fmt::format("{}: file name: np{} is not allowed; allowed: a rank count from 1 to {}",
                        path, std::string(m[2]), kMaxRanks));
      }
      nranks = *n;
    }
    if (nranks < 1) {
      throw ConfigError(fmt::format(
          "{}:{}: OSU's output does not say how many ranks ran the {}; allowed: a file name "
          "that says it with np<N>, like osu_allreduce.np16.log",
          path, version_line, name));
    }
  }
  Dataset d = text_log_dataset(path, "osu", "osu " + std::string(name));
  d.contexts["osu"] = {{"backend", "mpi"},
                       {"nranks", nranks},
                       {"library_versions", {{"osu", version}}},
                       {"environment", nlohmann::json::object()},
                       {"timing", "per-op"},
                       {"logged", true}};
  for (const Row& row : rows) {
    Collective c;
    c.kind = bench->kind;
    c.dtype = dtype;
    c.op = is_reduction(c.kind) ? ReduceOp::kSum : ReduceOp::kNone;
    c.root = has_root(c.kind) ? 0 : -1;
    c.window = window;
    const std::size_t per_element = element_bytes(dtype);
    c.count = row.size / per_element;
    Record r;
    r.point_id = "osu";
    r.kind = c.kind;
    r.collective = std::string(colltune::name(c.kind));
    r.dtype = std::string(colltune::name(dtype));
    r.op = std::string(colltune::name(c.op));
    r.root = c.root;
    r.bytes = row.size;
    r.count = c.count;
    r.nranks = nranks;
    r.window = is_point_to_point(c.kind) ? window : 0;
    r.backend = "mpi";
    r.timing = "per-op";
    r.cache = "warm";
    if (row.failed) r.wrong = *row.failed ? 1 : 0;
    r.bus_factor = bus_factor(c.kind, nranks);
    r.algbw_bytes = algbw_bytes(c, nranks);
    // Latency is the time of one op; bandwidth, bytes moved over time, aggregated over the pairs.
    const double seconds = bench->bandwidth
                               ? r.algbw_bytes * point_to_point_pairs(nranks) / (row.value * 1e6)
                               : row.value * 1e-6;
    r.samples_seconds = {seconds};
    try {
      check_record(r, fmt::format("{}:{}", path, row.line));
      d.records.push_back(std::move(r));
    } catch (const ConfigError& e) {
      if (!o.skip_bad_records) throw;
      d.left_out.push_back(e.what());
    }
  }
  if (bench->bandwidth && !name.starts_with("Multiple"))
    d.notes.push_back(
        fmt::format("{}: OSU's window of 64 messages assumed (its output does not "
                    "print it)",
                    path));
  return d;
}

}  // namespace colltune
