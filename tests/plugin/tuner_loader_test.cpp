// The tuner plugin loaded as NCCL 2.28.9 loads it (src/plugin/tuner.cc): dlopen of
// "libnccl-tuner-" + NCCL_TUNER_PLUGIN + ".so", the newest symbol looked up first, and the cost
// table passed as NCCL's enqueue.cc passes it: a contiguous float[7][3] cast to float**. Every
// expected table is written out by hand from the rule being tested.

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tuner_plugin/nccl_tuner_abi.h"

namespace {

constexpr int kAlgos = 7, kProtos = 3;
constexpr int kTree = 0, kRing = 1, kNvls = 4;
constexpr int kLL = 0, kLL128 = 1, kSimple = 2;
constexpr int kAllreduce = 4, kAllgather = 2;
using Table = std::array<std::array<float, kProtos>, kAlgos>;

std::vector<std::pair<int, std::string>> g_lines;

void capture(int level, unsigned long, const char*, int, const char* fmt, ...) {
  char text[4096];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(text, sizeof text, fmt, args);
  va_end(args);
  g_lines.emplace_back(level, text);
}

int count_lines(const std::string& fragment, int level = -1) {
  int n = 0;
  for (const auto& [l, text] : g_lines)
    n += (level < 0 || l == level) && text.find(fragment) != std::string::npos;
  return n;
}

// NCCL's table before a plugin sees it: costs everywhere but where it cannot run (-1): NVLS
// here, and Tree/LL128.
Table nccl_table() {
  Table t{};
  for (int a = 0; a < kAlgos; ++a) {
    for (int p = 0; p < kProtos; ++p) t[a][p] = 10.0f + static_cast<float>(a * kProtos + p);
  }
  for (int p = 0; p < kProtos; ++p) t[kNvls][p] = -1.0f;
  t[kTree][kLL128] = -1.0f;
  return t;
}

class TunerPlugin : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // As NCCL derives it from NCCL_TUNER_PLUGIN=colltune.
    const std::string name = std::string("libnccl-tuner-") + "colltune" + ".so";
    handle_ = dlopen((std::string(COLLTUNE_TUNER_DIR) + "/" + name).c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    v7_ = static_cast<ncclTuner_v7_t*>(dlsym(handle_, "ncclTunerPlugin_v7"));
    v6_ = static_cast<ncclTuner_v6_t*>(dlsym(handle_, "ncclTunerPlugin_v6"));
    v5_ = static_cast<ncclTuner_v5_t*>(dlsym(handle_, "ncclTunerPlugin_v5"));
    v4_ = static_cast<ncclTuner_v4_t*>(dlsym(handle_, "ncclTunerPlugin_v4"));
    v3_ = static_cast<ncclTuner_v3_t*>(dlsym(handle_, "ncclTunerPlugin_v3"));
  }
  void SetUp() override {
    ASSERT_NE(v5_, nullptr);
    g_lines.clear();
    unsetenv("NCCL_ALGO");
    unsetenv("NCCL_PROTO");
    dir_ = std::filesystem::temp_directory_path() / ("colltune-tuner-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& text) {
    const std::string path = (dir_ / ("tuned" + std::to_string(files_++) + ".json")).string();
    std::ofstream(path) << text;
    setenv("COLLTUNE_TUNER_FILE", path.c_str(), 1);
    return path;
  }
  static std::string file_of(const std::string& rows) {
    return R"({"format": "colltune-nccl-tuned", "version": 1, "rows": [)" + rows + "]}";
  }
  // init (v5), one getCollInfo, finalize; the table and nChannels after.
  Table call(std::size_t nranks, std::size_t nnodes, int coll, std::size_t bytes,
             int* channels = nullptr, int calls = 1) {
    void* ctx = nullptr;
    EXPECT_EQ(v5_->init(&ctx, 1, nranks, nnodes, capture, nullptr, nullptr), ncclTunerSuccess);
    Table t = nccl_table();
    int unused = 0;
    for (int i = 0; i < calls; ++i) {
      EXPECT_EQ(v5_->getCollInfo(ctx, coll, bytes, 1, reinterpret_cast<float**>(&t), kAlgos,
                                 kProtos, 0, channels ? channels : &unused),
                ncclTunerSuccess);
    }
    EXPECT_EQ(v5_->finalize(ctx), ncclTunerSuccess);
    return t;
  }

  static inline void* handle_ = nullptr;
  static inline ncclTuner_v7_t* v7_ = nullptr;
  static inline ncclTuner_v6_t* v6_ = nullptr;
  static inline ncclTuner_v5_t* v5_ = nullptr;
  static inline ncclTuner_v4_t* v4_ = nullptr;
  static inline ncclTuner_v3_t* v3_ = nullptr;
  std::filesystem::path dir_;
  int files_ = 0;
};

const char* kRow =
    R"({"collective": "allreduce", "min_bytes": 1024, "max_bytes": 65536, "nnodes": 1,
        "nranks": 8, "algorithm": "%s", "protocol": "%s", "channels": %s})";

