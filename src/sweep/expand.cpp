#include "sweep/expand.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/hash.hpp"

namespace colltune {
namespace {

// A setting as the driver may write or print it: a secret-named key's value becomes
// "<redacted N>" (N: its place among the axis' values, so points stay apart without showing it),
// and launcher_args words lose their secret values.
std::string shown_value(const SweepSpec& spec, const std::string& key, const std::string& value) {
  if (key == "launcher_args") {
    return nlohmann::json(
               redact_words(nlohmann::json::parse(value).get<std::vector<std::string>>()))
        .dump();
  }
  if (!is_secret_variable(key)) return value;
  for (const Axis& axis : spec.axes) {
    if (axis.key != key) continue;
    int n = 0;
    for (const auto& v : axis.values) {
      if (!v) continue;
      ++n;
      if (*v == value) return fmt::format("<redacted {}>", n);
    }
  }
  return "<redacted>";
}

std::string label_of(const SweepSpec& spec, const Settings& shown) {
  std::vector<std::string> parts;
  bool any_env = false;
  for (const Axis& axis : spec.axes) {
    const auto it = shown.find(axis.key);
    if (it == shown.end()) continue;
    any_env = any_env || is_setting_key(axis.key);
    const std::string value =
        axis.key == "launcher_args"
            ? fmt::format(
                  "[{}]",
                  fmt::join(nlohmann::json::parse(it->second).get<std::vector<std::string>>(), " "))
            : it->second;
    parts.push_back(axis.key + "=" + value);
  }
  bool env_axes = std::any_of(spec.axes.begin(), spec.axes.end(),
                              [](const Axis& a) { return is_setting_key(a.key); });
  if (env_axes && !any_env) parts.push_back("(no knob set)");
  return fmt::format("{}", fmt::join(parts, " "));
}

Point make_point(const SweepSpec& spec, Settings settings) {
  Point p;
  for (const auto& [key, value] : settings) p.shown[key] = shown_value(spec, key, value);
  // From what is shown, so that an id in a path or a report cannot confirm a guessed secret.
  p.id = point_id(p.shown);
  p.label = label_of(spec, p.shown);
  p.settings = std::move(settings);
  return p;
}

}  // namespace

namespace {
std::uint64_t settings_hash(const Settings& settings) {
  std::uint64_t hash = kFnvOffsetBasis;
  for (const auto& [key, value] : settings) hash = fnv1a64(key + "=" + value + "\n", hash);
  return hash;
}
}  // namespace

std::size_t SettingsHash::operator()(const Settings& settings) const {
  return static_cast<std::size_t>(settings_hash(settings));
}

std::string point_id(const Settings& settings) {
  return fmt::format("{:016x}", settings_hash(settings));
}

bool matches(const Rule& rule, const Settings& settings) {
  for (const auto& [key, wanted] : rule) {
    const auto it = settings.find(key);
    if (!wanted) {
      if (it != settings.end()) return false;
    } else if (it == settings.end() || (*wanted != "*" && *wanted != it->second)) {
      return false;
    }
  }
  return true;
}

std::uint64_t product_size(const SweepSpec& spec) {
  std::uint64_t n = 1;
  for (const Axis& axis : spec.axes) {
    const std::uint64_t values = axis.values.size();
    if (values == 0) return 0;
    n = n > UINT64_MAX / values ? UINT64_MAX : n * values;  // saturates: a count, not a size
  }
  return n;
}

std::vector<Point> expand(const SweepSpec& spec, std::uint64_t max_points) {
  // Counted before anything is built: a product of millions would exhaust memory first.
  const std::uint64_t product = product_size(spec);
  if (product > max_points) {
    std::vector<std::string> sizes;
    for (const Axis& axis : spec.axes) sizes.push_back(std::to_string(axis.values.size()));
    throw ConfigError(fmt::format(
        "axes: {} points ({}) exceed the limit of {}; allowed: fewer axis values, or "
        "--max-points N to raise the limit (include/exclude rules apply after the count)",
        product == UINT64_MAX ? std::string("more than 2^64") : std::to_string(product),
        fmt::join(sizes, " x "), max_points));
  }
  // The product as an odometer, the first axis slowest; each combination built once.
  std::vector<Settings> kept;
  std::unordered_set<Settings, SettingsHash> seen;
  std::vector<std::size_t> digit(spec.axes.size(), 0);
  for (std::uint64_t n = 0; n < product; ++n) {
    Settings s;
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      if (spec.axes[a].values.empty()) continue;
      const auto& value = spec.axes[a].values[digit[a]];
      if (value) s[spec.axes[a].key] = *value;
    }
    for (std::size_t a = spec.axes.size(); a-- > 0;) {
      if (++digit[a] < std::max<std::size_t>(spec.axes[a].values.size(), 1)) break;
      digit[a] = 0;
    }
    const auto np = s.find("np"), nodes = s.find("nodes"), per_node = s.find("ranks_per_node");
    if (np != s.end() && nodes != s.end() && per_node != s.end() &&
        std::stoll(np->second) != std::stoll(nodes->second) * std::stoll(per_node->second)) {
      throw ConfigError(fmt::format(
          "axes: np {} with nodes {} x ranks_per_node {} = {}; allowed: np equal to nodes x "
          "ranks_per_node, or np left out (it is derived)",
          np->second, nodes->second, per_node->second,
          std::stoll(nodes->second) * std::stoll(per_node->second)));
    }
    const auto hit = [&](const Rule& r) { return matches(r, s); };
    if (!spec.include.empty() && std::none_of(spec.include.begin(), spec.include.end(), hit))
      continue;
    if (std::any_of(spec.exclude.begin(), spec.exclude.end(), hit)) continue;
    if (seen.insert(s).second) kept.push_back(std::move(s));
  }

  // A baseline naming placement or backend picks points of the product; it adds none.
  const bool placement_baseline =
      std::any_of(spec.baseline.begin(), spec.baseline.end(),
                  [](const auto& entry) { return !is_setting_key(entry.first); });
  if (placement_baseline) {
    std::vector<Point> points;
    for (const Settings& s : kept) {
      points.push_back(make_point(spec, s));
      points.back().baseline = matches(spec.baseline, s);
    }
    return points;
  }
  std::vector<Point> points;
  std::unordered_set<Settings, SettingsHash> groups_done;
  for (const Settings& s : kept) {
    const Settings group = group_settings(s);
    if (groups_done.insert(group).second) {
      Settings base = group;
      for (const auto& [key, value] : spec.baseline) {
        if (value) base[key] = *value;
      }
      if (!seen.count(base)) {
        points.push_back(make_point(spec, base));
        points.back().baseline = true;
      }
    }
    points.push_back(make_point(spec, s));
  }
  // Mark the baselines the product already held.
  for (Point& p : points) {
    Settings base = group_settings(p.settings);
    for (const auto& [key, value] : spec.baseline) {
      if (value) base[key] = *value;
    }
    if (p.settings == base) p.baseline = true;
  }
  return points;
}

}  // namespace colltune
