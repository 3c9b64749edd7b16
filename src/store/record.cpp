#include "store/record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/bandwidth.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/exchange.hpp"

namespace colltune {
namespace {

// Counts and sizes beyond this are corrupt, not measured: no buffer is 2^63 bytes.
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 63;

[[noreturn]] void bad(const std::string& where, std::string_view field, const std::string& value,
                      std::string_view allowed) {
  throw ConfigError(
      fmt::format("{}: {}: {} is not allowed; allowed: {}", where, field, value, allowed));
}

std::uint64_t unsigned_field(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto& v = j.at(key);
  if (v.is_number_unsigned() && v.get<std::uint64_t>() < kMaxBytes) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0) return v.get<std::uint64_t>();
  bad(where, key, v.dump(), "an integer from 0 to 2^63 - 1");
}

const nlohmann::json& field(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end()) {
    throw ConfigError(
        fmt::format("{}: {}: missing; allowed: a record as docs/jsonl-schema.md "
                    "gives it",
                    where, key));
  }
  return *it;
}

std::string text_field(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto& v = field(j, key, where);
  if (!v.is_string()) bad(where, key, v.dump(), "a string");
  return v.get<std::string>();
}

int int_field(const nlohmann::json& j, const char* key, const std::string& where, int lo, int hi) {
  const auto& v = j.at(key);
  if (v.is_number_integer() && v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi)
    return v.get<int>();
  bad(where, key, v.dump(), fmt::format("an integer from {} to {}", lo, hi));
}

// alltoallv: the pattern and what it makes each rank move, in bytes (index = rank).
nlohmann::json exchange_json(const Collective& c, int nranks) {
  const ExchangeTotals t = exchange_totals(c, nranks);
  const std::uint64_t element = element_bytes(c.dtype);
  const auto bytes = [&](std::vector<std::uint64_t> v) {
    for (auto& x : v) x *= element;
    return v;
  };
  return {{"pattern", exchange_name(c.exchange)}, {"seed", c.exchange.seed},
          {"send_bytes", bytes(t.send)},          {"recv_bytes", bytes(t.recv)},
          {"max_peer_bytes", bytes(t.max_peer)},  {"min_peer_bytes", bytes(t.min_peer)},
          {"busiest_bytes", t.busiest * element}, {"imbalance", t.imbalance}};
}

}  // namespace

nlohmann::json to_json(const RunContext& c) {
  nlohmann::json placement = nlohmann::json::array();
  for (const auto& p : c.placement) {
    placement.push_back({{"rank", p.rank},
                         {"host", p.host},
                         {"cpus", p.cpus},
                         {"cores", p.cores},
                         {"numa", p.numa},
                         {"host_pus", p.host_pus},
                         {"nic_numa", p.nic_numa},
                         {"gpu", p.gpu},
                         {"gpu_numa", p.gpu_numa},
                         {"gpu_model", p.gpu_model}});
  }
  nlohmann::json ceilings = nlohmann::json::array();
  for (const auto& x : c.copy_ceilings) {
    ceilings.push_back({{"host", x.host}, {"kind", x.kind}, {"index", x.index}, {"gbps", x.gbps}});
  }
  return {
      {"colltune_version", c.colltune_version},
      {"git_revision", c.git_revision},
      {"backend", c.backend},
      {"start_time_utc", c.start_time_utc},
      {"command_line", c.command_line},
      {"nranks", c.nranks},
      {"gpus_per_process", c.gpus_per_process},
      {"hosts", c.hosts},
      {"ranks_per_host", c.ranks_per_host},
      {"placement", placement},
      {"library_versions", c.library_versions},
      {"mpi_family", c.mpi_family},
      {"mpi_version", c.mpi_version},
      {"backend_settings", c.backend_settings},
      {"timing", name(c.timing)},
      {"time_span", name(c.span)},
      {"cache", name(c.cache)},
      {"rank_reduction", name(c.rank_reduction)},
      {"min_bytes", c.min_bytes},
      {"max_bytes", c.max_bytes},
      {"step_factor", c.step_factor},
      {"step_bytes", c.step_bytes},
      {"warmup_iters", c.warmup_iters},
      {"iters", c.iters},
      {"repetitions", c.repetitions},
      {"race", c.race},
      {"min_sample_seconds", c.min_sample_seconds},
      {"check_rounds", c.check_rounds},
      {"environment", c.environment},
      {"warnings", c.warnings},
      {"copy_ceilings", ceilings},
  };
}

