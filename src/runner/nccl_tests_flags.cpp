#include "runner/nccl_tests_flags.hpp"

#include <fmt/format.h>

#include <charconv>

#include "core/errors.hpp"

namespace colltune {
namespace {

// nccl-tests' flags colltune does not take. A value equal to nccl-tests' default changes nothing
// there, so it is accepted; any other is refused with the reason.
struct Unsupported {
  const char* names;  // CLI11 names
  const char* shown;  // as an error line names it
  const char* default_value;
  const char* reason;
};

constexpr Unsupported kUnsupported[] = {
    {"-N,--run_cycles", "-N/--run_cycles", "1",
     "colltune measures each size once per run; more samples: --repetitions N"},
    {"-y,--stream_null", "-y/--stream_null", "0",
     "colltune launches on a stream of its own, never the null stream"},
    {"-S,--report_timestamps", "-S/--report_timestamps", "0",
     "colltune's records carry the run's start time (--json); per-row timestamps are not kept"},
    {"-R,--local_register", "-R/--local_register", "0",
     "colltune does not register buffers with NCCL yet"},
    {"-x,--cta_policy", "-x/--cta_policy", "",
     "colltune does not set ncclConfig_t.CTAPolicy yet (--min-ctas and --max-ctas it does)"},
    {"-D,--device_implementation", "-D/--device_implementation", "0",
     "colltune measures NCCL's host-launched collectives only"},
    {"-V,--device_cta_count", "-V/--device_cta_count", "16",
     "colltune measures NCCL's host-launched collectives only"},
    {"-M,--memory", "-M/--memory", "0", "colltune does not report memory use"},
    {"-u,--unalign", "-u/--unalign", "0", "colltune's buffers are always 256-byte aligned"},
};

bool count_option(const CLI::App& app, const std::string& name) { return app.count(name) > 0; }

int zero_or_one(const std::string& text, std::string_view flag) {
  if (text == "0" || text == "1") return text == "1";
  throw ConfigError(fmt::format("{}: '{}' is not allowed; allowed: 0 or 1", flag, text));
}

// -I 1 times every iteration on its own, as nccl-tests does: -n iterations become -n samples of
// one iteration (-m ops) each, every process's samples are kept, and -J writes nccl-tests'
// per-iteration objects from them. Runs before -m multiplies policy.iters.
void apply_per_iteration_flags(const CLI::App& app, const NcclTestsFlags& flags, RunOptions& o) {
  const bool per_iter =
      count_option(app, "-I") && zero_or_one(flags.per_iter_timing, "-I/--per_iter_timing") == 1;
  if (count_option(app, "-K")) {
    const int iterations = per_iter ? o.policy.iters : 0;
    int skip = -1;
    const std::string& text = flags.per_iter_skip;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), skip);
    if (!per_iter && text != "0") {
      throw ConfigError(fmt::format(
          "-K/--per_iter_skip: '{}': it leaves iterations out of -I's summary; allowed: with "
          "-I 1, or 0",
          text));
    }
    if (per_iter &&
        (ec != std::errc() || end != text.data() + text.size() || skip < 0 || skip >= iterations)) {
      throw ConfigError(fmt::format(
          "-K/--per_iter_skip: '{}' is not allowed; allowed: 0 to {} (below -n/--iters {})", text,
          iterations - 1, iterations));
    }
    if (per_iter) o.per_iter_skip = skip;
  }
  if (!per_iter) return;
  if (o.backend_options.graph) {
    throw ConfigError(
        "-I/--per_iter_timing: 1 times each iteration, and -G replays them as one graph; "
        "allowed: -I 1 without -G, as in nccl-tests");
  }
  if (count_option(app, "--repetitions")) {
    throw ConfigError(
        "--repetitions: with -I 1 every one of -n/--iters iterations is a sample; allowed: -n N "
        "and no --repetitions");
  }
  if (count_option(app, "--interleave") || count_option(app, "--interleave-set")) {
    throw ConfigError(
        "-I/--per_iter_timing: 1 reports one configuration's iterations; allowed: -I 1 "
        "without --interleave");
  }
  o.per_iter_timing = true;
  o.policy.repetitions = o.policy.iters;
  o.policy.iters = 1;
  o.policy.rank_samples = true;
}

}  // namespace

