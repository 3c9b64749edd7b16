#pragma once
// A commutative user-defined sum that counts its calls and the elements it reduces, for telling
// which allreduce algorithm an MPI ran (tests/mpi/mpich_premise.cpp, mpich_fingerprint.cpp): the
// algorithms fix how often each rank reduces and how much.
#include <mpi.h>

namespace counting_sum {

inline long calls = 0, elements = 0;

inline void sum(void* in, void* inout, int* length, MPI_Datatype*) {
  const double* a = static_cast<const double*>(in);
  double* b = static_cast<double*>(inout);
  for (int i = 0; i < *length; ++i) b[i] += a[i];
  ++calls;
  elements += *length;
}

}  // namespace counting_sum
