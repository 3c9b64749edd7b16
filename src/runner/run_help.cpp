#include "runner/run_options.hpp"

namespace colltune {

std::string run_help() {
  return R"(colltune run: measure collectives on the ranks mpirun or srun launched

usage: mpirun -np N colltune run [options]
       colltune run --backend nccl -g N [options]   one process, N local GPUs, no launcher
                                                    (the only form in a build without MPI)

  --backend NAME          mpi (default) or nccl, where built (colltune --version lists them)
  --coll LIST             allreduce alltoall allgather reduce_scatter broadcast reduce sendrecv
                          pingpong bw bibw alltoallv gather scatter barrier, comma separated,
                          or all (default allreduce). gather and scatter count per rank, as
                          allgather (size = count x ranks); barrier is one row of 0 bytes (MPI
                          only: NCCL has none)
  -b, --minbytes SIZE     smallest message, with K/M/G suffixes (default 32M); nccl-tests'
                          forms too: 1MB, 1MiB, 0.5K, 1e6
  -e, --maxbytes SIZE     largest message (default 32M)
  -f, --stepfactor N      multiply the size by N each step (default 1: add -i instead)
  -i, --stepbytes SIZE    add SIZE each step when -f is 1 (default 1M)
  -n, --iters N           ops per sample (default 20)
  -w, --warmup_iters N    untimed ops before the first sample (default 5)
  -c, --check [N]         validation rounds after timing, 0 = off (default 1)
  -d, --datatype LIST     int8 uint8 int32 uint32 int64 uint64 half float double bfloat16
                          f8e4m3 f8e5m2, or all (default float); MPI cannot reduce the 16- and
                          8-bit floats (it moves them), fp8 needs NCCL >= 2.24 on a GPU >= sm_90
  -o, --op LIST           sum prod max min avg, or all (default sum); avg is NCCL's only
  -r, --root N            root of broadcast, reduce, gather and scatter (default 0; -1: every
                          rank in turn)
  --exchange PATTERN      alltoallv's per-peer counts (every rank sends the size; the pattern
                          splits it over destinations): uniform (default, = alltoall),
                          random[:R] (weights uniform in [1, R], default 4), zipf[:S] (the
                          destination of popularity k gets 1/(k+1)^S, default 1: MoE routing),
                          hot[:K] (one destination gets K times the others, default 4). algbw
                          is from the busiest rank's bytes; records and the table say the
                          imbalance (busiest / mean)
  --exchange-seed N       seed of the random weights, the zipf order and the hot rank
                          (default 1); every rank derives the same counts from it
  --timing MODE           batch: -n ops back to back per sample (nccl-tests, default);
                          per-op: a barrier before every op (OSU)
  -z, --blocking 0|3      nccl-tests' form of --timing: 0 batch, 3 per-op (1 and 2, a barrier
                          or a wait inside the timed loop, are refused)
  -C, --report_cputime 0|1
                          1: time until the launch calls return (host CPU time), not until the
                          ops are done; the same for MPI's blocking calls (default 0)
  --cache MODE            warm: reuse one buffer (default); cold: rotate buffers over 128 MiB
  -a, --average N         a sample over ranks, as nccl-tests' -a: 0 (or rank0) rank 0's time,
                          1 (mean), 2 (min), 3 (max); default max (nccl-tests': mean), since an
                          op is done when its slowest rank is. GPUs of one process (-g) always
                          count their slowest
  --rank-samples          records keep each process's own samples too (rank_samples_seconds),
                          so a report can name the rank that lags the others
  --phase-times           rank 0 prints on stderr where the launch's wall time went: startup
                          (MPI_Init), context, communicators, warm-up, calibration, sampling,
                          racing decisions, summaries, validation, records, teardown
  --copy-ceiling          the first rank of each host measures its memcpy bandwidth per NUMA
                          node (and GPU) before any timing, into the records' context
                          (copy_ceilings); the other ranks wait. Takes about a second
  --repetitions N         samples per size (default 10; racing: the most turns, default 20);
                          each is the max over ranks
  --window N              messages in flight per bw/bibw op (default 64, as OSU)
  --in-place MODE         both (default), only, never: which buffer placements to measure
  --buffers host|device   where the MPI backend's buffers live (default host); device puts
                          them on the rank's GPU (as OSU's -d cuda) for a CUDA-aware MPI, checked
                          first (MPIX_Query_cuda_support), refused with exit 2 otherwise; NCCL's
                          are always on the GPU, so device is accepted there too
  --split none|host       host: each host's ranks form a communicator of their own and every
                          host measures alone at the same time (MPI or NCCL; every host needs
                          the same rank count). A sample is still the max over all ranks; with
                          --rank-samples each host's own figure is read back per rank

