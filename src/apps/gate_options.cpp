#include "apps/gate_options.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "core/errors.hpp"
#include "core/timestamp.hpp"
#include "store/json_text.hpp"
#include "store/manifest.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

// The largest launch-to-launch spread a noise floor may claim: sd 1 of the log is a factor e
// (172%) between typical launches, beyond which a single launch says nothing about a 5% change.
constexpr double kMaxNoiseFloorSdLog = 1.0;

// history.json: the spread between runs per series, and pooled for series it did not see.
void read_history_noise_floor(const std::string& file, const nlohmann::json& j, CompareOptions& o) {
  const auto refuse = [&](const std::string& what) {
    return ConfigError(fmt::format(
        "--noise-floor: {}: {}; allowed: history.json as colltune history --out writes it", file,
        what));
  };
  const auto sd_of = [&](const nlohmann::json& x, const char* where) {
    const auto it = x.find("between_run_sd_log");
    if (it == x.end() || !it->is_number() || !std::isfinite(it->get<double>()) ||
        it->get<double>() < 0 || it->get<double>() > kMaxNoiseFloorSdLog) {
      throw refuse(fmt::format("{} between_run_sd_log is {}", where,
                               it == x.end() ? std::string("missing") : it->dump()));
    }
    return it->get<double>();
  };
  o.run_sd = {sd_of(j, "top-level"), j.value("between_run_df", 0.0)};
  if (!j.contains("series") || !j["series"].is_array()) throw refuse("field 'series' is missing");
  for (const auto& s : j["series"]) {
    if (!s.is_object()) throw refuse("a series is not an object");
    const double sd = sd_of(s, "a series'");
    // Too few runs within its segments to estimate its own spread: the pooled one serves.
    if (s.value("between_run_df", 0) < 2) continue;
    const std::string key = comparison_series_key(
        s.value("point_id", ""), s.value("collective", ""), s.value("dtype", ""), s.value("op", ""),
        s.value("in_place", false), s.value("root", 0), s.value("bytes", std::uint64_t{0}),
        s.value("nranks", 0));
    auto& kept = o.run_sd_by_series[key];
    if (sd > kept.sd_log) kept = {sd, s.value("between_run_df", 0.0)};  // the widest placement's
  }
  if (o.run_sd.sd_log <= 0 && o.run_sd_by_series.empty())
    throw refuse("no spread between runs in it (fewer than 2 runs a segment)");
  o.noise_floor_source =
      fmt::format("{} (colltune history of {} runs, {})", file,
                  j.value("runs", nlohmann::json::array()).size(), j.value("created_utc", "?"));
}

// Launches minutes apart share one stretch of the machine's drift, which is larger between runs
// than between the launches of one run: tested against each other alone, a few percent of drift
// reads as significant (7 identical sweeps here: 4 of 21 pairs flagged at 1.06-1.09).
constexpr long long kShortSpanSeconds = 5 * 60;

// The seconds from a side's first launch to its last; nullopt where its times are unknown.
std::optional<long long> launch_span_seconds(const Dataset& d) {
  std::optional<long long> first, last;
  for (const auto& text : d.launch_starts_utc) {
    const auto t = parse_utc_seconds(text);
    if (!t) return std::nullopt;
    first = first ? std::min(*first, *t) : *t;
    last = last ? std::max(*last, *t) : *t;
  }
  if (!first) return std::nullopt;
  return *last - *first;
}

}  // namespace

double parse_fraction(const std::string& text, const std::string& flag) {
  std::string number = text;
  double scale = 1;
  if (!number.empty() && number.back() == '%') {
    number.pop_back();
    scale = 0.01;
  }
  double value = -1;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value) ||
      value < 0) {
    throw ConfigError(
        fmt::format("{}: '{}' is not allowed; allowed: a percentage like 5% or a "
                    "fraction like 0.05",
                    flag, text));
  }
  return value * scale;
}

// A slowdown needs its unit: "5%" or the ratio "1.05x". A bare "5" could mean 5% or 500%.
double parse_slowdown(const std::string& text, const std::string& flag) {
  const auto refuse = [&] {
    return ConfigError(
        fmt::format("{}: '{}' is not allowed; allowed: a percentage like 5% or a time ratio like "
                    "1.05x (both: 5% slower), up to 10000%",
                    flag, text));
  };
  if (text.empty() || (text.back() != '%' && text.back() != 'x')) throw refuse();
  const std::string number = text.substr(0, text.size() - 1);
  double value = -1;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size()) throw refuse();
  const double fraction = text.back() == '%' ? value / 100 : value - 1;
  if (!(fraction >= 0) || fraction > 100) throw refuse();
  return fraction;
}

