#!/usr/bin/env python3
"""colltune's MPI backend in OSU's units (us; MB/s with MB = 1e6), in OSU's timing mode (per-op)
and colltune's default (batch), with the run-to-run spread of the median over several launches.

With OSU_DIR set, runs OSU Micro-Benchmarks' osu_allreduce, osu_alltoall (both with -f) and
osu_latency the same number of times, interleaved with colltune's launches so drift hits both
alike, and prints the ratio colltune/OSU of the medians over launches. Like is compared with like:
OSU's iteration counts (1000 ops after 100 warm-up up to 8 KiB, 100 after 10 above), OSU's
datatype (MPI_CHAR: colltune int8), and for collectives OSU's Max column (the slowest rank's mean,
which is what colltune's default -a max takes of each sample)."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

POINTS = [  # (collective, colltune bytes, dtype)
    ("allreduce", 8, "int8"), ("allreduce", 1 << 20, "int8"), ("allreduce", 16 << 20, "int8"),
    ("alltoall", 8, "int8"), ("alltoall", 1 << 20, "int8"), ("alltoall", 16 << 20, "int8"),
    ("pingpong", 8, "uint8"),
]
OSU_BINARY = {"allreduce": "osu_allreduce", "alltoall": "osu_alltoall", "pingpong": "osu_latency"}


def mpirun(np, extra):
    argv = ["mpirun", "--oversubscribe", "--bind-to", "core" if np <= 2 else "none", "-np",
            str(np)]
    return argv + extra


def colltune_median_us(args, np, coll, size, dtype, timing):
    small = size <= 8192
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.jsonl")
        subprocess.run(mpirun(np, [args.colltune, "run", "--coll", coll, "-d", dtype, "-b",
                                   str(size), "-e", str(size), "-n", "1000" if small else "100",
                                   "-w", "100" if small else "10", "--repetitions", "5",
                                   "--timing", timing, "-c", "0", "--json", out]),
                       check=True, capture_output=True)
        records = [json.loads(l) for l in open(out)]
    record = next(r for r in records if not r["in_place"])
    return record["stats_seconds"]["median"] * 1e6


def osu_us(args, np, coll, size):
    # OSU's size is the message per peer for alltoall, the buffer for allreduce and latency.
    osu_size = size // np if coll == "alltoall" else size
    binary = os.path.join(os.environ["OSU_DIR"], OSU_BINARY[coll])
    ranks = 2 if coll == "pingpong" else np
    full = [] if coll == "pingpong" else ["-f"]  # -f: Avg, Min and Max over ranks
    out = subprocess.run(mpirun(ranks, [binary, "-m", f"{osu_size}:{osu_size}"] + full),
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if fields and fields[0] == str(osu_size):
            return float(fields[3 if full else 1])  # Max, or osu_latency's one column
    raise RuntimeError(f"no result line in {binary} output")


def osu_mode(coll):
    """The colltune timing that does what OSU's loop does: osu_allreduce and osu_alltoall time one
    op between barriers (per-op); osu_latency times back-to-back round trips (batch), reading the
    clock around each one."""
    return "batch" if coll == "pingpong" else "per-op"


def spread(values):
    return (max(values) - min(values)) / statistics.median(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--launches", type=int, default=3, help="launches per point")
    parser.add_argument("--np", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--max-bytes", type=int, default=1 << 62,
                        help="only the points up to this size (8: the small-message latency ones)")
    args = parser.parse_args()
    with_osu = bool(os.environ.get("OSU_DIR"))
    print("# colltune MPI backend in OSU units; value = median over launches of each launch's "
          f"median; spread = (max - min) / median over {args.launches} launches")
    header = f"{'np':>2} {'collective':>10} {'bytes':>9} {'mode':>7} {'us':>10} {'MB/s':>10} {'spread':>7}"
    print(header + (f" {'OSU us':>10} {'OSU spread':>10} {'ratio':>6}" if with_osu else ""))
    if with_osu:
        print("# OSU us: the Max column (-f) for collectives, against colltune per-op; "
              "osu_latency for pingpong, against colltune batch (no barrier between round "
              "trips); ratio = colltune / OSU")
    for np in args.np:
        for coll, size, dtype in POINTS:
            if size > args.max_bytes or (coll == "pingpong" and np % 2):
                continue
            for timing in ("per-op", "batch"):
                ours, osu = [], []
                for _ in range(args.launches):
                    ours.append(colltune_median_us(args, np, coll, size, dtype, timing))
                    if with_osu and timing == osu_mode(coll):
                        osu.append(osu_us(args, np, coll, size))
                us = statistics.median(ours)
                line = (f"{np:>2} {coll:>10} {size:>9} {timing:>7} {us:>10.2f} "
                        f"{size / us:>10.1f} {spread(ours):>7.1%}")
                if osu:
                    osu_med = statistics.median(osu)
                    line += f" {osu_med:>10.2f} {spread(osu):>10.1%} {us / osu_med:>6.3f}"
                print(line, flush=True)


if __name__ == "__main__":
    main()
