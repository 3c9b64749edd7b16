#include "core/mpi_algorithms.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <regex>

namespace colltune {
namespace {

bool is_name_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
}

bool is_name(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_name_char);
}

// "name   - text" lines after the variable's own description (which may take lines too).
std::vector<std::string> names_by_line(std::string_view description) {
  std::vector<std::string> names;
  for (std::size_t start = 0; start <= description.size();) {
    std::size_t end = description.find('\n', start);
    if (end == std::string_view::npos) end = description.size();
    const std::string_view line = description.substr(start, end - start);
    start = end + 1;
    const std::size_t dash = line.find(" - ");
    std::string_view name = line.substr(0, dash == std::string_view::npos ? 0 : dash);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (is_name(name)) {
      names.emplace_back(name);
    } else if (!names.empty()) {
      return {};  // a line that is not a value after the values began: not this form
    }
  }
  return names;
}

// MPICH 4.0 joins the lines: "...algorithmauto - Internal (...FILE)nb      - Force ...algorithmsmp
// ...". Each name after the first is padded to one column; the first one, "auto", ends a
// sentence that ends in ")", so its padded width is the column. A name as long as the column or
// longer has one space, and is then what follows the glued word "algorithm" of the text before.
std::vector<std::string> names_joined(std::string_view description) {
  std::vector<std::string_view> words;  // the glued run of name characters before each " - "
  std::vector<std::size_t> pads;
  for (std::size_t at = description.find(" - "); at != std::string_view::npos;
       at = description.find(" - ", at + 3)) {
    std::size_t end = at + 1;
    while (end > 0 && description[end - 1] == ' ') --end;
    std::size_t begin = end;
    while (begin > 0 && (is_name_char(description[begin - 1]) ||
                         (description[begin - 1] >= 'A' && description[begin - 1] <= 'Z'))) {
      --begin;
    }
    words.push_back(description.substr(begin, end - begin));
    pads.push_back(at + 1 - end);
  }
  if (words.size() < 2 || !words[0].ends_with("auto")) return {};
  std::vector<std::string> names{"auto"};
  const std::size_t column = words[1].size() + pads[1];
  if (!is_name(words[1])) return {};
  for (std::size_t k = 1; k < words.size(); ++k) {
    std::string_view word = words[k];
    if (pads[k] > 1 || k == 1) {
      const std::size_t length = column - pads[k];
      if (length == 0 || length > word.size()) return {};
      word = word.substr(word.size() - length);
    } else if (word.starts_with("algorithm") && word.size() > 9) {
      word.remove_prefix(9);
    }
    if (!is_name(word)) return {};
    names.emplace_back(word);
  }
  return names;
}

std::optional<long long> integer(std::string_view text) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// I_MPI_ADJUST_<COLL>="<id>[:<conditions>][;<id>:<conditions>...]", conditions a comma list of
// <l>, <l>-<m>, <l>@<p>, <l>-<m>@<p>-<q> (message bytes, then process counts; Intel MPI's
// Developer Reference, I_MPI_ADJUST family). The ids, or nullopt when the grammar does not hold.
std::optional<std::vector<long long>> adjust_ids(std::string_view text) {
  static const std::regex kEntry(R"(([0-9]+)(:[0-9]+(-[0-9]+)?(@[0-9]+(-[0-9]+)?)?)"
                                 R"((,[0-9]+(-[0-9]+)?(@[0-9]+(-[0-9]+)?)?)*)?)");
  std::vector<long long> ids;
  for (std::size_t start = 0;;) {
    const std::size_t semicolon = text.find(';', start);
    const std::string entry(text.substr(
        start, semicolon == std::string_view::npos ? std::string_view::npos : semicolon - start));
    std::smatch m;
    if (!std::regex_match(entry, m, kEntry)) return std::nullopt;
    const auto id = integer(m[1].str());
    if (!id) return std::nullopt;
    ids.push_back(*id);
    if (semicolon == std::string_view::npos) return ids;
    start = semicolon + 1;
  }
}

}  // namespace

std::vector<std::string> mpich_algorithm_names(std::string_view description) {
  while (!description.empty() && (description.back() == '\n' || description.back() == ' ')) {
    description.remove_suffix(1);
  }
  return description.find('\n') != std::string_view::npos ? names_by_line(description)
                                                          : names_joined(description);
}

std::optional<IntelPresets> intel_presets(std::string_view description) {
  static const std::regex kRange(R"(range:\s*([0-9]+)-([0-9]+))");
  static const std::regex kAlias(R"(@Alias:#\s*(I_MPI_ADJUST_[A-Z_]+))");
  const std::string text(description);
  std::smatch range, alias;
  if (!std::regex_search(text, range, kRange) || !std::regex_search(text, alias, kAlias)) {
    return std::nullopt;
  }
  return IntelPresets{alias[1].str(), std::stoi(range[1].str()), std::stoi(range[2].str())};
}

std::optional<std::string> mpich_algorithm_collective(std::string_view cvar_name) {
  static const std::regex kName(R"(MPIR_CVAR_([A-Z_]+)_(INTRA|INTER)_ALGORITHM)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(cvar_name.begin(), cvar_name.end(), m, kName)) return std::nullopt;
  std::string coll = m[1].str();
  std::transform(coll.begin(), coll.end(), coll.begin(),
                 [](char ch) { return static_cast<char>(std::tolower(ch)); });
  // The blocking collectives' MPIR-level variables only: not the nonblocking (IALLREDUCE) or
  // neighbourhood ones, nor the device layer's (ALLREDUCE_POSIX_INTRA_ALGORITHM), which ch4
  // reads on its own paths.
  static const std::array<std::string_view, 17> kBlocking{"allgather",      "allgatherv",
                                                          "allreduce",      "alltoall",
                                                          "alltoallv",      "alltoallw",
                                                          "barrier",        "bcast",
                                                          "exscan",         "gather",
                                                          "gatherv",        "reduce",
                                                          "reduce_scatter", "reduce_scatter_block",
                                                          "scan",           "scatter",
                                                          "scatterv"};
  if (std::find(kBlocking.begin(), kBlocking.end(), coll) == kBlocking.end()) return std::nullopt;
  return coll;
}

std::optional<std::string> check_algorithm_value(const AlgorithmKnob& knob, std::string_view text) {
  if (text == "default") return std::nullopt;
  if (knob.highest_id >= knob.lowest_id) {
    const auto ids = adjust_ids(text);
    if (ids && std::all_of(ids->begin(), ids->end(), [&](long long id) {
          return id >= knob.lowest_id && id <= knob.highest_id;
        })) {
      return std::nullopt;
    }
    return "allowed: preset ids " + std::to_string(knob.lowest_id) + " to " +
           std::to_string(knob.highest_id) +
           " this Intel MPI offers, alone or as id:lo-hi;id:lo-hi (message bytes, @ranks)";
  }
  if (std::find(knob.names.begin(), knob.names.end(), text) != knob.names.end()) {
    return std::nullopt;
  }
  std::string allowed = "allowed:";
  for (const std::string& name : knob.names) allowed += " " + name;
  return allowed + " (what this MPI offers), or default";
}

}  // namespace colltune