double parse_alpha(const std::string& text, const std::string& flag) {
  double value = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !(value >= kMinAlpha) ||
      !(value <= kMaxAlpha)) {
    throw ConfigError(
        fmt::format("{}: '{}' is not allowed; allowed: a probability from {:g} to "
                    "{:g}, like 0.05",
                    flag, text, kMinAlpha, kMaxAlpha));
  }
  return value;
}

// "4%" (the spread of one launch's median, relative) or a file `colltune noise --out` wrote.
void parse_noise_floor(const std::string& text, CompareOptions& o) {
  const std::string allowed =
      "allowed: a percentage above 0% and below 100% like 4%, a file written by colltune "
      "noise --out, or a directory colltune history --out wrote";
  if (!text.empty() && text.back() == '%' && !fs::exists(text)) {
    const double relative = parse_fraction(text, "--noise-floor");
    if (!(relative > 0 && relative < 1))
      throw ConfigError(fmt::format("--noise-floor: '{}' is not allowed; {}", text, allowed));
    o.noise_floor_sd = std::log1p(relative);
    o.noise_floor_source = "--noise-floor " + text;
    return;
  }
  if (!fs::exists(text)) {
    double number = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    throw ConfigError(fmt::format("--noise-floor: '{}' {}; {}", text,
                                  ec == std::errc() && end == text.data() + text.size()
                                      ? "is a bare number (a fraction or a percentage?)"
                                      : "is neither a percentage nor an existing file",
                                  allowed));
  }
  const bool history_dir = fs::is_directory(text);
  if (history_dir && !fs::exists(fs::path(text) / "history.json")) {
    throw ConfigError(
        fmt::format("--noise-floor: '{}' is a directory without history.json; {}", text, allowed));
  }
  const std::string file = history_dir ? (fs::path(text) / "history.json").string() : text;
  const auto j = parse_json_input(read_file(file), "--noise-floor: " + file);
  if (j.is_object() && j.value("schema", "") == "colltune-history-1") {
    read_history_noise_floor(file, j, o);
    return;
  }
  const auto field_error = [&](const char* field, const std::string& domain) {
    return ConfigError(fmt::format(
        "--noise-floor: {}: field '{}' {}; allowed: {}", text, field,
        j.is_object() && j.contains(field) ? "is " + j[field].dump() : std::string("is missing"),
        domain));
  };
  if (!j.is_object())
    throw ConfigError(fmt::format("--noise-floor: '{}' is not a JSON object; {}", text, allowed));
  const auto number_in = [&](const char* field, double low, double high, bool whole) {
    const auto it = j.find(field);
    if (it == j.end() || !it->is_number()) return false;
    const double v = it->get<double>();
    return std::isfinite(v) && v > low && v <= high && (!whole || v == std::floor(v));
  };
  if (!number_in("launch_sd_log", 0, kMaxNoiseFloorSdLog, false))
    throw field_error("launch_sd_log",
                      fmt::format("a number above 0 and at most {:g}", kMaxNoiseFloorSdLog));
  if (!number_in("degrees_of_freedom", 0, 1e12, true))
    throw field_error("degrees_of_freedom", "a whole number of 1 or more");
  if (!number_in("cells", 0, 1e12, true)) throw field_error("cells", "a whole number of 1 or more");
  for (const char* field : {"source", "created_utc"}) {
    if (!j.contains(field) || !j[field].is_string()) throw field_error(field, "a string");
  }
  o.noise_floor_sd = j["launch_sd_log"].get<double>();
  o.noise_floor_source =
      fmt::format("{} (measured {} from {})", text, j["created_utc"].get<std::string>(),
                  j["source"].get<std::string>());
}

void warn_short_spans(const Dataset& a, const Dataset& b) {
  const auto span_a = launch_span_seconds(a), span_b = launch_span_seconds(b);
  if (!span_a || !span_b || *span_a >= kShortSpanSeconds || *span_b >= kShortSpanSeconds) return;
  std::fprintf(stderr,
               "colltune: warning: compare: each side's launches began within %lld s of each "
               "other (baseline %lld s, candidate %lld s): they share the machine's drift of the "
               "moment, which varies more between runs than between launches, so a few percent "
               "of drift can read as a change; give --noise-floor a directory colltune history "
               "--out wrote (the spread between runs of this machine)\n",
               std::max(*span_a, *span_b), *span_a, *span_b);
}

}  // namespace colltune
