// Which MPI a text names. The texts are recorded from the real programs here: Debian 12's Open
// MPI 4.1.4 and MPICH 4.0.2, and PyPI's impi-rt 2021.13.1 (MPI_Get_library_version, and
// mpirun / mpiexec --version); Cray MPICH's and MVAPICH's are their documented forms.
#include "core/mpi_family.hpp"

#include <gtest/gtest.h>

#include "core/environment.hpp"

namespace colltune {
namespace {

constexpr const char* kDebianMpich =
    "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\nMPICH ABI:\t14:2:2\n"
    "MPICH Device:\tch4:ucx\nMPICH configure:\t--build=x86_64-linux-gnu --prefix=/usr\n";
constexpr const char* kHydra =
    "HYDRA build details:\n    Version:                                 4.0.2\n"
    "    Release Date:                            Thu Apr  7 12:34:45 CDT 2022\n";

TEST(MpiFamily, LibraryTextsNameTheirFamilyAndVersion) {
  const auto ompi = identify_mpi_library(
      "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022");
  ASSERT_TRUE(ompi);
  EXPECT_EQ(ompi->text(), "Open MPI 4.1.4");
  EXPECT_EQ(ompi->dialect, LaunchDialect::kOpenMpi);
  const auto mpich = identify_mpi_library(kDebianMpich);
  ASSERT_TRUE(mpich);
  EXPECT_EQ(mpich->text(), "MPICH 4.0.2");
  EXPECT_EQ(mpich->dialect, LaunchDialect::kHydra);
  const auto cray = identify_mpi_library(
      "MPI VERSION    : CRAY MPICH version 8.1.25.17 (ANL base 3.4a2)\nMPI BUILD INFO : Built");
  ASSERT_TRUE(cray);
  EXPECT_EQ(cray->text(), "Cray MPICH 8.1.25.17");
  const auto mvapich = identify_mpi_library("MVAPICH2 Version      :\t2.3.7\nMVAPICH2 Release");
  ASSERT_TRUE(mvapich);
  EXPECT_EQ(mvapich->text(), "MVAPICH 2.3.7");
  const auto intel = identify_mpi_library("Intel(R) MPI Library 2021.13 for Linux* OS\n");
  ASSERT_TRUE(intel);
  EXPECT_EQ(intel->text(), "Intel MPI 2021.13");
  EXPECT_EQ(intel->dialect, LaunchDialect::kIntelMpi);
  EXPECT_FALSE(identify_mpi_library("Some MPI 1.0"));
}

TEST(MpiFamily, LauncherVersionTextsNameTheirDialect) {
  const auto ompi = identify_mpi_launcher(
      "mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n");
  ASSERT_TRUE(ompi);
  EXPECT_EQ(ompi->text(), "Open MPI 4.1.4");
  EXPECT_EQ(ompi->dialect, LaunchDialect::kOpenMpi);
  const auto hydra = identify_mpi_launcher(kHydra);
  ASSERT_TRUE(hydra);
  EXPECT_EQ(hydra->text(), "MPICH 4.0.2");
  EXPECT_EQ(hydra->dialect, LaunchDialect::kHydra);
  const auto intel = identify_mpi_launcher(
      "Intel(R) MPI Library for Linux* OS, Version 2021.13 Build 20240701 (id: 179630a)\n"
      "Copyright 2003-2024, Intel Corporation.\n");
  ASSERT_TRUE(intel);
  EXPECT_EQ(intel->text(), "Intel MPI 2021.13");
  EXPECT_EQ(intel->dialect, LaunchDialect::kIntelMpi);
  EXPECT_FALSE(identify_mpi_launcher("srun: unrecognized option '--version2'"));
  EXPECT_EQ(dialect_named("mpich"), LaunchDialect::kHydra);
  EXPECT_EQ(dialect_named("intelmpi"), LaunchDialect::kIntelMpi);
  EXPECT_FALSE(dialect_named("lam"));
}

}  // namespace
}  // namespace colltune

namespace colltune {
namespace {

// Each MPI's own knobs are recorded in the context's environment, so a report or history shows
// which algorithm a point forced under MPICH or Intel MPI as it does under Open MPI.
TEST(MpiFamily, EachMpisKnobsAreRecorded) {
  EXPECT_TRUE(is_recorded_variable("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"));
  EXPECT_TRUE(is_recorded_variable("I_MPI_ADJUST_ALLREDUCE"));
  EXPECT_TRUE(is_recorded_variable("MPICH_GPU_SUPPORT_ENABLED"));
  EXPECT_TRUE(is_recorded_variable("OMPI_MCA_coll_tuned_allreduce_algorithm"));
  EXPECT_FALSE(is_recorded_variable("HOME"));
}

}  // namespace
}  // namespace colltune
