#include "core/interleave.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "core/errors.hpp"

namespace colltune {
namespace {

// "OMPI_MCA_coll_tuned_x" or "coll_tuned_x" -> "coll_tuned_x"; nullopt unless an MCA name.
std::optional<std::string> mca_name(std::string_view text) {
  if (text.starts_with("OMPI_MCA_")) text.remove_prefix(9);
  const bool good = !text.empty() && std::all_of(text.begin(), text.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
  });
  return good ? std::optional<std::string>(text) : std::nullopt;
}

std::string value_or_throw(std::string_view text, std::string_view flag, const std::string& name) {
  if (auto value = canonical_mpi_t_value(text)) return *value;
  throw ConfigError(fmt::format(
      "{} {}: '{}' is not allowed; allowed: a 32-bit integer, or default (the launch value)", flag,
      name, text));
}

void check_count(std::size_t settings, std::string_view flag) {
  if (settings > kMaxInterleaved) {
    throw ConfigError(
        fmt::format("{}: {} settings; allowed: at most {} in one launch (use a sweep)", flag,
                    settings, kMaxInterleaved));
  }
}

std::vector<MpiTSettings> product_of_axes(const std::vector<std::string>& axes) {
  std::vector<MpiTSettings> product{{}};
  for (const std::string& item : axes) {
    const auto equals = item.find('=');
    const auto name = mca_name(std::string_view(item).substr(0, equals));
    if (equals == std::string::npos || !name || equals + 1 == item.size()) {
      throw ConfigError(fmt::format(
          "--interleave: '{}' is not NAME=V1,V2,...; allowed: an Open MPI parameter and its "
          "integer values, such as coll_tuned_allreduce_algorithm=1,2,4",
          item));
    }
    if (product.front().count(*name) != 0) {
      throw ConfigError(
          fmt::format("--interleave: {} is given twice; allowed: once per name", *name));
    }
    std::vector<std::string> values;
    std::string_view rest = std::string_view(item).substr(equals + 1);
    for (bool more = true; more;) {
      const auto comma = rest.find(',');
      const std::string value = value_or_throw(rest.substr(0, comma), "--interleave", *name);
      if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
      more = comma != std::string_view::npos;
      if (more) rest.remove_prefix(comma + 1);
    }
    std::vector<MpiTSettings> next;
    for (const auto& partial : product) {
      for (const std::string& value : values) {
        next.push_back(partial);
        next.back()[*name] = value;
      }
    }
    product = std::move(next);
    check_count(product.size(), "--interleave");
  }
  return product;
}

std::vector<MpiTSettings> explicit_sets(const std::vector<std::string>& sets) {
  std::vector<MpiTSettings> out;
  std::set<std::string> names;
  for (const std::string& item : sets) {
    MpiTSettings setting;
    std::string_view rest(item);
    while (!rest.empty()) {
      const auto space = rest.find(' ');
      const std::string_view word = rest.substr(0, space);
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
      if (word.empty()) continue;
      const auto equals = word.find('=');
      const auto name = mca_name(word.substr(0, equals));
      if (equals == std::string_view::npos || !name || setting.count(*name) != 0) {
        throw ConfigError(fmt::format(
            "--interleave-set: '{}' is not NAME=V NAME2=V2 ...; allowed: Open MPI parameters, "
            "each once, with an integer or default",
            item));
      }
      setting[*name] = value_or_throw(word.substr(equals + 1), "--interleave-set", *name);
      names.insert(*name);
    }
    if (setting.empty()) {
      throw ConfigError(fmt::format(
          "--interleave-set: '{}' names no parameter; allowed: NAME=V NAME2=V2 ...", item));
    }
    out.push_back(std::move(setting));
  }
  for (auto& setting : out) {
    for (const std::string& name : names) setting.try_emplace(name, "default");
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::find(out.begin(), out.begin() + static_cast<long>(i), out[i]) !=
        out.begin() + static_cast<long>(i)) {
      throw ConfigError(
          fmt::format("--interleave-set: '{}' is given twice; allowed: once each", sets[i]));
    }
  }
  check_count(out.size(), "--interleave-set");
  return out;
}

}  // namespace

std::optional<std::string> canonical_mpi_t_value(std::string_view text) {
  if (text == "default") return std::string(text);
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < -(1LL << 31) ||
      value >= (1LL << 31)) {
    return std::nullopt;
  }
  return std::to_string(value);
}

std::vector<MpiTSettings> parse_interleave(const std::vector<std::string>& axes,
                                           const std::vector<std::string>& sets) {
  if (!axes.empty() && !sets.empty()) {
    throw ConfigError(
        "--interleave-set: given with --interleave; allowed: one of the two (the product of "
        "axes, or explicit settings)");
  }
  if (!sets.empty()) return explicit_sets(sets);
  return axes.empty() ? std::vector<MpiTSettings>{} : product_of_axes(axes);
}

}  // namespace colltune
