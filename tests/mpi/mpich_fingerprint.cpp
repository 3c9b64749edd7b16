// What allreduce algorithm MPICH ran, told by a counting reduction op (commutative, user-defined):
// prints "fingerprint: C/E C/E ..." on rank 0, each rank's number of reductions and elements
// reduced in one MPI_Allreduce of `count` doubles (argv[1]). With 2 ranks, recursive doubling
// reduces once on each rank (1/count 1/count); smp reduces to rank 0 and broadcasts
// (1/count 0/0). Used by tests/report/mpich_json.py to see a selection file applied.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "counting_sum.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = argc > 1 ? std::atoi(argv[1]) : 64;
  MPI_Op op;
  MPI_Op_create(counting_sum::sum, 1, &op);
  std::vector<double> in(static_cast<std::size_t>(count), rank + 1.0), out(in.size());
  MPI_Allreduce(in.data(), out.data(), count, MPI_DOUBLE, op, MPI_COMM_WORLD);
  long mine[2] = {counting_sum::calls, counting_sum::elements};
  std::vector<long> all(2 * static_cast<std::size_t>(size));
  MPI_Gather(mine, 2, MPI_LONG, all.data(), 2, MPI_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("fingerprint:");
    for (int r = 0; r < size; ++r) std::printf(" %ld/%ld", all[2 * r], all[2 * r + 1]);
    std::printf("\n");
  }
  MPI_Op_free(&op);
  MPI_Finalize();
  return 0;
}
