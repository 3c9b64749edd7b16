#include "store/nccl_tests_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <map>

#include "core/bandwidth.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/timestamp.hpp"

namespace colltune {
namespace {

std::string collective_of(const std::string& program, const std::string& path) {
  const std::string base = std::filesystem::path(program).filename();
  const auto name = collective_of_binary(base);
  if (!name) {
    throw ConfigError(
        fmt::format("{}: args[0]: '{}' is not a benchmark colltune reads; allowed: {}", path, base,
                    kNcclTestsBinaries));
  }
  return *name;
}

std::string written_by_colltune(const nlohmann::json& j, const std::string& path) {
  std::string collective;
  for (const auto& row : j.at("results")) {
    const std::string name = row.value("experiment_name", "");
    if (!parse_coll_kind(name) || (!collective.empty() && name != collective)) {
      throw ConfigError(fmt::format(
          "{}: results[].experiment_name: '{}' is not allowed; allowed: one collective name in "
          "every row, as colltune run -J writes",
          path, name));
    }
    collective = name;
  }
  if (collective.empty()) {
    throw ConfigError(fmt::format("{}: results: no rows; allowed: a file with results", path));
  }
  return collective;
}

// nccl-tests writes NaN as "nan" and numbers it could not compute as strings.
double number(const nlohmann::json& v) {
  return v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

int positive(const nlohmann::json& config, const char* key) {
  const auto v = config.value(key, nlohmann::json(1));
  return v.is_number_integer() && v.get<int>() >= 1 ? v.get<int>() : 0;
}

// nccl-tests pads the root to six characters ("     0").
int root_of(const nlohmann::json& row) {
  if (!row.contains("root")) return 0;
  if (row["root"].is_number_integer()) return row["root"].get<int>();
  std::string text = row["root"].is_string() ? row["root"].get<std::string>() : "";
  text.erase(0, text.find_first_not_of(' '));
  int root = 0;
  std::from_chars(text.data(), text.data() + text.size(), root);
  return root;
}

// More ranks than any machine runs: a count past it in a file is corrupt or hostile.
constexpr long long kMaxImportedRanks = 1 << 24;

// A size or count: a whole number below 2^63 (a double beyond it would convert undefined).
std::uint64_t size_field(const nlohmann::json& row, const char* key, const std::string& where) {
  const auto& v = row.at(key);
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<long long>() >= 0)) {
    throw ConfigError(
        fmt::format("{}: {}: {} is not allowed; allowed: a whole number of 0 or "
                    "more, below 2^63",
                    where, key, v.dump().substr(0, 40)));
  }
  const std::uint64_t value = v.get<std::uint64_t>();
  if (value >= (std::uint64_t{1} << 63)) {
    throw ConfigError(
        fmt::format("{}: {}: {} is not allowed; allowed: below 2^63", where, key, value));
  }
  return value;
}

// nccl-tests' own verdict over the whole run: out_of_bounds {count, okay} ("okay" a boolean or,
// in some versions, the string "false"). The count of failed checks where it failed (at least
// 1), else 0.
std::uint64_t out_of_bounds_failures(const nlohmann::json& j) {
  const auto it = j.find("out_of_bounds");
  if (it == j.end() || !it->is_object()) return 0;
  const auto okay = it->find("okay");
  const bool failed = okay != it->end() && ((okay->is_boolean() && !okay->get<bool>()) ||
                                            (okay->is_string() && *okay == "false"));
  if (!failed) return 0;
  const auto count = it->find("count");
  return count != it->end() && count->is_number_unsigned() && count->get<std::uint64_t>() > 0
             ? count->get<std::uint64_t>()
             : 1;
}

}  // namespace

