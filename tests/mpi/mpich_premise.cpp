// The premise of `colltune run --interleave MPIR_CVAR_..._ALGORITHM=...` on the MPICH at hand: an
// allreduce algorithm written through MPI_T changes the very next call on the same communicator
// (no new one), and switching back gives the first algorithm back. Run with 4 ranks on one node
// and MPIR_CVAR_DEVICE_COLLECTIVES=none, as colltune requires.
//
// What runs is read from a counting reduction op: how often each rank reduces and how many
// elements, which the algorithms fix (worked out by hand for 4 ranks and n = 64 elements):
//   recursive_doubling: log2(4) = 2 exchanges, each rank reduces twice, n each: 2/128 on all;
//   smp on one node: a binomial reduce to rank 0 (rank 0 reduces from 1 and 2, rank 2 from 3)
//     then a broadcast: 2/128 1/64 ... as 2/128, 0/0, 1/64, 0/0 by rank.
// The names' integers come from the variable's description (colltune's own parser is not used
// here: this is the oracle it is tested against, in MPICH's enum order auto=0 nb=1 smp=2
// recursive_doubling=3, the same in MPICH 4.0 and 5.0). Exit 0 when both fingerprints are as
// worked out, twice, in the order rd smp rd smp.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "counting_sum.hpp"

namespace {

// Each rank's (calls, elements) of one allreduce of 64 doubles, gathered to every rank.
std::vector<long> fingerprint(MPI_Op op, int rank, int size) {
  double in[64], out[64];
  for (int i = 0; i < 64; ++i) in[i] = rank + i;
  counting_sum::calls = counting_sum::elements = 0;
  MPI_Allreduce(in, out, 64, MPI_DOUBLE, op, MPI_COMM_WORLD);
  long mine[2] = {counting_sum::calls, counting_sum::elements};
  std::vector<long> all(2 * static_cast<std::size_t>(size));
  MPI_Allgather(mine, 2, MPI_LONG, all.data(), 2, MPI_LONG, MPI_COMM_WORLD);
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, provided = 0, index = -1, count = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  if (size != 4 ||
      MPI_T_cvar_get_index("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", &index) != MPI_SUCCESS) {
    if (rank == 0) std::printf("needs 4 ranks and MPICH's MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Op op;
  MPI_Op_create(counting_sum::sum, 1, &op);
  MPI_T_cvar_handle handle = nullptr;
  MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count);
  const std::vector<long> recursive_doubling{2, 128, 2, 128, 2, 128, 2, 128};
  const std::vector<long> smp{2, 128, 0, 0, 1, 64, 0, 0};
  const int kSmp = 2, kRecursiveDoubling = 3;
  bool ok = true;
  for (int round = 0; round < 2; ++round) {
    for (const int algorithm : {kRecursiveDoubling, kSmp}) {
      MPI_T_cvar_write(handle, &algorithm);
      const std::vector<long> seen = fingerprint(op, rank, size);
      const auto& want = algorithm == kSmp ? smp : recursive_doubling;
      ok = ok && seen == want;
      if (rank == 0) {
        std::printf("%s:", algorithm == kSmp ? "smp" : "recursive_doubling");
        for (int r = 0; r < size; ++r) std::printf(" %ld/%ld", seen[2 * r], seen[2 * r + 1]);
        std::printf(" (want %s)\n", seen == want ? "as worked out" : "otherwise");
      }
    }
  }
  MPI_T_cvar_handle_free(&handle);
  MPI_Op_free(&op);
  MPI_T_finalize();
  MPI_Finalize();
  return ok ? 0 : 1;
}
