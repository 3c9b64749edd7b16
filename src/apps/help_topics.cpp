#include "apps/help_topics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "core/environment.hpp"
#include "core/errors.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

// Which page answers for each command: where a reader who typed `colltune <command> --help`
// goes next.
struct CommandPage {
  const char* command;
  const char* topic;
};
constexpr CommandPage kCommandPages[] = {
    {"run", "measuring"}, {"import", "measuring"}, {"topo", "measuring"},  {"sweep", "sweeps"},
    {"report", "sweeps"}, {"tune", "deploy"},      {"verify", "deploy"},   {"compare", "ci"},
    {"noise", "ci"},      {"push", "ci"},          {"history", "history"}, {"health", "health"},
};

const HelpTopic* find_topic(const std::string& name) {
  const auto& topics = help_topics();
  const auto it = std::find_if(topics.begin(), topics.end(),
                               [&](const HelpTopic& t) { return name == t.name; });
  if (it != topics.end()) return &*it;
  for (const CommandPage& c : kCommandPages) {
    if (name == c.command) return find_topic(c.topic);
  }
  return nullptr;
}

// The page on this machine: an install's share/doc/colltune/docs beside bin/, else the source
// tree this colltune was built from; empty where neither holds it.
std::string local_copy(const std::string& page) {
  std::error_code ec;
  const fs::path exe = own_executable_path();
  for (const fs::path& root :
       {exe.parent_path() / ".." / "share" / "doc" / "colltune", fs::path(COLLTUNE_SOURCE_DIR)}) {
    const fs::path candidate = (root / page).lexically_normal();
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  return {};
}

std::string page_line(const HelpTopic& t) {
  const std::string here = local_copy(t.page);
  return here.empty() || here == t.page ? std::string(t.page)
                                        : fmt::format("{} ({})", t.page, here);
}

}  // namespace

const std::vector<HelpTopic>& help_topics() {
  // Each line of the table within 100 columns: a description of at most 58 characters.
  static const std::vector<HelpTopic> topics{
      {"measuring", "docs/measuring.md", "measure collectives, nccl-tests/OSU style; import logs"},
      {"sweeps", "docs/sweeps-and-tuning.md", "sweep knobs, MPIs and placement; reports"},
      {"deploy", "docs/deploy-tuned.md", "tuned files the libraries load as they are; verify"},
      {"ci", "docs/ci-gate.md", "the CI gate: compare, noise floor, JUnit, Pushgateway"},
      {"history", "docs/history.md", "nightly history: change points and what changed"},
      {"health", "docs/health.md", "find the slow or failed node or link"},
      {"gpu", "docs/gpu.md", "the NCCL backend and GPU specifics"},
      {"install", "docs/install.md", "cmake --install, the .deb, Spack, containers"},
      {"schema", "docs/jsonl-schema.md", "reference: every field of a record (JSONL)"},
      {"statistics", "docs/statistics.md", "reference: every decision rule, its error rates"},
      {"tuned-file", "docs/tuned-file.md", "reference: the tuned files colltune writes"},
      {"sweep-spec", "docs/sweep-spec.md", "reference: every key of a sweep spec"},
      {"store", "docs/sweep-store.md", "reference: a sweep's store on disk"},
      {"cli", "docs/cli.md", "reference: every command, its options, exit codes"},
  };
  return topics;
}

std::string read_more_line(const std::string& command) {
  const HelpTopic* t = find_topic(command);
  return t ? "Read more: " + page_line(*t) : std::string();
}

std::string topics_table() {
  std::string out;
  for (const HelpTopic& t : help_topics())
    out += fmt::format("  {:<11} {:<26} {}\n", t.name, t.page, t.what);
  return out;
}

int help_command(const std::vector<std::string>& args) {
  if (args.size() > 1) {
    throw ConfigError(
        fmt::format("help: {} topics given; allowed: one, or none to list them", args.size()));
  }
  if (args.empty()) {
    std::printf(
        "colltune help TOPIC (or a command: colltune help sweep) gives its page here:\n\n%s",
        topics_table().c_str());
    return 0;
  }
  const HelpTopic* t = find_topic(args[0]);
  if (t == nullptr) {
    std::string allowed;
    for (const HelpTopic& topic : help_topics()) allowed += std::string(" ") + topic.name;
    for (const CommandPage& c : kCommandPages) allowed += std::string(" ") + c.command;
    throw ConfigError(
        fmt::format("help: '{}' is not a topic or command; allowed:{}", args[0], allowed));
  }
  std::printf("%s: %s\n%s\n", t->name, t->what, page_line(*t).c_str());
  return 0;
}

}  // namespace colltune
