// libFuzzer target over every reader of files colltune is handed: run records (JSONL), sweep
// manifests, nccl-tests JSON and text logs, OSU logs (all through load_dataset, which picks the
// reader by content, as report and compare do) and the tuned file the NCCL plugin reads. Bad
// input must end as the reader's own error (ConfigError; the plugin's parser's runtime_error)
// with one line: any other exception, a crash, a hang or a leak is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "core/errors.hpp"
#include "store/results.hpp"
#include "tuner_plugin/tuned_rules.hpp"

namespace {

// One file for the process, rewritten per input: the readers take a path. Its name gives OSU
// collectives their rank count (np4), as users name such logs.
const std::string& scratch_path() {
  static const std::string path = [] {
    char name[] = "/tmp/colltune-fuzz-XXXXXX.np4.log";
    const int fd = ::mkstemps(name, 8);
    if (fd >= 0) ::close(fd);
    return std::string(name);
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string& path = scratch_path();
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  for (const bool skip_bad : {false, true}) {
    try {
      (void)colltune::load_dataset(path, colltune::LoadOptions{skip_bad});
    } catch (const colltune::ConfigError& e) {
      // The one clear line bad input gets: never a library's error code in it (one the input
      // itself holds may be quoted back).
      const std::string what = e.what();
      const bool library_code = what.find("[json.exception.") != std::string::npos &&
                                text.find("[json.exception.") == std::string::npos;
      if (library_code || what.find('\n') != std::string::npos) __builtin_trap();
    }
  }
  try {
    (void)colltune::parse_tuned_file(text);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