std::vector<RankPlacement> placement_from_json(const nlohmann::json& placement) {
  std::vector<RankPlacement> out;
  for (const auto& p : placement) {
    out.push_back({p.value("rank", 0), p.value("host", ""), p.value("cpus", ""),
                   p.value("cores", ""), p.value("numa", ""), p.value("host_pus", 0),
                   p.value("nic_numa", ""), p.value("gpu", ""), p.value("gpu_numa", ""),
                   p.value("gpu_model", "")});
  }
  return out;
}

std::vector<CopyCeiling> copy_ceilings_from_json(const nlohmann::json& context) {
  std::vector<CopyCeiling> out;
  for (const auto& x : context.value("copy_ceilings", nlohmann::json::array())) {
    out.push_back(
        {x.value("host", ""), x.value("kind", ""), x.value("index", -1), x.value("gbps", 0.0)});
  }
  return out;
}

nlohmann::json to_json(const Measurement& m) {
  const Summary& s = m.summary;
  nlohmann::json j = {
      {"collective", name(m.coll.kind)},
      {"dtype", name(m.coll.dtype)},
      {"op", name(m.coll.op)},
      {"root", m.coll.root},
      {"in_place", m.coll.in_place},
      {"count", m.coll.count},
      {"bytes", m.bytes},
      {"nranks", m.nranks},
      {"window", is_point_to_point(m.coll.kind) ? nlohmann::json(m.coll.window) : nullptr},
      {"ops_per_sample", m.ops_per_sample},
      {"buffer_sets", m.buffer_sets},
      {"skipped", m.skipped ? nlohmann::json(*m.skipped) : nullptr},
      {"wrong", m.wrong ? nlohmann::json(*m.wrong) : nullptr},
      {"samples_seconds", m.samples_seconds},
      {"rank_samples_seconds", m.rank_samples_seconds.empty()
                                   ? nlohmann::json(nullptr)
                                   : nlohmann::json(m.rank_samples_seconds)},
      {"bus_factor", bus_factor(m.coll.kind, m.nranks)},
      {"in_process_knobs", m.in_process_knobs},
      {"race", m.race == RaceOutcome::kNotRaced
                   ? nlohmann::json(nullptr)
                   : nlohmann::json{{"outcome", name(m.race)}, {"turn", m.race_turn}}},
  };
  j["exchange"] = m.coll.kind == CollKind::kAlltoallv ? exchange_json(m.coll, m.nranks) : nullptr;
  if (!m.skipped) {
    j["stats_seconds"] = {{"n", s.n},
                          {"min", s.min},
                          {"median", s.median},
                          {"mean", s.mean},
                          {"p95", s.p95},
                          {"max", s.max},
                          {"stddev", s.stddev},
                          {"median_ci_low", s.ci_low},
                          {"median_ci_high", s.ci_high},
                          {"ci_level", s.ci_level},
                          {"ci_exact", s.ci_exact}};
    j["algbw_gbps"] = m.at_median.algbw_gbps;
    j["busbw_gbps"] = m.at_median.busbw_gbps;
    const double rate = messages_per_second(m.coll, m.nranks, m.summary.median);
    j["messages_per_second"] = rate > 0 ? nlohmann::json(rate) : nullptr;
  } else {
    j["messages_per_second"] = nullptr;
    j["stats_seconds"] = nullptr;
    j["algbw_gbps"] = nullptr;
    j["busbw_gbps"] = nullptr;
  }
  return j;
}

nlohmann::json make_record(const Measurement& m, const RunContext& context) {
  nlohmann::json j = to_json(m);
  j["schema_version"] = kSchemaVersion;
  j["timing"] = name(context.timing);
  j["cache"] = name(context.cache);
  j["rank_reduction"] = name(m.rank_reduction);
  j["context"] = to_json(context);
  return j;
}

