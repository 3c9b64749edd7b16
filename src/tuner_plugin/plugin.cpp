// libnccl-tuner-colltune.so: NCCL loads it with NCCL_TUNER_PLUGIN=colltune (or its path) and it
// applies the rows of the tuned file COLLTUNE_TUNER_FILE names (tune --emit nccl-plugin). It runs
// inside someone else's job, and NCCL 2.28 fails a communicator or a collective on any error
// from init or getCollInfo (no fallback), so every entry point returns success, lets nothing
// throw across the C boundary, and on any problem logs once and changes nothing.

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/nccl_tuned_format.hpp"
#include "core/regular_file.hpp"
#include "tuner_plugin/nccl_tuner_abi.h"
#include "tuner_plugin/tuned_rules.hpp"

namespace colltune {
namespace {

constexpr const char* kPluginName = "colltune";

// One per communicator: its own rows, so many communicators in one process share nothing
// mutable but the once-per-process warning flag.
struct Context {
  ncclTunerLogger_t log = nullptr;
  bool stand_aside = false;
  std::vector<TunedRow> rows;                     // the file's rows for this communicator
  std::vector<std::string> applied, unavailable;  // per row, built at init: no work per call
  std::unique_ptr<std::atomic<bool>[]> logged;    // per row: its decision was logged
};

std::atomic<bool> g_file_warned{false};

// What the newest init in this process saw, one JSON object, for colltune's own NCCL backend to
// record (colltune_tuner_last_init): proof that NCCL loaded the plugin and called it, with the
// node count NCCL counts (a multi-node NVLink clique is one node to it). Written at init only.
std::mutex g_last_init_mutex;
std::string g_last_init;

void remember(std::size_t nranks, std::size_t nnodes, std::size_t rows, std::size_t rows_in_file,
              const char* file, const std::string& note) {
  const nlohmann::json j{{"nranks", nranks},
                         {"nnodes", nnodes},
                         {"rows", rows},
                         {"rows_in_file", rows_in_file},
                         {"file", file ? file : ""},
                         {"note", note}};
  const std::lock_guard<std::mutex> lock(g_last_init_mutex);
  g_last_init = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void say(const Context& c, int level, unsigned long flags, const std::string& text) {
  if (c.log != nullptr) c.log(level, flags, __FILE__, __LINE__, "%s", text.c_str());
}

bool set(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0';
}

void load(Context& c, std::size_t nranks, std::size_t nnodes) {
  // NCCL_ALGO / NCCL_PROTO are the user's own choice: a tuner must not fight them.
  if (set("NCCL_ALGO") || set("NCCL_PROTO")) {
    c.stand_aside = true;
    say(c, kNcclLogInfo, kNcclLogInit | kNcclLogTuning,
        "colltune tuner: NCCL_ALGO or NCCL_PROTO is set: standing aside");
    remember(nranks, nnodes, 0, 0, std::getenv("COLLTUNE_TUNER_FILE"),
             "NCCL_ALGO or NCCL_PROTO is set: standing aside");
    return;
  }
  const char* path = std::getenv("COLLTUNE_TUNER_FILE");
  std::vector<TunedRow> all;
  std::string problem;
  if (path == nullptr || *path == '\0') {
    problem = "COLLTUNE_TUNER_FILE is not set (a file from colltune tune --emit nccl-plugin)";
  } else {
    // Non-blocking, regular files only, capped: a FIFO or /dev/zero must not stall NCCL's init.
    std::string text;
    if (!read_regular_file(path, tuned_format::kMaxFileBytes, text, problem)) {
      problem = std::string(path) + ": " + problem;
    } else {
      try {
        all = parse_tuned_file(text);
      } catch (const std::exception& e) {
        problem = std::string(path) + ": " + e.what();
      }
    }
  }
  if (!problem.empty()) {
    if (!g_file_warned.exchange(true)) {
      say(c, kNcclLogWarn, kNcclLogInit | kNcclLogTuning,
          "colltune tuner: " + problem + "; changing nothing");
    }
    remember(nranks, nnodes, 0, 0, path, problem);
    return;
  }
  for (const TunedRow& row : all) {
    if (row.nnodes == nnodes && row.nranks == nranks) c.rows.push_back(row);
  }
  c.logged = std::make_unique<std::atomic<bool>[]>(c.rows.size());
  for (const TunedRow& row : c.rows) {
    c.applied.push_back("colltune tuner: row " + std::to_string(row.line) +
                        " applied: " + describe_row(row));
    c.unavailable.push_back("colltune tuner: row " + std::to_string(row.line) + " (" +
                            describe_row(row) +
                            ") names only cells NCCL cannot run here (-1): NCCL's choice stands");
  }
  say(c, kNcclLogInfo, kNcclLogInit | kNcclLogTuning,
      "colltune tuner: " + std::string(path) + " (version " +
          std::to_string(tuned_format::kVersion) + "): " + std::to_string(c.rows.size()) + " of " +
          std::to_string(all.size()) + " rows for this communicator (" + std::to_string(nnodes) +
          " nodes, " + std::to_string(nranks) + " ranks)" +
          (c.rows.empty() && !all.empty() ? "; it was measured on others: changing nothing" : ""));
  remember(nranks, nnodes, c.rows.size(), all.size(), path, "");
}

ncclTunerResult_t init_common(std::size_t nranks, std::size_t nnodes, ncclTunerLogger_t log,
                              void** context) noexcept {
  if (context == nullptr) return ncclTunerSuccess;
  *context = nullptr;  // getCollInfo passes everything through without a context
  try {
    auto c = std::make_unique<Context>();
    c->log = log;
    load(*c, nranks, nnodes);
    *context = c.release();
  } catch (...) {
    // Out of memory at worst: no context, NCCL's own choices.
  }
  return ncclTunerSuccess;
}

ncclTunerResult_t get_coll_info(void* context, ncclTunerFunc_t collective, std::size_t bytes,
                                int /*num_pipe_ops*/, float** table, int num_algo, int num_proto,
                                int /*reg_buff*/, int* n_channels) noexcept {
  auto* c = static_cast<Context*>(context);
  if (c == nullptr || c->stand_aside || c->rows.empty()) return ncclTunerSuccess;
  const TunedDecision d =
      apply_rows(c->rows.data(), c->rows.size(), collective, bytes, reinterpret_cast<float*>(table),
                 num_algo, num_proto, n_channels);
  if (d.row >= 0 && !c->logged[d.row].exchange(true, std::memory_order_relaxed)) {
    say(*c, kNcclLogInfo, kNcclLogTuning, d.applied ? c->applied[d.row] : c->unavailable[d.row]);
  }
  return ncclTunerSuccess;
}

ncclTunerResult_t get_coll_info_v3(void* context, ncclTunerFunc_t collective, std::size_t bytes,
                                   int num_pipe_ops, float** table, int num_algo, int num_proto,
                                   int* n_channels) noexcept {
  return get_coll_info(context, collective, bytes, num_pipe_ops, table, num_algo, num_proto, 0,
                       n_channels);
}

ncclTunerResult_t init_v5(void** context, std::uint64_t /*comm_id*/, std::size_t nranks,
                          std::size_t nnodes, ncclTunerLogger_t log, ncclNvlDomainInfo_v5_t*,
                          ncclTunerConstants_v5_t*) noexcept {
  return init_common(nranks, nnodes, log, context);
}

ncclTunerResult_t init_v4(std::size_t nranks, std::size_t nnodes, ncclTunerLogger_t log,
                          void** context) noexcept {
  return init_common(nranks, nnodes, log, context);
}

ncclTunerResult_t finalize(void* context) noexcept {
  delete static_cast<Context*>(context);
  return ncclTunerSuccess;
}

}  // namespace
}  // namespace colltune

// NCCL looks these up newest first (src/plugin/tuner.cc): 2.32 from v7, 2.30 from v6, 2.28
// from v5; v4 and v3 serve 2.22.3-2.27. No getChunkSize: NCCL keeps its own chunk size.
extern "C" {
// Not NCCL's: colltune's NCCL backend looks it up in the library NCCL loaded. Copies what the
// newest init saw (a JSON object) into `text` (at most size - 1 bytes and a NUL) and returns its
// whole length; 0 before any init.
__attribute__((visibility("default"))) size_t colltune_tuner_last_init(char* text,
                                                                       size_t size) noexcept {
  try {
    const std::lock_guard<std::mutex> lock(colltune::g_last_init_mutex);
    const std::string& last = colltune::g_last_init;
    if (text != nullptr && size > 0) {
      const std::size_t n = std::min(size - 1, last.size());
      std::memcpy(text, last.data(), n);
      text[n] = '\0';
    }
    return last.size();
  } catch (...) {
    return 0;
  }
}

__attribute__((visibility("default"))) ncclTuner_v7_t ncclTunerPlugin_v7 = {
    colltune::kPluginName, colltune::init_v5, colltune::get_coll_info, colltune::finalize, nullptr};
__attribute__((visibility("default"))) ncclTuner_v6_t ncclTunerPlugin_v6 = {
    colltune::kPluginName, colltune::init_v5, colltune::get_coll_info, colltune::finalize, nullptr};
__attribute__((visibility("default"))) ncclTuner_v5_t ncclTunerPlugin_v5 = {
    colltune::kPluginName, colltune::init_v5, colltune::get_coll_info, colltune::finalize};
__attribute__((visibility("default"))) ncclTuner_v4_t ncclTunerPlugin_v4 = {
    colltune::kPluginName, colltune::init_v4, colltune::get_coll_info, colltune::finalize};
__attribute__((visibility("default"))) ncclTuner_v3_t ncclTunerPlugin_v3 = {
    colltune::kPluginName, colltune::init_v4, colltune::get_coll_info_v3, colltune::finalize};
}
