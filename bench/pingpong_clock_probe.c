// What the clock's placement does to an 8 B pingpong, apart from colltune and OSU: the same round
// trips timed two ways, alternating in one launch (ABBA by block, so neither shape always runs
// first): a clock read around every round trip (osu_latency's loop) and one read around the whole
// loop (colltune's batch). Prints each shape's median over the blocks in us per one-way message
// (round trip / 2, as both tools report), the median of the per-block ratios, and MPI_Wtime's
// own cost in ns. Built and run on 2 ranks by bench/bench_mpi.py.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kBlocks = 20, kTrips = 10000, kWarmTrips = 1000, kClockReads = 1000000 };

static int ascending(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, n, sizeof(double), ascending);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void round_trip(int rank, char* buf) {
  if (rank == 0) {
    MPI_Send(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
    MPI_Recv(buf, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
  }
}

// Microseconds per one-way message over kTrips round trips; only rank 0 reads the clock, as in
// osu_latency.
static double timed_trips(int rank, char* buf, int clock_per_trip) {
  MPI_Barrier(MPI_COMM_WORLD);
  double total = 0;
  if (clock_per_trip) {
    for (int i = 0; i < kTrips; ++i) {
      const double start = rank == 0 ? MPI_Wtime() : 0;
      round_trip(rank, buf);
      if (rank == 0) total += MPI_Wtime() - start;
    }
  } else {
    const double start = MPI_Wtime();
    for (int i = 0; i < kTrips; ++i) round_trip(rank, buf);
    total = MPI_Wtime() - start;
  }
  return total * 1e6 / (2.0 * kTrips);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "pingpong_clock_probe: needs 2 ranks, got %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char buf[8] = {0};
  for (int i = 0; i < kWarmTrips; ++i) round_trip(rank, buf);
  double per_trip[kBlocks], batch[kBlocks], ratio[kBlocks];
  for (int b = 0; b < kBlocks; ++b) {
    const int per_trip_first = b % 4 == 0 || b % 4 == 3;
    const double first = timed_trips(rank, buf, per_trip_first);
    const double second = timed_trips(rank, buf, !per_trip_first);
    per_trip[b] = per_trip_first ? first : second;
    batch[b] = per_trip_first ? second : first;
    ratio[b] = batch[b] / per_trip[b];
  }
  if (rank == 0) {
    volatile double sink = 0;
    const double start = MPI_Wtime();
    for (int i = 0; i < kClockReads; ++i) sink += MPI_Wtime();
    const double clock_ns = (MPI_Wtime() - start) * 1e9 / kClockReads;
    printf("per_trip_us %.4f batch_us %.4f batch_over_per_trip %.4f wtime_ns %.2f\n",
           median(per_trip, kBlocks), median(batch, kBlocks), median(ratio, kBlocks), clock_ns);
  }
  MPI_Finalize();
  return 0;
}
