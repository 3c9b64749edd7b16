// Intel MPI reads its allreduce preset (I_MPI_ADJUST_ALLREDUCE) at MPI_Init only: writing the
// preset's MPI_T variable (MPIR_CVAR_USE_ALLREDUCE, its alias) afterwards reads back, but the next
// call on the same communicator, and on one made after the write, runs what MPI_Init chose. That
// is why colltune races I_MPI_ADJUST_ across launches and refuses it for --interleave. Prints on
// rank 0 the counting reduction's fingerprint before the write, the value read back, and the
// fingerprints after it (tests/mpi/impi_premise.py compares them with a launch that sets the
// written preset at init). argv[1]: doubles per call; argv[2]: the preset to write.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "counting_sum.hpp"

namespace {

// Each rank's reductions/elements in one MPI_Allreduce of `count` doubles on `comm`, on rank 0.
std::string fingerprint(MPI_Comm comm, int count, MPI_Op op) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  counting_sum::calls = counting_sum::elements = 0;
  std::vector<double> in(static_cast<std::size_t>(count), rank + 1.0), out(in.size());
  MPI_Allreduce(in.data(), out.data(), count, MPI_DOUBLE, op, comm);
  long mine[2] = {counting_sum::calls, counting_sum::elements};
  std::vector<long> all(2 * static_cast<std::size_t>(size));
  MPI_Gather(mine, 2, MPI_LONG, all.data(), 2, MPI_LONG, 0, comm);
  std::string text;
  for (int r = 0; r < size; ++r)
    text += " " + std::to_string(all[2 * r]) + "/" + std::to_string(all[2 * r + 1]);
  return text;
}

[[noreturn]] void give_up(int rank, const char* why) {
  if (rank == 0) std::printf("impi_premise: %s\n", why);
  std::fflush(stdout);
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int count = argc > 1 ? std::atoi(argv[1]) : 64;
  const char* preset = argc > 2 ? argv[2] : "1";
  MPI_Op op;
  MPI_Op_create(counting_sum::sum, 1, &op);
  const std::string before = fingerprint(MPI_COMM_WORLD, count, op);

  int provided = 0, index = -1;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  if (MPI_T_cvar_get_index("MPIR_CVAR_USE_ALLREDUCE", &index) != MPI_SUCCESS)
    give_up(rank, "no MPIR_CVAR_USE_ALLREDUCE in MPI_T");
  char name[256], desc[4096];
  int name_len = sizeof name, desc_len = sizeof desc, verbosity = 0, bind = 0, scope = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  MPI_T_cvar_get_info(index, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len, &bind,
                      &scope);
  MPI_T_cvar_handle handle = nullptr;
  int elements = 0;
  MPI_T_cvar_handle_alloc(index, nullptr, &handle, &elements);
  std::string read_back;
  // Intel's type for it is not documented: an int preset, or the I_MPI_ADJUST_ string form.
  if (type == MPI_INT) {
    int value = std::atoi(preset), back = -1;
    if (MPI_T_cvar_write(handle, &value) != MPI_SUCCESS) give_up(rank, "MPI_T_cvar_write failed");
    MPI_T_cvar_read(handle, &back);
    read_back = std::to_string(back);
  } else if (type == MPI_CHAR) {
    std::vector<char> value(elements > 0 ? static_cast<std::size_t>(elements) : 256, '\0');
    std::strncpy(value.data(), preset, value.size() - 1);
    if (MPI_T_cvar_write(handle, value.data()) != MPI_SUCCESS)
      give_up(rank, "MPI_T_cvar_write failed");
    std::vector<char> back(value.size() + 1, '\0');
    MPI_T_cvar_read(handle, back.data());
    read_back = back.data();
  } else {
    give_up(rank, "MPIR_CVAR_USE_ALLREDUCE is neither MPI_INT nor MPI_CHAR");
  }
  MPI_T_cvar_handle_free(&handle);

  const std::string after = fingerprint(MPI_COMM_WORLD, count, op);
  MPI_Comm made_after;
  MPI_Comm_dup(MPI_COMM_WORLD, &made_after);
  const std::string on_new = fingerprint(made_after, count, op);
  if (rank == 0) {
    std::printf("before:%s\nread back: %s\nafter:%s\nnew communicator:%s\n", before.c_str(),
                read_back.c_str(), after.c_str(), on_new.c_str());
  }
  MPI_Comm_free(&made_after);
  MPI_Op_free(&op);
  MPI_T_finalize();
  MPI_Finalize();
  return 0;
}
