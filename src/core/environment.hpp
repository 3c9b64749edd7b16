#pragma once
// Which environment variables a record may keep (DESIGN.md section 3).

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

// NCCL_*, OMPI_*, PMIX_MCA_*, UCX_*, CUDA_*, COLLTUNE_* pass; values of names containing KEY,
// TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, AUTH or PRIVATE (any case) become "<redacted>";
// everything else is dropped.
std::map<std::string, std::string> allowed_environment(const char* const* envp);

// What a secret's value is replaced with, everywhere.
inline constexpr const char* kRedacted = "<redacted>";

// A value colltune already redacted ("<redacted>", or the sweep's "<redacted 2>" that tells two
// secret values of one axis apart): kept as it is when read back.
inline bool is_redacted(std::string_view value) { return value.starts_with("<redacted"); }

bool is_recorded_variable(std::string_view name);
bool is_secret_variable(std::string_view name);

// The one redaction of words the driver writes or prints (argv, launcher_args, dry runs):
// "NAME=VALUE" with a secret NAME becomes "NAME=<redacted>", as does the value after
// "--mca NAME" / "-mca NAME" / "--gmca NAME"; every other word is kept.
std::vector<std::string> redact_words(const std::vector<std::string>& words);

// This process's executable (/proc/self/exe), absolute; "colltune" where it cannot be read, so a
// launch then finds colltune on PATH.
std::string own_executable_path();

}  // namespace colltune