std::string row(const char* algo, const char* proto, const char* channels = "\"any\"") {
  char text[512];
  std::snprintf(text, sizeof text, kRow, algo, proto, channels);
  return text;
}

TEST_F(TunerPlugin, NewestSymbolFirstAndEveryServedVersion) {
  EXPECT_STREQ(v5_->name, "colltune");
  ASSERT_NE(v4_, nullptr);
  ASSERT_NE(v3_, nullptr);
  EXPECT_EQ(dlsym(handle_, "ncclTunerPlugin_v2"), nullptr);  // its ABI picks, not a cost table
  write(file_of(row("ring", "ll")));
  // v4 and v3 apply the same rule as v5: only ring/LL left.
  Table expected{};
  for (auto& r : expected) r.fill(-1.0f);
  expected[kRing][kLL] = nccl_table()[kRing][kLL];
  void* ctx = nullptr;
  ASSERT_EQ(v4_->init(8, 1, capture, &ctx), ncclTunerSuccess);
  Table t = nccl_table();
  int channels = 0;
  EXPECT_EQ(v4_->getCollInfo(ctx, kAllreduce, 4096, 1, reinterpret_cast<float**>(&t), kAlgos,
                             kProtos, 0, &channels),
            ncclTunerSuccess);
  EXPECT_EQ(t, expected);
  EXPECT_EQ(v4_->destroy(ctx), ncclTunerSuccess);
  ASSERT_EQ(v3_->init(8, 1, capture, &ctx), ncclTunerSuccess);
  t = nccl_table();
  EXPECT_EQ(v3_->getCollInfo(ctx, kAllreduce, 4096, 1, reinterpret_cast<float**>(&t), kAlgos,
                             kProtos, &channels),
            ncclTunerSuccess);
  EXPECT_EQ(t, expected);
  EXPECT_EQ(v3_->destroy(ctx), ncclTunerSuccess);
}

TEST_F(TunerPlugin, TheLastInitSaysWhatNcclHandedItForColltuneToRecord) {
  // colltune's NCCL backend reads this from the library NCCL loaded: that NCCL called init, with
  // which communicator (nNodes as NCCL counts), and how many rows were for it.
  using LastInit = std::size_t (*)(char*, std::size_t);
  const auto last = reinterpret_cast<LastInit>(dlsym(handle_, "colltune_tuner_last_init"));
  ASSERT_NE(last, nullptr);
  const auto seen = [&] {
    std::string text(last(nullptr, 0), '\0');
    last(text.data(), text.size() + 1);
    return text;
  };
  write(file_of(row("tree", "simple")));  // 8 ranks on 1 node
  call(8, 1, kAllreduce, 1024);
  EXPECT_NE(seen().find(R"("nnodes":1,"note":"","nranks":8,"rows":1,"rows_in_file":1)"),
            std::string::npos)
      << seen();
  call(8, 2, kAllreduce, 1024);  // the same ranks as one NVLink clique of 2 hosts is not
  EXPECT_NE(seen().find(R"("nnodes":2,"note":"","nranks":8,"rows":0,"rows_in_file":1)"),
            std::string::npos)
      << seen();
  char small[8];
  EXPECT_EQ(last(small, sizeof small), seen().size());  // cut, terminated, full length told
  EXPECT_EQ(std::string(small), seen().substr(0, 7));
}

