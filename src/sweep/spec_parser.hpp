#pragma once
// Reading a sweep spec's YAML: values checked with their file, line and column in every error.
// Internal to src/sweep (spec.cpp).

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/host_name.hpp"
#include "core/suggest.hpp"

namespace colltune {

// Throws ConfigError "<source>:<line>:<col>: <field>: <message>" for the node at fault.
class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const YAML::Node& node, const std::string& field,
                         const std::string& message) const {
    const YAML::Mark mark = node.Mark();
    if (mark.is_null()) throw ConfigError(fmt::format("{}: {}: {}", source_, field, message));
    throw ConfigError(
        fmt::format("{}:{}:{}: {}: {}", source_, mark.line + 1, mark.column + 1, field, message));
  }

  void check_keys(const YAML::Node& map, const std::string& field,
                  const std::vector<std::string>& known) const {
    if (!map.IsMap()) fail(map, field, "expected a mapping of keys to values");
    for (const auto& entry : map) {
      const std::string key = entry.first.as<std::string>();
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      const auto near = nearest_word(key, known);
      fail(entry.first, field.empty() ? key : field + "." + key,
           fmt::format("unknown key{}; allowed: {}",
                       near ? fmt::format(" (did you mean '{}'?)", *near) : "",
                       fmt::join(known, " ")));
    }
  }

  std::string scalar(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar()) fail(node, field, "expected a single value, not a list or mapping");
    return node.Scalar();
  }

  long long integer(const YAML::Node& node, const std::string& field, long long min,
                    long long max) const {
    const std::string text = scalar(node, field);
    long long value = 0;
    if (!YAML::convert<long long>::decode(node, value) || value < min || value > max) {
      fail(node, field,
           fmt::format("'{}' is not allowed; allowed: an integer from {} to {}", text, min, max));
    }
    return value;
  }

  double positive_number(const YAML::Node& node, const std::string& field) const {
    const std::string text = scalar(node, field);
    double value = 0;
    if (!YAML::convert<double>::decode(node, value) || !(value > 0) || !std::isfinite(value)) {
      fail(node, field, fmt::format("'{}' is not allowed; allowed: a number of seconds > 0", text));
    }
    return value;
  }

  // A scalar or a list of scalars.
  std::vector<std::string> strings(const YAML::Node& node, const std::string& field) const {
    if (node.IsScalar()) return {node.Scalar()};
    if (!node.IsSequence()) fail(node, field, "expected a value or a list of values");
    std::vector<std::string> out;
    for (const auto& item : node) out.push_back(scalar(item, field));
    return out;
  }

  // Before any key is read: yaml-cpp keeps a duplicated key's both entries (lookups find the
  // first, loops see both), reads a complex key as "bad conversion" and a NUL as any byte.
  void check_structure(const YAML::Node& node, const std::string& field = "") const {
    if (node.IsScalar() && node.Scalar().find('\0') != std::string::npos) {
      fail(node, field.empty() ? "spec" : field,
           "holds a NUL byte; allowed: text without NUL bytes");
    }
    // A value becomes an environment variable, a label in reports and a JUnit name: a newline
    // or an escape sequence there forges lines and terminal output.
    if (node.IsScalar()) {
      for (const char c : node.Scalar()) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) {
          fail(node, field.empty() ? "spec" : field,
               fmt::format("holds a control character (\\x{:02x}); allowed: printable text", byte));
        }
      }
    }
    if (node.IsSequence()) {
      for (std::size_t i = 0; i < node.size(); ++i)
        check_structure(node[i], fmt::format("{}[{}]", field, i));
    }
    if (!node.IsMap()) return;
    std::map<std::string, int> first_line;
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        fail(entry.first, field.empty() ? "spec" : field,
             "a list or mapping as a key is not allowed; allowed: a plain name");
      }
      const std::string key = entry.first.Scalar();
      const std::string path = field.empty() ? key : field + "." + key;
      const auto [it, fresh] = first_line.emplace(key, entry.first.Mark().line + 1);
      if (!fresh) {
        fail(entry.first, path,
             fmt::format("duplicate key (first at line {}); allowed: each key once", it->second));
      }
      check_structure(entry.second, path);
    }
  }

  // Host names or addresses, each optionally with ":SLOTS": never an option ("-np") or a shell
  // word ("$(...)"), which would reach mpirun's --host or srun's --nodelist as such.
  std::vector<std::string> hosts(const YAML::Node& node, const std::string& field) const {
    std::vector<std::string> out = strings(node, field);
    for (std::size_t i = 0; i < out.size(); ++i) {
      const std::string& host = out[i];
      const auto colon = host.find(':');
      const std::string name = host.substr(0, colon);
      const std::string slots = colon == std::string::npos ? "1" : host.substr(colon + 1);
      const bool name_ok = is_host_name(name);
      const bool slots_ok =
          !slots.empty() && slots.size() < 7 && std::all_of(slots.begin(), slots.end(), ::isdigit);
      if (!name_ok || !slots_ok) {
        fail(node.IsSequence() ? node[i] : node, field,
             fmt::format("'{}' is not allowed; allowed: a host name or address (letters, digits, "
                         ". - _, starting with a letter or digit), optionally :SLOTS",
                         host));
      }
    }
    return out;
  }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

struct SweepSpec;

// `env:` (and `mpis.NAME.env:`): variable -> value, each name and value checked as a knob.
std::map<std::string, std::string> parse_env_section(const Parser& p, const YAML::Node& node,
                                                     const std::string& field);

// The spec's `mpis:` into spec.mpis (sweep/mpi_axis.cpp); before the axes, whose `mpi` values
// name them. Refuses `mpis:` that no `mpi` axis uses.
void parse_mpis(const Parser& p, const YAML::Node& root, SweepSpec& spec);

// nullopt when `name` is one of spec.mpis; else what is allowed.
std::optional<std::string> check_mpi_name(const SweepSpec& spec, const std::string& name);

}  // namespace colltune
