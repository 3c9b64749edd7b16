#include "report/tuned_read.hpp"

#include <fmt/format.h>

#include <cctype>
#include <climits>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "core/nccl_tuned_format.hpp"
#include "core/regular_file.hpp"
#include "knobs/knob_scope.hpp"
#include "report/mpich_selection.hpp"
#include "store/json_text.hpp"
#include "tuner_plugin/tuned_rules.hpp"

namespace colltune {
namespace {

std::string read_all(const std::string& path) {
  std::string text, problem;
  if (!read_regular_file(path, tuned_format::kMaxFileBytes, text, problem))
    throw ConfigError(fmt::format("TUNED: '{}' {}", path, problem));
  return text;
}

// The classic coll/tuned rules file: counts and rows of integers, '#' comments.
TunedFile read_rules(const std::string& path, const std::string& text) {
  std::vector<std::pair<long long, int>> tokens;  // value, line
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    std::istringstream words(line.substr(0, line.find('#')));
    for (std::string w; words >> w;) {
      try {
        std::size_t used = 0;
        tokens.emplace_back(std::stoll(w, &used), n);
        if (used != w.size()) throw std::invalid_argument(w);
      } catch (const std::exception&) {
        throw ConfigError(
            fmt::format("{}:{}: '{}' is not an integer; allowed: an Open MPI "
                        "coll/tuned rules file (classic format)",
                        path, n, w));
      }
    }
  }
  std::size_t at = 0;
  const auto next = [&](const char* what) {
    if (at >= tokens.size()) {
      throw ConfigError(
          fmt::format("{}: ends before its {}; allowed: a complete rules file", path, what));
    }
    return tokens[at++];
  };
  TunedFile f;
  f.kind = TunedKind::kOmpiRules;
  f.env = {{std::string(kDynamicRulesKnob), "1"}, {std::string(kRulesFileKnob), path}};
  const auto [collectives, _] = next("collective count");
  for (long long c = 0; c < collectives; ++c) {
    const auto [id, id_line] = next("collective id");
    std::string collective;
    int max_algorithm = 0;
    for (const TunedCollective& t : tuned_collectives()) {
      if (t.rules_id == id) collective = std::string(t.collective), max_algorithm = t.max_algorithm;
    }
    if (collective.empty()) {
      throw ConfigError(
          fmt::format("{}:{}: collective id {} is not one colltune measures; "
                      "allowed: 0 allgather, 2 allreduce, 3 alltoall, 7 bcast, "
                      "11 reduce, 13 reduce_scatter_block",
                      path, id_line, id));
    }
    const auto [comm_sizes, cs_line] = next("comm size count");
    for (long long s = 0; s < comm_sizes; ++s) {
      const auto [comm_size, size_line] = next("comm size");
      // Open MPI reads it as an int: a larger one would wrap to another communicator's size.
      if (comm_size < 1 || comm_size > INT_MAX) {
        throw ConfigError(fmt::format("{}:{}: comm size {}; allowed: 1 to {}", path, size_line,
                                      comm_size, INT_MAX));
      }
      const auto [rules, rules_line] = next("rule count");
      std::vector<std::pair<std::uint64_t, int>> parsed;
      std::vector<int> parsed_lines;
      for (long long r = 0; r < rules; ++r) {
        const auto [bytes, rule_line] = next("message size");
        const auto [algorithm, alg_line] = next("algorithm");
        next("fan in/out");
        next("segment size");
        if (bytes < 0 ||
            (!parsed.empty() && static_cast<std::uint64_t>(bytes) <= parsed.back().first)) {
          throw ConfigError(fmt::format("{}:{}: message size {}; allowed: sizes from 0, rising",
                                        path, rule_line, bytes));
        }
        if (algorithm < 0 || algorithm > max_algorithm) {
          throw ConfigError(
              fmt::format("{}:{}: {} algorithm {}; allowed: 0 (Open MPI decides) to {}", path,
                          alg_line, collective, algorithm, max_algorithm));
        }
        parsed.emplace_back(static_cast<std::uint64_t>(bytes), static_cast<int>(algorithm));
        parsed_lines.push_back(rule_line);
      }
      for (std::size_t r = 0; r < parsed.size(); ++r) {
        VerifiedRow row;
        row.collective = collective;
        row.nranks = static_cast<int>(comm_size);
        row.min_bytes = parsed[r].first;
        row.max_bytes = r + 1 < parsed.size() ? parsed[r + 1].first - 1 : UINT64_MAX;
        row.what = fmt::format("{}:{}: algorithm {} from {} B on {} ranks", path, parsed_lines[r],
                               parsed[r].second, parsed[r].first, comm_size);
        f.rows.push_back(row);
      }
    }
  }
  if (at != tokens.size()) {
    throw ConfigError(
        fmt::format("{}:{}: more numbers than its counts say; allowed: a rules file "
                    "whose counts match its rows",
                    path, tokens[at].second));
  }
  return f;
}

// tune --emit env: NAME='value' lines (POSIX single quotes), '#' comments, optional "export".
TunedFile read_env(const std::string& path, const std::string& text, int first_line) {
  TunedFile f;
  f.kind = TunedKind::kEnv;
  std::istringstream lines(text);
  std::string line;
  for (int n = 1; std::getline(lines, line); ++n) {
    if (n < first_line) continue;
    std::string_view l = line;
    while (!l.empty() && std::isspace(static_cast<unsigned char>(l.front()))) l.remove_prefix(1);
    if (l.empty() || l.front() == '#') continue;
    if (l.starts_with("export ")) l.remove_prefix(7);
    const auto eq = l.find('=');
    const std::string name(l.substr(0, eq));
    const bool word = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                      name.find_first_not_of(
                          "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                          "0123456789_") == std::string::npos;
    if (eq == std::string_view::npos || !word) {
      throw ConfigError(
          fmt::format("{}:{}: '{}'; allowed: NAME='value' lines (tune --emit env)", path, n, line));
    }
    std::string value;
    std::string_view rest = l.substr(eq + 1);
    while (!rest.empty() && rest.front() != ' ' && rest.front() != '#') {
      if (rest.front() == '\'') {
        const auto close = rest.find('\'', 1);
        if (close == std::string_view::npos) {
          throw ConfigError(
              fmt::format("{}:{}: an unclosed quote; allowed: NAME='value'", path, n));
        }
        value += std::string(rest.substr(1, close - 1));
        rest.remove_prefix(close + 1);
      } else if (rest.front() == '\\' && rest.size() > 1) {
        value += rest[1];
        rest.remove_prefix(2);
      } else {
        value += rest.front();
        rest.remove_prefix(1);
      }
    }
    f.env[name] = value;
  }
  if (f.env.empty()) {
    throw ConfigError(
        fmt::format("{}: sets nothing; allowed: a file from tune --emit env, "
                    "--emit ompi-rules or --emit nccl-plugin",
                    path));
  }
  return f;
}

}  // namespace

const char* name(TunedKind kind) {
  switch (kind) {
    case TunedKind::kOmpiRules:
      return "ompi-rules";
    case TunedKind::kNcclPlugin:
      return "nccl-plugin";
    case TunedKind::kMpichSelection:
      return "mpich-json";
    case TunedKind::kEnv:
      break;
  }
  return "env";
}

TunedFile read_tuned_file(const std::string& path, const std::string& plugin_path) {
  const std::string absolute = std::filesystem::absolute(path).string();
  const std::string text = read_all(path);
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    const auto doc = parse_json_input(text, path);
    if (doc.is_object() && !doc.empty() && doc.begin().key().starts_with("collective=")) {
      TunedFile f;
      f.kind = TunedKind::kMpichSelection;
      f.path = absolute;
      f.rows = mpich_selection_rows(path, text, f.unreachable);
      if (f.rows.empty()) {
        throw ConfigError(fmt::format(
            "{}: an MPICH selection file with no rule of colltune's in it; allowed: tune --emit "
            "mpich-json's output",
            path));
      }
      // As measured: the file is the MPIR level's, which ch4's device collectives bypass.
      f.env = {{"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", absolute},
               {"MPIR_CVAR_DEVICE_COLLECTIVES", "none"}};
      return f;
    }
    if (doc.is_discarded() || !doc.is_object() ||
        doc.value("format", nlohmann::json()) != tuned_format::kFormat ||
        doc.value("version", nlohmann::json()) != tuned_format::kVersion ||
        !doc["rows"].is_array()) {
      throw ConfigError(
          fmt::format("{}: JSON but not a colltune tuned file of version {}; "
                      "allowed: tune --emit nccl-plugin's output",
                      path, tuned_format::kVersion));
    }
    try {
      parse_tuned_file(text);  // what the plugin would refuse (names, overlaps) is bad input
    } catch (const std::exception& e) {
      throw ConfigError(fmt::format("{}: {}", path, e.what()));
    }
    TunedFile f;
    f.kind = TunedKind::kNcclPlugin;
    f.env = {{"NCCL_TUNER_PLUGIN", plugin_path}, {"COLLTUNE_TUNER_FILE", absolute}};
    int n = 0;
    for (const auto& r : doc["rows"]) {
      ++n;
      VerifiedRow row;
      row.collective = r.value("collective", "");
      row.nranks = r.value("nranks", 0);
      row.min_bytes = r.value("min_bytes", std::uint64_t{0});
      row.max_bytes = r.value("max_bytes", std::uint64_t{0});
      f.nnodes = r.value("nnodes", 0);
      row.what = fmt::format("{} row {}: {}/{} for {}-{} B on {} ranks", path, n,
                             r.value("algorithm", "?"), r.value("protocol", "?"), row.min_bytes,
                             row.max_bytes, row.nranks);
      f.rows.push_back(row);
    }
    if (f.rows.empty()) throw ConfigError(fmt::format("{}: has no rows; nothing to verify", path));
    f.path = absolute;
    return f;
  }
  // A rules file starts with a number (its collective count); an env file with a name.
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto word = line.find_first_not_of(" \t");
    if (word == std::string::npos || line[word] == '#') continue;
    TunedFile f = std::isdigit(static_cast<unsigned char>(line[word])) ? read_rules(absolute, text)
                                                                       : read_env(path, text, 1);
    f.path = absolute;
    return f;
  }
  throw ConfigError(
      fmt::format("{}: empty; allowed: a file from tune --emit ompi-rules, "
                  "nccl-plugin or env",
                  path));
}

}  // namespace colltune