TEST_F(TunerPlugin, V7AndV6ServeTheSameRuleAndLeaveTheChunkSizeToNccl) {
  // NCCL 2.32 looks up ncclTunerPlugin_v7 first, 2.30 v6 (tuner.cc); both use the struct as it
  // is, so getChunkSize must be NULL (NCCL's own chunk size, enqueue.cc) or a working function.
  ASSERT_NE(v7_, nullptr);
  ASSERT_NE(v6_, nullptr);
  EXPECT_STREQ(v7_->name, "colltune");
  EXPECT_STREQ(v6_->name, "colltune");
  EXPECT_EQ(v7_->getChunkSize, nullptr);
  EXPECT_EQ(v6_->getChunkSize, nullptr);
  write(file_of(row("tree", "simple", "4")));
  Table expected{};
  for (auto& r : expected) r.fill(-1.0f);
  expected[kTree][kSimple] = 12.0f;  // 10 + tree 0 x 3 + simple 2
  for (ncclTuner_v6_t* tuner : {v7_, v6_}) {
    // The constants NCCL passes are in/out; a v7 table is 5 compute capabilities of doubles
    // after the latencies: a buffer larger than either, which the plugin must leave as it was.
    std::array<unsigned char, 4096> constants;
    constants.fill(0xA5);
    const auto before = constants;
    void* ctx = nullptr;
    ASSERT_EQ(tuner->init(&ctx, 1, 8, 1, capture, nullptr,
                          reinterpret_cast<ncclTunerConstants_v5_t*>(constants.data())),
              ncclTunerSuccess);
    Table t = nccl_table();
    int channels = 0;
    EXPECT_EQ(tuner->getCollInfo(ctx, kAllreduce, 1024, 1, reinterpret_cast<float**>(&t), kAlgos,
                                 kProtos, 0, &channels),
              ncclTunerSuccess);
    EXPECT_EQ(t, expected);
    EXPECT_EQ(channels, 4);
    EXPECT_EQ(tuner->finalize(ctx), ncclTunerSuccess);
    EXPECT_EQ(constants, before);
  }
}

TEST_F(TunerPlugin, AlgorithmAndProtocolLeaveOneCellAndChannelsWhereMeasured) {
  write(file_of(row("tree", "simple", "4")));
  int channels = 0;
  const Table t = call(8, 1, kAllreduce, 1024, &channels);
  Table expected{};
  for (auto& r : expected) r.fill(-1.0f);
  expected[kTree][kSimple] = 12.0f;  // 10 + tree 0 x 3 + simple 2
  EXPECT_EQ(t, expected);
  EXPECT_EQ(channels, 4);
  EXPECT_EQ(count_lines("rows for this communicator", kNcclLogInfo), 1);
}

TEST_F(TunerPlugin, AnAlgorithmOnlyRowLeavesNcclsProtocolChoice) {
  write(file_of(row("tree", "any")));
  int channels = 7;
  const Table t = call(8, 1, kAllreduce, 65536, &channels);
  Table expected{};
  for (auto& r : expected) r.fill(-1.0f);
  expected[kTree] = {10.0f, -1.0f, 12.0f};  // its LL128 stays -1: NCCL cannot run it
  EXPECT_EQ(t, expected);
  EXPECT_EQ(channels, 7);  // "any": NCCL's
}

TEST_F(TunerPlugin, AProtocolOnlyRowLeavesNcclsAlgorithmChoice) {
  write(file_of(row("any", "ll128")));
  const Table t = call(8, 1, kAllreduce, 2048);
  Table expected = nccl_table();
  for (auto& r : expected) {
    r[kLL] = -1.0f;
    r[kSimple] = -1.0f;
  }
  EXPECT_EQ(t, expected);
}