std::optional<std::string> collective_of_binary(const std::string& program) {
  static const std::map<std::string, std::string> kNames{
      {"all_reduce_perf", "allreduce"}, {"all_gather_perf", "allgather"},
      {"alltoall_perf", "alltoall"},    {"broadcast_perf", "broadcast"},
      {"reduce_perf", "reduce"},        {"reduce_scatter_perf", "reduce_scatter"},
      {"sendrecv_perf", "sendrecv"}};
  std::string base = std::filesystem::path(program).filename();
  if (base.ends_with("_mpi")) base.resize(base.size() - 4);  // the MPI=1 build's name
  const auto it = kNames.find(base);
  if (it == kNames.end()) return std::nullopt;
  return it->second;
}

Dataset load_nccl_tests(const std::string& path, const nlohmann::json& j, const LoadOptions& o) {
  Dataset d;
  d.source = path;
  d.kind = "nccl-tests";
  // nccl-tests writes its host's local time without a zone: read in this machine's (TZ), so
  // history and push can place the run; said, since another zone shifts it.
  if (const auto start = j.find("start_time"); start != j.end() && start->is_string()) {
    if (const auto utc = local_time_as_utc(start->get<std::string>())) {
      d.started_utc = *utc;
      d.launch_starts_utc = {*utc};
      d.notes.push_back(fmt::format(
          "start_time {} read as this machine's local time ({}); nccl-tests writes its host's, "
          "without a zone: set TZ to that host's zone where they differ",
          start->get<std::string>(), *utc));
    }
  }
  // The -J schemas this reader knows (nccl-tests 2.19 writes 3; 2 carries the same fields it
  // reads); a later one may move or rename them.
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer() || (*version != 2 && *version != 3)) {
    throw ConfigError(
        fmt::format("{}: version: {} is not readable; allowed: 2 or 3 (the "
                    "nccl-tests -J schemas colltune reads)",
                    path, version == j.end() ? "missing" : version->dump()));
  }
  // The field being read, so that a wrong type names it rather than the JSON library's code.
  std::string field = "args[0]";
  try {
    const std::string program = j.at("args").at(0).get<std::string>();
    field = "results";
    // colltune run -J names the collective in each row (one per file), where nccl-tests' program
    // name says it; colltune-nompi and colltune-<mpi> (another MPI's build) are colltune too.
    const std::string name = std::filesystem::path(program).filename().string();
    d.name = name == "colltune" || name.starts_with("colltune-") ? written_by_colltune(j, path)
                                                                 : collective_of(program, path);
    field = "config";
    const auto& config = j.contains("config") ? j["config"] : nlohmann::json::object();
    const int threads = positive(config, "nthreads"), gpus = positive(config, "ngpus");
    const auto devices = config.value("devices", nlohmann::json::array());
    if (devices.empty() || threads == 0 || gpus == 0) {
      throw ConfigError(fmt::format(
          "{}: config: no device entries, nthreads or ngpus; allowed: nccl-tests -J output "
          "with its config section (the rank count is processes x threads x GPUs)",
          path));
    }
    // One device entry per process, each process driving threads x GPUs ranks; computed wide,
    // so that a file's 65536 x 65536 threads and GPUs is refused, not wrapped to a small count.
    const long long wide_ranks = static_cast<long long>(devices.size()) * threads * gpus;
    if (wide_ranks > kMaxImportedRanks) {
      throw ConfigError(fmt::format(
          "{}: config: {} processes x nthreads {} x ngpus {} is not allowed; allowed: at most {} "
          "ranks",
          path, devices.size(), threads, gpus, kMaxImportedRanks));
    }
    const int nranks = static_cast<int>(wide_ranks);
    std::vector<std::string> hosts;
    std::map<std::string, int> per_host;
    for (const auto& dev : devices) {
      const std::string host = dev.value("hostname", "");
      if (per_host[host]++ == 0) hosts.push_back(host);
    }
    std::vector<int> ranks_per_host;
    for (const auto& h : hosts) ranks_per_host.push_back(per_host[h] * threads * gpus);
    field = "env";
    std::vector<std::string> env_strings;
    for (const auto& e : j.value("env", nlohmann::json::array()))
      env_strings.push_back(e.get<std::string>());
    std::vector<const char*> env_entries;
    for (const auto& e : env_strings) env_entries.push_back(e.c_str());
    env_entries.push_back(nullptr);
    d.points.push_back({"nccl-tests", "nccl-tests " + d.name, {{"backend", "nccl"}}, true});
    // Only the allow-listed, redacted environment survives the import (nccl-tests dumps all).
    d.contexts["nccl-tests"] = {{"backend", "nccl"},
                                {"nranks", nranks},
                                {"hosts", hosts},
                                {"ranks_per_host", ranks_per_host},
                                {"nccl_version", j.value("nccl_version", 0)},
                                {"command_line", j.at("args")},
                                {"environment", allowed_environment(env_entries.data())},
                                {"timing", "batch"}};
    field = "out_of_bounds";
    const std::uint64_t failed_checks = out_of_bounds_failures(j);
    field = "results";
    const auto& results = j.at("results");
    if (!results.is_array()) throw nlohmann::json::type_error::create(302, "not a list", &results);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& row = results[i];
      for (const std::string half : {"out_of_place", "in_place"}) {
        if (!row.contains(half) || row[half].is_null()) continue;
        const std::string where = fmt::format("{}: results[{}].{}", path, i, half);
        field = fmt::format("results[{}]", i);
        const auto& body = row[half];
        Record r;
        r.point_id = "nccl-tests";
        r.collective = d.name;
        r.dtype = row.at("type").get<std::string>();
        r.op = row.at("redop").get<std::string>();
        r.root = root_of(row);
        r.in_place = half == "in_place";
        r.bytes = size_field(row, "size", where);
        r.count = size_field(row, "count", where);
        r.nranks = nranks;
        r.backend = "nccl";
        r.timing = "batch";
        r.cache = "warm";
        // -C reports host CPU time under another key; the value means the same per op.
        const double time_us =
            number(body.contains("cpu_time") ? body["cpu_time"] : body.at("time"));
        const std::string per_iter = half + "_per_iter";
        if (row.contains(per_iter) && row[per_iter].contains("times_us")) {
          for (const auto& t : row[per_iter]["times_us"])
            r.samples_seconds.push_back(number(t) * 1e-6);
        } else if (time_us == time_us) {
          r.samples_seconds = {time_us * 1e-6};
        }
        const auto& wrong = body.value("nwrong", nlohmann::json());
        if (wrong.is_number() && number(wrong) >= 0)
          r.wrong = static_cast<std::uint64_t>(std::min(number(wrong), 9.2e18));
        // The file's own verdict, where its rows count none: a failed check is a failure.
        if (failed_checks > 0 && r.wrong.value_or(0) == 0) r.wrong = failed_checks;
        const double algbw = number(body.value("alg_bw", nlohmann::json()));
        r.algbw_bytes =
            algbw > 0 && time_us > 0 ? algbw * 1e9 * time_us * 1e-6 : static_cast<double>(r.bytes);
        try {
          const auto kind = parse_coll_kind(r.collective);
          r.kind = *kind;
          r.bus_factor = bus_factor(r.kind, r.nranks);
          check_record(r, where);
          d.records.push_back(std::move(r));
        } catch (const ConfigError& e) {
          if (!o.skip_bad_records) throw;
          d.left_out.push_back(e.what());
        }
      }
    }
  } catch (const nlohmann::json::exception& e) {
    // The library's text stays out ("type_error.302"): the field and what is allowed say it.
    throw ConfigError(fmt::format(
        "{}: {}: a field is missing or of the wrong type; allowed: nccl-tests -J output as "
        "nccl-tests 2.19 writes it (docs/jsonl-schema.md names what colltune reads)",
        path, field));
  }
  return d;
}

}  // namespace colltune