void add_nccl_tests_flags(CLI::App& app, NcclTestsFlags& flags) {
  // nccl-tests' -G takes the number of graph launches; colltune's -G alone means 1.
  app.add_option("-G,--graph,--cudagraph", flags.graph)->expected(0, 1);
  app.add_option("-z,--blocking", flags.blocking);
  app.add_option("-C,--report_cputime", flags.cputime);
  app.add_option("-p,--parallel_init", flags.parallel_init);
  app.add_option("-J,--output_file", flags.output_file);
  app.add_option("-I,--per_iter_timing", flags.per_iter_timing);
  app.add_option("-K,--per_iter_skip", flags.per_iter_skip);
  for (const Unsupported& u : kUnsupported) {
    app.add_option(u.names, flags.unsupported[u.shown])->group("");
  }
}

void apply_nccl_tests_flags(const CLI::App& app, const NcclTestsFlags& flags, bool timing_given,
                            RunOptions& o) {
  for (const Unsupported& u : kUnsupported) {
    const std::string shown = u.shown;
    const std::string name = shown.substr(0, shown.find('/'));
    const std::string& value = flags.unsupported.at(shown);
    if (count_option(app, name) == 0 || value == u.default_value) continue;
    throw ConfigError(
        fmt::format("{}: '{}': {}; allowed: {}", shown, value, u.reason,
                    *u.default_value != '\0'
                        ? fmt::format("{} (nccl-tests' default), or leave it out", u.default_value)
                        : std::string("leave it out")));
  }
  if (count_option(app, "-G")) {
    if (flags.graph.empty()) {
      o.backend_options.graph = true;
    } else {
      long long launches = -1;
      const auto [end, ec] =
          std::from_chars(flags.graph.data(), flags.graph.data() + flags.graph.size(), launches);
      if (ec != std::errc() || end != flags.graph.data() + flags.graph.size() || launches < 0) {
        throw ConfigError(fmt::format(
            "-G/--graph: '{}' is not allowed; allowed: no value or 1 (on), 0 (off), or nccl-tests' "
            "launch count N >= 1",
            flags.graph));
      }
      o.backend_options.graph = launches > 0;
      if (launches > 1) {
        o.notes.push_back(fmt::format(
            "-G {}: each sample replays its captured batch once, and --repetitions sets the "
            "samples; nccl-tests' launch count only averages more launches into one time",
            launches));
      }
    }
  }
  if (count_option(app, "-z")) {
    const std::string& z = flags.blocking;
    TimingMode mode;
    if (z == "0") {
      mode = TimingMode::kBatch;
    } else if (z == "3") {
      mode = TimingMode::kPerOp;
    } else {
      throw ConfigError(fmt::format(
          "-z/--blocking: '{}' is not allowed; allowed: 0 (ops back to back, = --timing batch) or "
          "3 (each op waited for, barrier outside the time, = --timing per-op); colltune does not "
          "time nccl-tests' 1 (a barrier inside the timed loop) or 2 (a wait without barrier)",
          z));
    }
    if (timing_given && mode != o.policy.timing) {
      throw ConfigError(fmt::format(
          "-z/--blocking: {} means --timing {}, but --timing {} was given; allowed: one of them", z,
          name(mode), name(o.policy.timing)));
    }
    o.policy.timing = mode;
  }
  if (count_option(app, "-C") && zero_or_one(flags.cputime, "-C/--report_cputime") == 1) {
    o.policy.span = TimeSpan::kLaunch;
  }
  if (count_option(app, "-p") && zero_or_one(flags.parallel_init, "-p/--parallel_init") == 1) {
    o.notes.push_back(
        "-p 1: no effect here: one thread per process creates its communicators, as one NCCL "
        "group where it drives several GPUs");
  }
  if (count_option(app, "-J")) {
    const std::string& path = flags.output_file;
    if (path.size() < 6 || path.substr(path.size() - 5) != ".json") {
      throw ConfigError(fmt::format(
          "-J/--output_file: '{}': nccl-tests writes its JSON only to a name ending in .json; "
          "allowed: FILE.json (colltune's own records: --json FILE)",
          path));
    }
    o.nccl_tests_json_path = path;
  }
  apply_per_iteration_flags(app, flags, o);
}

}  // namespace colltune