TEST_F(TunerPlugin, OutsideEveryRowAndOnOtherCommunicatorsNothingChanges) {
  write(file_of(row("ring", "ll", "2")));
  int channels = 3;
  EXPECT_EQ(call(8, 1, kAllreduce, 1023, &channels), nccl_table());   // below the range
  EXPECT_EQ(call(8, 1, kAllreduce, 65537, &channels), nccl_table());  // above it
  EXPECT_EQ(call(8, 1, kAllgather, 4096, &channels), nccl_table());   // another collective
  EXPECT_EQ(call(16, 2, kAllreduce, 4096, &channels), nccl_table());  // measured on 8 ranks
  EXPECT_EQ(call(4, 1, kAllreduce, 4096, &channels), nccl_table());   // one node, 4 ranks
  EXPECT_EQ(channels, 3);
  EXPECT_EQ(count_lines("it was measured on others: changing nothing"), 2);
}

TEST_F(TunerPlugin, ACellNcclCannotRunIsNeverChosenAndSaidOnce) {
  write(file_of(row("nvls", "any")));
  EXPECT_EQ(call(8, 1, kAllreduce, 4096, nullptr, 3), nccl_table());
  EXPECT_EQ(count_lines("names only cells NCCL cannot run here"), 1);
  write(file_of(row("tree", "ll128")));
  EXPECT_EQ(call(8, 1, kAllreduce, 4096), nccl_table());
}

TEST_F(TunerPlugin, NcclAlgoOrProtoInTheEnvironmentMeansStandingAside) {
  write(file_of(row("ring", "ll")));
  setenv("NCCL_PROTO", "Simple", 1);
  EXPECT_EQ(call(8, 1, kAllreduce, 4096), nccl_table());
  EXPECT_EQ(count_lines("standing aside"), 1);
}

TEST_F(TunerPlugin, ManyCommunicatorsKeepTheirOwnRows) {
  write(file_of(row("ring", "ll") + "," +
                R"({"collective": "allreduce", "min_bytes": 1024, "max_bytes": 65536,
                    "nnodes": 2, "nranks": 16, "algorithm": "tree", "protocol": "simple"})"));
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(v5_->init(&a, 1, 8, 1, capture, nullptr, nullptr), ncclTunerSuccess);
  ASSERT_EQ(v5_->init(&b, 2, 16, 2, capture, nullptr, nullptr), ncclTunerSuccess);
  Table ta = nccl_table(), tb = nccl_table();
  int channels = 0;
  v5_->getCollInfo(b, kAllreduce, 4096, 1, reinterpret_cast<float**>(&tb), kAlgos, kProtos, 0,
                   &channels);
  v5_->getCollInfo(a, kAllreduce, 4096, 1, reinterpret_cast<float**>(&ta), kAlgos, kProtos, 0,
                   &channels);
  EXPECT_GE(ta[kRing][kLL], 0.0f);
  EXPECT_EQ(ta[kTree][kSimple], -1.0f);
  EXPECT_GE(tb[kTree][kSimple], 0.0f);
  EXPECT_EQ(tb[kRing][kLL], -1.0f);
  v5_->finalize(a);
  v5_->finalize(b);
}

