#include "core/environment.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

#include "core/ascii_case.hpp"

namespace colltune {

bool is_recorded_variable(std::string_view name) {
  // MPICH's (and its derivatives') MPIR_CVAR_ and MPICH_, Intel MPI's I_MPI_, FI_ (libfabric)
  // beside Open MPI's and NCCL's: what sets each MPI's algorithms and transport.
  constexpr std::array<std::string_view, 10> kPrefixes{
      "NCCL_",     "OMPI_",      "PMIX_MCA_", "UCX_",   "CUDA_",
      "COLLTUNE_", "MPIR_CVAR_", "MPICH_",    "I_MPI_", "FI_"};
  return std::any_of(kPrefixes.begin(), kPrefixes.end(),
                     [&](std::string_view p) { return name.starts_with(p); });
}

bool is_secret_variable(std::string_view name) {
  const std::string upper = ascii_upper(name);
  constexpr std::array<std::string_view, 8> kWords{"KEY",    "TOKEN",      "SECRET", "PASSWORD",
                                                   "PASSWD", "CREDENTIAL", "AUTH",   "PRIVATE"};
  return std::any_of(kWords.begin(), kWords.end(),
                     [&](std::string_view w) { return upper.find(w) != std::string::npos; });
}

std::vector<std::string> redact_words(const std::vector<std::string>& words) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    const bool mca = (word == "--mca" || word == "-mca" || word == "--gmca" || word == "-gmca");
    if (mca && i + 2 < words.size() && is_secret_variable(words[i + 1]) &&
        !is_redacted(words[i + 2])) {
      out.insert(out.end(), {word, words[i + 1], kRedacted});
      i += 2;
      continue;
    }
    const auto eq = word.find('=');
    const bool secret = eq != std::string::npos && !word.starts_with("-") &&
                        is_secret_variable(std::string_view(word).substr(0, eq)) &&
                        !is_redacted(std::string_view(word).substr(eq + 1));
    out.push_back(secret ? word.substr(0, eq + 1) + kRedacted : word);
  }
  return out;
}

std::map<std::string, std::string> allowed_environment(const char* const* envp) {
  std::map<std::string, std::string> out;
  for (; envp != nullptr && *envp != nullptr; ++envp) {
    const std::string_view entry(*envp);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = entry.substr(0, eq);
    if (!is_recorded_variable(key)) continue;
    out[std::string(key)] = is_secret_variable(key) ? kRedacted : std::string(entry.substr(eq + 1));
  }
  return out;
}

std::string own_executable_path() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("colltune") : exe.string();
}

}  // namespace colltune
