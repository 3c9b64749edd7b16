#include "core/failure_reason.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include "core/ascii_case.hpp"

namespace colltune {
namespace {

bool contains_any(const std::string& text, const auto& words) {
  return std::any_of(words.begin(), words.end(),
                     [&](std::string_view w) { return text.find(w) != std::string::npos; });
}

// mpirun's lines about the job's end: they follow every failure and explain none.
constexpr std::array<std::string_view, 5> kConsequences{
    "primary job", "mpirun detected that one or more processes", "per user-direction",
    "we reiterate our advice", "you may or may not see output from other processes"};
constexpr std::array<std::string_view, 12> kCauses{"has detected an attempt to run as root",
                                                   "error",
                                                   "failed",
                                                   "cannot",
                                                   "unable",
                                                   "no such file",
                                                   "not found",
                                                   "refused",
                                                   "segmentation fault",
                                                   "killed",
                                                   "not enough slots",
                                                   "permission denied"};

}  // namespace

std::optional<std::string> failure_reason(const std::vector<std::string>& tail) {
  for (auto it = tail.rbegin(); it != tail.rend(); ++it) {
    if (it->rfind("colltune:", 0) == 0) return *it;
  }
  for (const std::string& line : tail) {
    const std::string text = ascii_lower(line);
    if (!contains_any(text, kConsequences) && contains_any(text, kCauses)) return line;
  }
  for (auto it = tail.rbegin(); it != tail.rend(); ++it) {
    if (it->find_first_not_of("- \t") != std::string::npos) return *it;
  }
  return std::nullopt;
}

std::optional<std::string> known_fix(const std::string& reason) {
  const std::string text = ascii_lower(reason);
  if (text.find("attempt to run as root") != std::string::npos) {
    return "Open MPI refuses root without consent: export OMPI_ALLOW_RUN_AS_ROOT=1 "
           "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1, or add --allow-run-as-root to launcher_args";
  }
  if (text.find("not enough slots") != std::string::npos) {
    return "mpirun has fewer slots than np: add --oversubscribe to launcher_args, or lower np";
  }
  return std::nullopt;
}

}  // namespace colltune