// Missing, unreadable, malformed or foreign files, and a fuzz of damaged ones: init and
// getCollInfo succeed, the table passes through, and one warning is said in all (per process).
TEST_F(TunerPlugin, BadFilesNeverBreakAJob) {
  const std::string good = file_of(row("ring", "ll"));
  std::vector<std::string> bad{"",
                               "{",
                               "[]",
                               "null",
                               R"({"format": "nccl-tuner", "version": 1})",
                               R"({"format": "colltune-nccl-tuned", "version": 2, "rows": []})",
                               file_of(R"({"collective": "alltoall"})"),
                               file_of(row("ring", "ll", "-1")),
                               file_of(row("ring", "ll", "1e9")),
                               file_of(row("rings", "ll")),
                               file_of(row("ring", "ll") + "," + row("tree", "ll")),
                               file_of(R"({"collective": "allreduce", "min_bytes": -5,
                                           "max_bytes": 1e300, "nnodes": 1, "nranks": 8,
                                           "algorithm": "ring", "protocol": "ll"})"),
                               file_of(R"({"collective": 4, "min_bytes": "0"})"),
                               file_of(R"({"collective": "allreduce", "min_bytes": 10,
                                           "max_bytes": 5, "nnodes": 1, "nranks": 8,
                                           "algorithm": "ring", "protocol": "ll"})")};
  for (std::size_t cut = 1; cut < good.size(); cut += 7) bad.push_back(good.substr(0, cut));
  for (const std::string& text : bad) {
    write(text);
    EXPECT_EQ(call(8, 1, kAllreduce, 4096), nccl_table()) << text;
  }
  setenv("COLLTUNE_TUNER_FILE", (dir_ / "missing.json").c_str(), 1);
  EXPECT_EQ(call(8, 1, kAllreduce, 4096), nccl_table());
  setenv("COLLTUNE_TUNER_FILE", dir_.c_str(), 1);  // a directory
  EXPECT_EQ(call(8, 1, kAllreduce, 4096), nccl_table());
  unsetenv("COLLTUNE_TUNER_FILE");
  EXPECT_EQ(call(8, 1, kAllreduce, 4096), nccl_table());
  EXPECT_LE(count_lines("changing nothing", kNcclLogWarn), 1);
  // A null context (NCCL passes what init left) and a null table pass through too.
  int channels = 0;
  EXPECT_EQ(v5_->getCollInfo(nullptr, kAllreduce, 8, 1, nullptr, kAlgos, kProtos, 0, &channels),
            ncclTunerSuccess);
  EXPECT_EQ(v5_->finalize(nullptr), ncclTunerSuccess);
}

TEST_F(TunerPlugin, DeepNestingChangesNothing) {
  // 100,000 levels of nesting overflowed the stack of NCCL's process in the JSON parser.
  write(R"({"format": "colltune-nccl-tuned", "version": 1, "rows": )" + std::string(100000, '[') +
        std::string(100000, ']') + "}");
  EXPECT_EQ(call(8, 1, kAllreduce, 4096), nccl_table());
  // Warned once per process (the sanitized run holds every test in one): where this test's
  // warning is the process's first, it names the nesting.
  EXPECT_EQ(count_lines("nests deeper than 64 levels", kNcclLogWarn),
            count_lines("changing nothing", kNcclLogWarn));
}

TEST_F(TunerPlugin, AFifoChangesNothingAndNeverBlocksInit) {
  // A FIFO without a writer: a blocking open or read would hang NCCL's init for ever. SIGALRM's
  // default action ends the test (as a failure) if init blocks.
  const std::string fifo = (dir_ / "tuned.fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  setenv("COLLTUNE_TUNER_FILE", fifo.c_str(), 1);
  alarm(20);
  EXPECT_EQ(call(8, 1, kAllreduce, 4096), nccl_table());
  alarm(0);
  EXPECT_EQ(count_lines("is a FIFO; allowed: a regular file", kNcclLogWarn),
            count_lines("changing nothing", kNcclLogWarn));
}

TEST_F(TunerPlugin, AHundredThousandRowsLoadAndTheLastOneApplies) {
  std::string rows;
  for (int i = 0; i < 100000; ++i) {
    rows += (i ? "," : "") + std::string(R"({"collective": "allreduce", "min_bytes": )") +
            std::to_string(i * 10) + R"(, "max_bytes": )" + std::to_string(i * 10 + 9) +
            R"(, "nnodes": 1, "nranks": 8, "algorithm": "ring", "protocol": "ll"})";
  }
  write(file_of(rows));
  const Table t = call(8, 1, kAllreduce, 999995);
  EXPECT_GE(t[kRing][kLL], 0.0f);
  EXPECT_EQ(t[kTree][kSimple], -1.0f);
  EXPECT_EQ(call(8, 1, kAllreduce, 1000000), nccl_table());  // past the last row
}

}  // namespace
