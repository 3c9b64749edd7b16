#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "run_options_error.hpp"
#include "runner/run_options.hpp"

namespace colltune {
namespace {

// NCCL's init refuses min above max (init.cc ~1865): said before any launch, and the allocator's
// values named.
TEST(RunOptions, NcclConfigConflictsAndTheAllocator) {
  EXPECT_EQ(error_of({"--backend", "nccl", "--min-ctas", "8", "--max-ctas", "4"}),
            "--min-ctas: 8 is above --max-ctas 4; allowed: at most --max-ctas (NCCL's init "
            "refuses min above max)");
  EXPECT_EQ(error_of({"--backend", "nccl", "--min-ctas", "4", "--max-ctas", "4"}), "no error");
  EXPECT_EQ(error_of({"--backend", "nccl", "--allocator", "malloc"}),
            "--allocator: 'malloc' is not allowed; allowed: ncclmemalloc (as nccl-tests), "
            "cudamalloc");
  EXPECT_FALSE(parse_run_options({"--backend", "nccl", "--allocator", "cudamalloc"})
                   .backend_options.nccl_mem_alloc);
  EXPECT_TRUE(parse_run_options({"--backend", "nccl"}).backend_options.nccl_mem_alloc);
  EXPECT_NE(error_of({"--backend", "mpi", "--allocator", "cudamalloc"})
                .find("--allocator: an "
                      "NCCL setting"),
            std::string::npos);
}

}  // namespace
}  // namespace colltune
