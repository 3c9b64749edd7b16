// Algorithm names and preset ranges read from the MPIs' own control-variable texts, recorded from
// Debian's MPICH 4.0.2, PyPI's mpich 5.0.2 and PyPI's impi-rt 2021.13.1 (MPI_T_cvar_get_info).
// The oracle is the order MPICH's generator gives its enum (maint/extractcvars: each "name - "
// line in turn, from 0), as MPICH's own env parsing shows: recursive_doubling reads back as 3.
#include "core/mpi_algorithms.hpp"

#include <gtest/gtest.h>

namespace colltune {
namespace {

using Names = std::vector<std::string>;

constexpr const char* kMpich40Allreduce =
    "Variable to select allreduce algorithmauto - Internal algorithm selection (can be overridden "
    "with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)nb                       - Force nonblocking "
    "algorithmsmp                      - Force smp algorithmrecursive_doubling       - Force "
    "recursive doubling algorithmreduce_scatter_allgather - Force reduce scatter allgather "
    "algorithm";
constexpr const char* kMpich40Bcast =
    "Variable to select bcast algorithmauto - Internal algorithm selection (can be overridden with "
    "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)binomial                                - Force "
    "Binomial Treenb                                      - Force nonblocking algorithmsmp         "
    "                            - Force smp algorithmscatter_recursive_doubling_allgather    - "
    "Force Scatter Recursive-Doubling Allgatherscatter_ring_allgather                  - Force "
    "Scatter Ring";
constexpr const char* kMpich50Allreduce =
    "Variable to select allreduce algorithm\nauto - Internal algorithm selection (can be "
    "overridden with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)\nnb                       - Force "
    "nonblocking algorithm\nsmp                      - Force smp algorithm\nrecursive_doubling     "
    "  - Force recursive doubling algorithm\nrecursive_multiplying    - Force recursive "
    "multiplying algorithm\nreduce_scatter_allgather - Force reduce scatter allgather "
    "algorithm\ntree                     - Force pipelined tree algorithm\nrecexch                 "
    " - Force generic transport recursive exchange algorithm\nring                     - Force "
    "ring algorithm\nk_reduce_scatter_allgather - Force reduce scatter allgather algorithm\nccl    "
    "                  - Force CCL algorithm";
constexpr const char* kMpich50Bcast =
    "Variable to select bcast algorithm\nauto - Internal algorithm selection (can be overridden "
    "with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)\nbinomial                                - "
    "Force Binomial Tree\nnb                                      - Force nonblocking "
    "algorithm\nsmp                                     - Force smp "
    "algorithm\nscatter_recursive_doubling_allgather    - Force Scatter Recursive-Doubling "
    "Allgather\nscatter_ring_allgather                  - Force Scatter Ring\npipelined_tree       "
    "                   - Force tree-based pipelined algorithm\ntree                               "
    "     - Force tree-based algorithm";
constexpr const char* kIntelUseAllreduce =
    "Control selection of MPI_Allreduce algorithm presets.$ Arguments$ <presetid> - Preset "
    "identifier$ range: 0-32 @Alias:# I_MPI_ADJUST_ALLREDUCE @Default:# -1";

TEST(MpichAlgorithms, JoinedLinesOfMpich40AreSplitAtTheirColumn) {
  EXPECT_EQ(mpich_algorithm_names(kMpich40Allreduce),
            (Names{"auto", "nb", "smp", "recursive_doubling", "reduce_scatter_allgather"}));
  EXPECT_EQ(mpich_algorithm_names(kMpich40Bcast),
            (Names{"auto", "binomial", "nb", "smp", "scatter_recursive_doubling_allgather",
                   "scatter_ring_allgather"}));
}

TEST(MpichAlgorithms, OneValueALineInMpich50) {
  EXPECT_EQ(mpich_algorithm_names(kMpich50Allreduce),
            (Names{"auto", "nb", "smp", "recursive_doubling", "recursive_multiplying",
                   "reduce_scatter_allgather", "tree", "recexch", "ring",
                   "k_reduce_scatter_allgather", "ccl"}));
  EXPECT_EQ(mpich_algorithm_names(kMpich50Bcast),
            (Names{"auto", "binomial", "nb", "smp", "scatter_recursive_doubling_allgather",
                   "scatter_ring_allgather", "pipelined_tree", "tree"}));
  // A description of two lines before the values (MPIR_CVAR_DEVICE_COLLECTIVES).
  EXPECT_EQ(mpich_algorithm_names("Variable to select whether the device can override the\n"
                                  "MPIR-level collective algorithms.\n"
                                  "all     - Always prefer the device collectives\n"
                                  "none    - Never pick the device collectives\n"
                                  "percoll - Use the per-collective CVARs to decide"),
            (Names{"all", "none", "percoll"}));
}

TEST(MpichAlgorithms, TextsOfNoKnownFormGiveNoNames) {
  EXPECT_TRUE(mpich_algorithm_names("").empty());
  EXPECT_TRUE(mpich_algorithm_names("Number of allreduce algorithms available").empty());
  EXPECT_TRUE(mpich_algorithm_names("Variable\nring - Force ring\nnot a value line").empty());
}

TEST(MpichAlgorithms, CollectiveOfAnAlgorithmVariable) {
  EXPECT_EQ(mpich_algorithm_collective("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"), "allreduce");
  EXPECT_EQ(mpich_algorithm_collective("MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTER_ALGORITHM"),
            "reduce_scatter_block");
  EXPECT_FALSE(mpich_algorithm_collective("MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM"));
  EXPECT_FALSE(mpich_algorithm_collective("MPIR_CVAR_NEIGHBOR_ALLGATHER_INTRA_ALGORITHM"));
  EXPECT_FALSE(mpich_algorithm_collective("MPIR_CVAR_ALLREDUCE_POSIX_INTRA_ALGORITHM"));
  EXPECT_FALSE(mpich_algorithm_collective("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM_X"));
}

TEST(IntelPresets, RangeAndAliasFromTheDescription) {
  const auto presets = intel_presets(kIntelUseAllreduce);
  ASSERT_TRUE(presets);
  EXPECT_EQ(presets->alias, "I_MPI_ADJUST_ALLREDUCE");
  EXPECT_EQ(presets->lowest_id, 0);
  EXPECT_EQ(presets->highest_id, 32);
  EXPECT_FALSE(intel_presets("@Alias:# I_MPI_ADJUST_ALLREDUCE_LIST @Default:# -1"));
}

TEST(AlgorithmValues, NamesOfTheMpiAtHandOrItsPresetRanges) {
  const AlgorithmKnob mpich{"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "allreduce", {"auto", "ring"}};
  EXPECT_FALSE(check_algorithm_value(mpich, "ring"));
  EXPECT_FALSE(check_algorithm_value(mpich, "default"));
  EXPECT_EQ(check_algorithm_value(mpich, "tree"),
            "allowed: auto ring (what this MPI offers), or default");
  AlgorithmKnob intel{"I_MPI_ADJUST_ALLREDUCE", "allreduce", {}, 0, 32};
  EXPECT_FALSE(check_algorithm_value(intel, "8"));
  EXPECT_FALSE(check_algorithm_value(intel, "1:0-1024;8:1025-65536@2-64"));
  EXPECT_FALSE(check_algorithm_value(intel, "2:0-4096,8192@4"));
  EXPECT_TRUE(check_algorithm_value(intel, "33"));
  EXPECT_TRUE(check_algorithm_value(intel, "8:1025-"));
  EXPECT_TRUE(check_algorithm_value(intel, "ring"));
  EXPECT_TRUE(check_algorithm_value(intel, "1;"));
}

}  // namespace
}  // namespace colltune
