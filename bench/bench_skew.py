#!/usr/bin/env python3
"""What skew costs alltoallv: the same mean bytes per rank exchanged evenly (zipf s = 0, which is
uniform) and with MoE-like routing skew (s = 0.5, 1, 1.5), plus alltoall as the reference for
s = 0. Launches are interleaved (every pattern once per turn) so drift hits all alike; each
launch gives a median, and the verdict rests on those launch medians: "slower" only when every
launch of the skewed pattern is slower than every launch of s = 0, "no difference shown" else.
Prints, per size and pattern: the imbalance (busiest rank's bytes over the mean), the median of
launch medians, its ratio to s = 0, the spread of launch medians, and that verdict."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

PATTERNS = ["alltoall", "zipf:0", "zipf:0.5", "zipf:1", "zipf:1.5"]


def launch(args, pattern, size):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.jsonl")
        coll = ["--coll", "alltoall"] if pattern == "alltoall" else [
            "--coll", "alltoallv", "--exchange", pattern, "--exchange-seed", str(args.seed)]
        subprocess.run(["mpirun", "--oversubscribe", "-np", str(args.np), args.colltune, "run"] +
                       coll + ["-d", "float", "-b", str(size), "-e", str(size), "--in-place",
                               "never", "-n", str(args.iters), "--repetitions", "9", "-c", "1",
                               "--json", out], check=True, capture_output=True)
        record = json.loads(open(out).readline())
    if record["wrong"] != 0:
        raise RuntimeError(f"{pattern} {size} B: #wrong {record['wrong']}")
    imbalance = record["exchange"]["imbalance"] if record.get("exchange") else 1.0
    return record["stats_seconds"]["median"], imbalance


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--np", type=int, default=4)
    parser.add_argument("--launches", type=int, default=5)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sizes", default="65536,1048576,8388608", help="bytes per rank")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    medians = {(p, s): [] for p in PATTERNS for s in sizes}
    imbalance = {}
    for _ in range(args.launches):
        for size in sizes:
            for pattern in PATTERNS:
                seconds, imbalance[(pattern, size)] = launch(args, pattern, size)
                medians[(pattern, size)].append(seconds)
    print(f"alltoallv skew at np {args.np}, {args.launches} launches each, interleaved; "
          f"time = median of launch medians")
    print(f"{'bytes/rank':>10} {'pattern':>9} {'imbalance':>9} {'time us':>9} {'vs s=0':>7} "
          f"{'spread':>7}  verdict vs s=0")
    for size in sizes:
        base = medians[("zipf:0", size)]
        for pattern in PATTERNS:
            runs = medians[(pattern, size)]
            mid = statistics.median(runs)
            spread = (max(runs) - min(runs)) / mid
            if pattern == "zipf:0":
                verdict = "(reference)"
            elif min(runs) > max(base):
                verdict = "slower in every launch"
            elif max(runs) < min(base):
                verdict = "faster in every launch"
            else:
                verdict = "no difference shown (launches overlap)"
            print(f"{size:>10} {pattern:>9} {imbalance[(pattern, size)]:>9.2f} {mid * 1e6:>9.1f} "
                  f"{mid / statistics.median(base):>7.2f} {spread:>6.0%}  {verdict}")


if __name__ == "__main__":
    main()
