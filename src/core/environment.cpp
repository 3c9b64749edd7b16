#include "core/environment.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace colltune {

bool is_recorded_variable(std::string_view name) {
  constexpr std::array<std::string_view, 6> kPrefixes{"NCCL_", "OMPI_", "PMIX_MCA_",
                                                      "UCX_",  "CUDA_", "COLLTUNE_"};
  return std::any_of(kPrefixes.begin(), kPrefixes.end(),
                     [&](std::string_view p) { return name.starts_with(p); });
}

bool is_secret_variable(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  constexpr std::array<std::string_view, 8> kWords{"KEY",    "TOKEN",      "SECRET", "PASSWORD",
                                                   "PASSWD", "CREDENTIAL", "AUTH",   "PRIVATE"};
  return std::any_of(kWords.begin(), kWords.end(),
                     [&](std::string_view w) { return upper.find(w) != std::string::npos; });
}

std::map<std::string, std::string> allowed_environment(const char* const* envp) {
  std::map<std::string, std::string> out;
  for (; envp != nullptr && *envp != nullptr; ++envp) {
    const std::string_view entry(*envp);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = entry.substr(0, eq);
    if (!is_recorded_variable(key)) continue;
    out[std::string(key)] =
        is_secret_variable(key) ? "<redacted>" : std::string(entry.substr(eq + 1));
  }
  return out;
}

}  // namespace colltune