nlohmann::json redacted_context(nlohmann::json context) {
  std::vector<nlohmann::json*> pending{&context};  // a worklist: the depth is the file's
  while (!pending.empty()) {
    nlohmann::json* node = pending.back();
    pending.pop_back();
    if (node->is_array()) {
      for (auto& item : *node) pending.push_back(&item);
    } else if (node->is_object()) {
      for (auto& [key, value] : node->items()) {
        const bool variable_like = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
          return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        });
        if (variable_like && is_secret_variable(key) && !value.is_structured() &&
            !(value.is_string() && is_redacted(value.get<std::string>()))) {
          value = kRedacted;
        } else {
          pending.push_back(&value);
        }
      }
    } else if (node->is_string()) {
      // "NAME=value" words (launcher argv, knob lists) carry secrets too.
      const auto words = redact_words({node->get<std::string>()});
      if (words.front() != node->get<std::string>()) *node = words.front();
    }
  }
  return context;
}

Record record_from_json(const nlohmann::json& j, const std::string& where) {
  Record r;
  if (!j.is_object()) {
    throw ConfigError(
        fmt::format("{}: not a colltune record: a JSON {} where a record (an object) "
                    "belongs; allowed: one record object per line",
                    where, j.type_name()));
  }
  try {
    const int version = j.at("schema_version").get<int>();
    if (version != kSchemaVersion) {
      throw ConfigError(fmt::format("{}: schema_version: {} is not readable; allowed: {}", where,
                                    version, kSchemaVersion));
    }
    r.collective = text_field(j, "collective", where);
    r.dtype = text_field(j, "dtype", where);
    r.op = text_field(j, "op", where);
    const auto& in_place = field(j, "in_place", where);
    if (!in_place.is_boolean()) bad(where, "in_place", in_place.dump(), "true or false");
    r.in_place = in_place.get<bool>();
    r.nranks = int_field(j, "nranks", where, 1, 1 << 24);
    r.root = j.contains("root") ? int_field(j, "root", where, -1, r.nranks - 1) : 0;
    r.bytes = unsigned_field(j, "bytes", where);
    r.count = unsigned_field(j, "count", where);
    r.window = j.at("window").is_null() ? 0 : int_field(j, "window", where, 1, 1 << 20);
    const auto& context = field(j, "context", where);
    if (!context.is_object()) bad(where, "context", context.dump().substr(0, 40), "an object");
    r.backend = text_field(context, "backend", where + ": context");
    if (context.contains("placement") && context.at("placement").is_array())
      r.processes = static_cast<int>(context.at("placement").size());
    r.timing = text_field(j, "timing", where);
    r.cache = text_field(j, "cache", where);
    if (!field(j, "skipped", where).is_null()) r.skipped = text_field(j, "skipped", where);
    if (!j.at("wrong").is_null()) r.wrong = unsigned_field(j, "wrong", where);
    const auto& samples = field(j, "samples_seconds", where);
    if (!samples.is_array()) bad(where, "samples_seconds", samples.dump(), "a list of seconds");
    for (const auto& v : samples) {
      if (!v.is_number()) bad(where, "samples_seconds", v.dump(), "numbers (seconds)");
      r.samples_seconds.push_back(v.get<double>());
    }
    if (j.contains("rank_samples_seconds") && !j.at("rank_samples_seconds").is_null()) {
      const auto& lists = j.at("rank_samples_seconds");
      if (!lists.is_array()) {
        bad(where, "rank_samples_seconds", lists.dump().substr(0, 40),
            "a list per process of its samples in seconds");
      }
      for (const auto& list : lists) {
        if (!list.is_array()) {
          bad(where, "rank_samples_seconds", list.dump().substr(0, 40),
              "a list per process of its samples in seconds");
        }
        auto& mine = r.rank_samples_seconds.emplace_back();
        for (const auto& v : list) {
          if (!v.is_number()) bad(where, "rank_samples_seconds", v.dump(), "numbers (seconds)");
          mine.push_back(v.get<double>());
        }
      }
    }
    const auto& factor = j.at("bus_factor");
    if (!factor.is_number()) bad(where, "bus_factor", factor.dump(), "a number");
    r.bus_factor = factor.get<double>();
    r.in_process_knobs = j.value("in_process_knobs", std::map<std::string, std::string>{});
    if (j.contains("exchange") && !j.at("exchange").is_null()) {
      const auto& x = j.at("exchange");
      r.exchange = parse_exchange(x.at("pattern").get<std::string>(),
                                  x.at("seed").get<std::uint64_t>(), where + ": exchange.pattern");
    }
    if (j.contains("race") && !j.at("race").is_null()) {
      const auto& race = j.at("race");
      const std::string outcome = race.at("outcome").get<std::string>();
      const auto parsed = parse_race_outcome(outcome);
      if (!parsed || *parsed == RaceOutcome::kNotRaced || *parsed == RaceOutcome::kRacing) {
        bad(where, "race.outcome", outcome, "won eliminated tied undecided");
      }
      r.race = *parsed;
      r.race_turn = int_field(race, "turn", where, 1, 1'000'000);
    }
  } catch (const nlohmann::json::exception& e) {
    // What is left: a nested field of the wrong shape. The library's id ("type_error.302") is
    // no help to a reader; its words after it are.
    const std::string what = e.what();
    throw ConfigError(
        fmt::format("{}: not a colltune record ({})", where,
                    what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2)));
  }
  check_record(r, where);
  r.kind = *parse_coll_kind(r.collective);
  Collective c;
  c.kind = r.kind;
  c.dtype = *parse_dtype(r.dtype);
  c.count = r.count;
  c.window = r.window;
  c.exchange = r.exchange;
  r.algbw_bytes = algbw_bytes(c, r.nranks);
  if (r.kind == CollKind::kAlltoallv) r.imbalance = exchange_totals(c, r.nranks).imbalance;
  return r;
}

