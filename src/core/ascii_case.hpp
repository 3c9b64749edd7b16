#pragma once
// ASCII case folding for names and log lines (knob names, variable names, launcher output):
// the C locale's, whatever the process locale is.

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace colltune {

inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

inline std::string ascii_upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  return out;
}

}  // namespace colltune
