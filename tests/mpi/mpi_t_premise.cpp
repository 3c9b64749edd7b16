// The premise of `colltune run --interleave`, checked on the Open MPI at hand: an allreduce
// algorithm written through MPI_T holds for a communicator duplicated afterwards, and only for
// it, and writing the launch value back restores the launch behaviour. Run with 4 ranks and
// OMPI_MCA_coll_tuned_use_dynamic_rules=1. The inputs make the sum depend on the order of additions
// (1e16 + 1 rounds back to 1e16), so algorithms that add in other orders give other results. Exit 0
// when some algorithm's result differs from another's on the duplicates while MPI_COMM_WORLD's
// stays the same and the launch value restores its result.
#include <mpi.h>

#include <cstdio>
#include <set>

namespace {

double order_sensitive_sum(MPI_Comm comm, int rank) {
  const double inputs[4] = {1e16, 1.0, -1e16, 1.0};
  double in = inputs[rank % 4], out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, comm);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, provided = 0, index = -1, count = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  if (MPI_T_cvar_get_index("coll_tuned_allreduce_algorithm", &index) != MPI_SUCCESS) {
    if (rank == 0) std::printf("no coll_tuned_allreduce_algorithm control variable\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_T_cvar_handle handle = nullptr;
  MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count);
  const double world_before = order_sensitive_sum(MPI_COMM_WORLD, rank);
  int launch_value = 0;
  MPI_T_cvar_read(handle, &launch_value);
  const auto sum_on_new_communicator = [&] {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    const double sum = order_sensitive_sum(dup, rank);
    MPI_Comm_free(&dup);
    return sum;
  };
  const double launched = sum_on_new_communicator();
  std::set<double> on_duplicates;
  int unlike_launch = 0;  // an algorithm whose result differs from the launch behaviour's
  for (int algorithm = 1; algorithm <= 6; ++algorithm) {
    MPI_T_cvar_write(handle, &algorithm);
    const double sum = sum_on_new_communicator();
    on_duplicates.insert(sum);
    if (sum != launched) unlike_launch = algorithm;
    if (rank == 0) std::printf("algorithm %d on a new communicator: %g\n", algorithm, sum);
  }
  // colltune's "default": the launch value written after another gives the launch behaviour back.
  MPI_T_cvar_write(handle, &unlike_launch);
  MPI_T_cvar_write(handle, &launch_value);
  const double restored = sum_on_new_communicator();
  const double world_after = order_sensitive_sum(MPI_COMM_WORLD, rank);
  MPI_T_cvar_handle_free(&handle);
  MPI_T_finalize();
  const bool switched = on_duplicates.size() > 1;
  const bool world_kept = world_before == world_after;
  if (rank == 0) {
    std::printf(
        "distinct results on new communicators: %zu (want > 1); MPI_COMM_WORLD %g then %g; launch "
        "value %d: %g, written back: %g\n",
        on_duplicates.size(), world_before, world_after, launch_value, launched, restored);
  }
  MPI_Finalize();
  return switched && world_kept && unlike_launch != 0 && restored == launched ? 0 : 1;
}
