#pragma once
// What colltune takes as a node's name, wherever hosts are given (a sweep spec, health's --hosts
// and --hostfile): one rule, so that a host refused by one is refused by all.

#include <algorithm>
#include <cctype>
#include <string_view>

namespace colltune {

// Letters, digits, '.', '-', '_', starting with a letter or digit: never an option ("-np") for
// the launcher, nor a shell word. Pure.
inline bool is_host_name(std::string_view name) {
  return !name.empty() && std::isalnum(static_cast<unsigned char>(name[0])) &&
         std::all_of(name.begin(), name.end(), [](unsigned char ch) {
           return std::isalnum(ch) || ch == '.' || ch == '-' || ch == '_';
         });
}

}  // namespace colltune
