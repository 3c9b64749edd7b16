#include "core/mpi_family.hpp"

#include <regex>
#include <string>

namespace colltune {
namespace {

// The first capture of `pattern` in `text`, or "".
std::string first_match(std::string_view text, const std::regex& pattern) {
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(text.begin(), text.end(), m, pattern)) return "";
  return m[1].str();
}

bool contains(std::string_view text, std::string_view word) {
  return text.find(word) != std::string_view::npos;
}

}  // namespace

std::optional<MpiIdentity> identify_mpi_library(std::string_view text) {
  // Most specific first: Cray's and MVAPICH's texts also say MPICH, Intel's is MPICH-based too.
  if (contains(text, "CRAY MPICH")) {
    static const std::regex kVersion(R"(CRAY MPICH version ([0-9][0-9.]*[0-9]))");
    return MpiIdentity{"Cray MPICH", first_match(text, kVersion), LaunchDialect::kHydra};
  }
  if (contains(text, "MVAPICH")) {
    static const std::regex kVersion(R"(MVAPICH2? Version\s*:\s*([0-9][0-9.a-z]*))");
    return MpiIdentity{"MVAPICH", first_match(text, kVersion), LaunchDialect::kHydra};
  }
  if (contains(text, "Intel(R) MPI Library")) {
    static const std::regex kVersion(R"(Intel\(R\) MPI Library ([0-9][0-9.]*[0-9]))");
    return MpiIdentity{"Intel MPI", first_match(text, kVersion), LaunchDialect::kIntelMpi};
  }
  if (contains(text, "Open MPI")) {
    static const std::regex kVersion(R"(Open MPI v([0-9][0-9.]*[0-9a-z]*))");
    return MpiIdentity{"Open MPI", first_match(text, kVersion), LaunchDialect::kOpenMpi};
  }
  if (contains(text, "MPICH Version")) {
    static const std::regex kVersion(R"(MPICH Version:\s*([0-9][0-9.a-z]*))");
    return MpiIdentity{"MPICH", first_match(text, kVersion), LaunchDialect::kHydra};
  }
  return std::nullopt;
}

std::optional<MpiIdentity> identify_mpi_launcher(std::string_view text) {
  if (contains(text, "Intel(R) MPI Library")) {
    static const std::regex kVersion(R"(Version ([0-9][0-9.]*[0-9]))");
    return MpiIdentity{"Intel MPI", first_match(text, kVersion), LaunchDialect::kIntelMpi};
  }
  if (contains(text, "(Open MPI)") || contains(text, "(OpenRTE)")) {
    static const std::regex kVersion(R"(\((?:Open MPI|OpenRTE)\) ([0-9][0-9.]*[0-9a-z]*))");
    return MpiIdentity{"Open MPI", first_match(text, kVersion), LaunchDialect::kOpenMpi};
  }
  if (contains(text, "HYDRA build details")) {
    // MPICH's own Hydra, and MVAPICH's and others' built from it: one dialect.
    static const std::regex kVersion(R"(Version:\s*([0-9][0-9.a-z]*))");
    return MpiIdentity{"MPICH", first_match(text, kVersion), LaunchDialect::kHydra};
  }
  return std::nullopt;
}

std::optional<LaunchDialect> dialect_of_family(std::string_view family) {
  if (family == "Open MPI") return LaunchDialect::kOpenMpi;
  if (family == "MPICH" || family == "MVAPICH" || family == "Cray MPICH")
    return LaunchDialect::kHydra;
  if (family == "Intel MPI") return LaunchDialect::kIntelMpi;
  return std::nullopt;
}

std::optional<LaunchDialect> dialect_named(std::string_view name) {
  if (name == "openmpi") return LaunchDialect::kOpenMpi;
  if (name == "mpich") return LaunchDialect::kHydra;
  if (name == "intelmpi") return LaunchDialect::kIntelMpi;
  return std::nullopt;
}

const char* dialect_name(LaunchDialect d) {
  switch (d) {
    case LaunchDialect::kOpenMpi:
      return "openmpi";
    case LaunchDialect::kHydra:
      return "mpich";
    case LaunchDialect::kIntelMpi:
      return "intelmpi";
  }
  return "openmpi";
}

}  // namespace colltune
