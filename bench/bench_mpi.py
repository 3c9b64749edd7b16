#!/usr/bin/env python3
"""colltune's MPI backend in OSU's units (us; MB/s with MB = 1e6), in OSU's timing mode (per-op)
and colltune's default (batch), with the run-to-run spread of the median over several launches.

With OSU_DIR set, runs OSU Micro-Benchmarks' osu_allreduce, osu_alltoall (both with -f) and
osu_latency in interleaved rounds: each round launches colltune in OSU's timing mode and the OSU
binary back to back (in alternating order), so the machine's drift hits both alike and each round
gives one ratio. The fidelity ratio is the geometric mean of the rounds' ratios with a Student's t
95% interval over the rounds: an interval that excludes 1 is a bias, one that straddles it is
noise the rounds could not resolve. Like is compared with like: OSU's iteration counts (1000 ops
after 100 warm-up up to 8 KiB, 100 after 10 above), OSU's datatype (MPI_CHAR: colltune int8), and
for collectives OSU's Max column (the slowest rank's mean, which is what colltune's default -a max
takes of each sample).

Pingpong rows also run bench/pingpong_clock_probe.c (built here with mpicc) each round: the same
8 B round trips timed with a clock read around each (osu_latency's loop) and around the whole loop
(colltune's batch), so the clock's share of the gap is measured apart from both tools."""
import argparse
import json
import math
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
# Student's t, two-sided 95%, by degrees of freedom (1-30); beyond, 2.0 errs wide.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
        2.056, 2.052, 2.048, 2.045, 2.042]
HERE = os.path.dirname(os.path.abspath(__file__))


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


def osu_us(np, coll, size):
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


def build_probe(folder):
    binary = os.path.join(folder, "pingpong_clock_probe")
    subprocess.run(["mpicc", "-O2", "-o", binary, os.path.join(HERE, "pingpong_clock_probe.c")],
                   check=True)
    return binary


def run_probe(binary):
    out = subprocess.run(mpirun(2, [binary]), check=True, capture_output=True, text=True).stdout
    fields = out.split()
    return {fields[i]: float(fields[i + 1]) for i in range(0, len(fields) - 1, 2)}


def osu_mode(coll):
    """The colltune timing that does what OSU's loop does: osu_allreduce and osu_alltoall time one
    op between barriers (per-op); osu_latency times back-to-back round trips (batch), reading the
    clock around each one."""
    return "batch" if coll == "pingpong" else "per-op"


def spread(values):
    return (max(values) - min(values)) / statistics.median(values)


def ratio_interval(ratios):
    """Geometric mean of per-round ratios and its t 95% interval over the rounds."""
    logs = [math.log(r) for r in ratios]
    mean = statistics.fmean(logs)
    if len(logs) < 2:
        return math.exp(mean), float("nan"), float("nan")
    half = T975[min(len(logs) - 1, len(T975)) - 1] * statistics.stdev(logs) / math.sqrt(len(logs))
    if len(logs) - 1 > len(T975):
        half *= 2.0 / T975[-1]
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def verdict(low, high, tolerance=0.05):
    if not low < 1 < high:
        return "bias"
    if 1 - tolerance <= low and high <= 1 + tolerance:
        return f"agree within {tolerance:.0%}"
    return "noise: undecided"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--launches", type=int, default=5,
                        help="launches per point and mode (rounds, with OSU_DIR set)")
    parser.add_argument("--np", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--max-bytes", type=int, default=1 << 62,
                        help="only the points up to this size (8: the small-message latency ones)")
    args = parser.parse_args()
    with_osu = bool(os.environ.get("OSU_DIR"))
    print("# colltune MPI backend in OSU units; value = median over launches of each launch's "
          f"median; spread = (max - min) / median over {args.launches} launches")
    header = f"{'np':>2} {'collective':>10} {'bytes':>9} {'mode':>7} {'us':>10} {'MB/s':>10} {'spread':>7}"
    print(header + (f" {'OSU us':>10} {'OSU spread':>10} {'ratio [95% over rounds]':>24}"
                    if with_osu else ""))
    if with_osu:
        print("# OSU us: the Max column (-f) for collectives, against colltune per-op; "
              "osu_latency for pingpong, against colltune batch (no barrier between round "
              "trips); ratio = colltune / OSU, one per round")
    probe_lines = []
    with tempfile.TemporaryDirectory() as tmp:
        probe = build_probe(tmp)
        for np in args.np:
            for coll, size, dtype in POINTS:
                if size > args.max_bytes or (coll == "pingpong" and np % 2):
                    continue
                for timing in ("per-op", "batch"):
                    paired = with_osu and timing == osu_mode(coll)
                    ours, osu, probes = [], [], []
                    for r in range(args.launches):
                        first_ours = r % 2 == 0
                        if first_ours:
                            ours.append(colltune_median_us(args, np, coll, size, dtype, timing))
                        if paired:
                            osu.append(osu_us(np, coll, size))
                        if not first_ours:
                            ours.append(colltune_median_us(args, np, coll, size, dtype, timing))
                        if coll == "pingpong" and timing == "batch":
                            probes.append(run_probe(probe))
                    us = statistics.median(ours)
                    line = (f"{np:>2} {coll:>10} {size:>9} {timing:>7} {us:>10.2f} "
                            f"{size / us:>10.1f} {spread(ours):>7.1%}")
                    if osu:
                        mid, low, high = ratio_interval([a / b for a, b in zip(ours, osu)])
                        line += (f" {statistics.median(osu):>10.2f} {spread(osu):>10.1%} "
                                 f"{mid:>7.3f} [{low:.3f}, {high:.3f}] {verdict(low, high)}")
                    print(line, flush=True)
                    if probes:
                        mid, low, high = ratio_interval([p["batch_over_per_trip"] for p in probes])
                        probe_lines.append(
                            f"# probe, np {np} 8 B: a clock read around each round trip "
                            f"{statistics.median(p['per_trip_us'] for p in probes):.3f} us, one "
                            f"around the loop {statistics.median(p['batch_us'] for p in probes):.3f}"
                            f" us; loop / each {mid:.3f} [{low:.3f}, {high:.3f}] over "
                            f"{len(probes)} launches; MPI_Wtime "
                            f"{statistics.median(p['wtime_ns'] for p in probes):.1f} ns a read")
    for line in probe_lines:
        print(line)
    if probe_lines:
        print("# where colltune / osu_latency's interval holds the probe's loop / each, the clock "
              "reads osu_latency makes inside its loop account for the gap")


if __name__ == "__main__":
    main()