NCCL backend (one communicator rank per GPU):
  -t, --nthreads N        threads per process, as nccl-tests: 1 (one thread drives -g GPUs)
  -g, --gpus, --ngpus N   GPUs each process drives with group calls (default 1); the job has
                          processes x N ranks
  -m, --agg_iters N       issue ops N at a time as one NCCL group (default 1); -n and -w then
                          count such iterations, and time is per op
  --device N              first GPU to use (default: local rank x N, modulo visible GPUs)
  -G, --graph [N]         replay each timed batch and the checked op from CUDA graphs,
                          captured before timing (warm-up runs eagerly, as in nccl-tests);
                          N as nccl-tests' --cudagraph: 0 off, N >= 1 on (each sample is one
                          launch of its graph; --repetitions sets the samples)
  -p, --parallel_init 0|1 accepted; no effect (one thread creates the communicators)
  --nccl-blocking 0|1     ncclConfig_t.blocking (default 1)
  --allocator A           NCCL's measured buffers from ncclmemalloc (default, as nccl-tests:
                          cuMem memory NCCL can register) or cudamalloc, for comparison
  --cga-cluster-size N, --min-ctas N, --max-ctas N, --net-name NAME
                          the other ncclConfig_t fields a tuner sets (default: NCCL's)
Settings side by side in one launch:
  --interleave NAME=V1,V2,...
                          measure each value in this one launch, each on a communicator
                          created with it, samples taken in turns so drift hits all alike, in an
                          order that changes each turn (each setting takes each place and
                          follows each other one equally often); repeat the flag for a
                          product (at most 64). A value may be default: the one the job was
                          launched with. NAME is an Open MPI parameter (--backend mpi;
                          written through MPI_T; coll_tuned_<coll>_algorithm needs
                          OMPI_MCA_coll_tuned_use_dynamic_rules=1 at launch), or NCCL_ALGO /
                          NCCL_PROTO (--backend nccl; set in the environment while NCCL
                          initialises that communicator, the only NCCL knobs it re-reads there)
  --interleave-set 'NAME=V NAME2=V2'
                          one setting to measure so, per flag (what colltune sweep passes for
                          a spec's interleave: axes), for list values such as NCCL_ALGO=^Tree,Ring;
                          instead of --interleave
  --race on|off           with two or more settings, on (default): a setting stops being
                          sampled once an interval of its per-turn time ratio to the best (t
                          from turn 3, Bonferroni over the looks; the sign test from
                          --race-min-turns) lies above 1 + --race-tie; the rest end tied when
                          each has one below it, undecided when --repetitions turns (default 20
                          when racing) are spent or cannot decide. Records say which (race:
                          won, eliminated, tied, undecided). off: every setting gets
                          --repetitions samples (default 10)
  --race-futility on|off  on (default): end undecided as soon as the spread seen so far says
                          the budget's last turn could not decide either; off: run to the budget
  --race-tie PCT          tie tolerance (default 5%; allowed 0.5% to 50%)
  --race-min-turns N      turns before the sign test decides (default 8, the fewest its 99%
                          interval needs; allowed 8 to --repetitions)
  --race-after FILE       a second launch: race again only the rows FILE (the first racing
                          launch's --json records, same settings and rank count; not a
                          --race-after launch's own) left tied or undecided, among the settings
                          still in them; rows it decided are not measured. One launch can
                          measure two settings alike that every other launch tells apart;
                          `colltune report FILE THIS.jsonl` then reads the two as two launches
  --min-sample-seconds S  racing without -n: ops per sample grow until a sample lasts S
                          (default 0.00025; allowed 1e-05 to 10), found per size by timed batches
                          of 1, 2, 4 ... ops that are also the warm-up (-w is not used then)

  --json FILE             one JSON record per (collective, size, in-place), with raw samples
  -J, --output_file F.json
                          nccl-tests' JSON (version 3) for its readers: one collective and
                          one configuration per file; time is the median sample (us); env is
                          colltune's allow-listed, redacted one
  -I, --per_iter_timing 0|1
                          1: each of -n iterations is timed alone, as a sample of its own
                          (--repetitions is not taken); every process's times are kept, and
                          -J adds nccl-tests' <half>_per_iter objects (its analyzer reads them)
  -K, --per_iter_skip K   leading iterations left out of -I's statistics (0 to -n minus 1)
  -T, --timeout SECONDS   limit on each wait for launched work (warm-up, a sample, a check): NCCL
                          aborts its communicators past it; a job with no progress for it plus
                          a grace (2 s or 10%) is aborted (default 300, 0 = off)

A size that runs past 5 s gets a progress line on stderr (samples and ops done of planned,
seconds elapsed), at most one per 10 s.

nccl-tests' -N -y -S -R -x -D -V -M -u are accepted at nccl-tests' default value and
refused with the reason otherwise.

Exit codes: 0 ok, 2 bad arguments, 7 wrong results, 5 nothing measured (every row skipped),
1 a rank failed, 4 timeout.
)";
}

}  // namespace colltune