void check_record(const Record& r, const std::string& where) {
  const auto kind = parse_coll_kind(r.collective);
  if (!kind) bad(where, "collective", r.collective, "a collective colltune or nccl-tests runs");
  if (!parse_dtype(r.dtype)) bad(where, "dtype", r.dtype, "int8 ... f8e5m2 (colltune's names)");
  if (r.op != "none" && !parse_reduce_op(r.op)) bad(where, "op", r.op, "sum prod max min avg none");
  if (r.nranks < 1) bad(where, "nranks", std::to_string(r.nranks), "1 or more");
  if (r.bytes >= kMaxBytes) bad(where, "bytes", std::to_string(r.bytes), "below 2^63");
  if (r.count >= kMaxBytes) bad(where, "count", std::to_string(r.count), "below 2^63");
  for (std::size_t i = 0; i < r.samples_seconds.size(); ++i) {
    const double s = r.samples_seconds[i];
    if (!std::isfinite(s) || s < kMinSampleSeconds || s > kMaxSampleSeconds) {
      bad(where, fmt::format("samples_seconds[{}]", i), fmt::format("{}", s),
          fmt::format("times from {:g} s (no collective takes less than a picosecond) to {:g} s",
                      kMinSampleSeconds, kMaxSampleSeconds));
    }
  }
  for (std::size_t p = 0; p < r.rank_samples_seconds.size(); ++p) {
    const auto& mine = r.rank_samples_seconds[p];
    const std::string field = fmt::format("rank_samples_seconds[{}]", p);
    if (mine.size() != r.samples_seconds.size()) {
      bad(where, field, fmt::format("{} samples", mine.size()),
          fmt::format("{} samples, as samples_seconds has", r.samples_seconds.size()));
    }
    for (double s : mine) {
      if (!std::isfinite(s) || s < kMinSampleSeconds || s > kMaxSampleSeconds) {
        bad(where, field, fmt::format("{}", s),
            fmt::format("times from {:g} s to {:g} s", kMinSampleSeconds, kMaxSampleSeconds));
      }
    }
  }
  const int processes = std::max(r.nranks, r.processes);
  if (r.rank_samples_seconds.size() > static_cast<std::size_t>(processes)) {
    bad(where, "rank_samples_seconds", fmt::format("{} lists", r.rank_samples_seconds.size()),
        fmt::format("at most one per process of the {} processes", processes));
  }
  if (!r.skipped && r.samples_seconds.empty()) {
    bad(where, "samples_seconds", "[]", "at least one sample where the record is not skipped");
  }
  const double expected = bus_factor(*kind, r.nranks);
  if (!std::isfinite(r.bus_factor) || std::abs(r.bus_factor - expected) > 1e-9 * expected) {
    bad(where, "bus_factor", fmt::format("{}", r.bus_factor),
        fmt::format("{} for {} on {} ranks", expected, r.collective, r.nranks));
  }
}

std::string setting_name(const std::map<std::string, std::string>& in_process_knobs) {
  std::string out;
  for (const auto& [knob, value] : in_process_knobs)
    out += (out.empty() ? "" : " ") + knob + "=" + value;
  return out;
}

}  // namespace colltune
