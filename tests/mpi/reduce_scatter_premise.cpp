// Which coll/tuned parameter decides MPI_Reduce_scatter_block (colltune's reduce_scatter), asked
// of the Open MPI at hand: prints the four ranks' results of an order-sensitive sum (1e16 + 1
// rounds back to 1e16), so algorithms that add in other orders print other lines. Run with 4
// ranks; tests/mpi/reduce_scatter_premise.py sets the parameters and compares the lines.
#include <mpi.h>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const double inputs[4] = {1e16, 1.0, -1e16, 1.0};
  double in[4], out = 0, all[4] = {};
  for (int j = 0; j < 4; ++j) in[j] = inputs[(rank + j) % 4];
  MPI_Reduce_scatter_block(in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Gather(&out, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("%g %g %g %g\n", all[0], all[1], all[2], all[3]);
  MPI_Finalize();
  return 0;
}
