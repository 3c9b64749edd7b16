#!/usr/bin/env python3
"""Runs N identical tiny points through `colltune sweep` and the same N launches directly,
interleaving the two in rounds; the difference per point is the driver's own cost."""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

RUN = ["run", "--coll", "allreduce", "-b", "8", "-e", "8", "-n", "1", "-w", "0",
       "--repetitions", "1", "-c", "0"]


def spec_text(launcher, points):
    values = ", ".join(str(i) for i in range(points))
    np_line = "  np: 1\n" if launcher == "local" else "  np: 2\n"
    return (f"name: overhead\nlauncher: {launcher}\n"
            + ("launcher_args: [--oversubscribe]\n" if launcher == "mpirun" else "")
            + "benchmark: {collectives: allreduce, min_bytes: 8, max_bytes: 8, iters: 1, "
              "warmup_iters: 0, samples: 1, check: 0}\n"
            + f"axes:\n{np_line}  COLLTUNE_BENCH_POINT: [{values}]\nbaseline: {{COLLTUNE_BENCH_POINT: 0}}\n")


def direct_argv(args, launcher, out):
    run = [args.colltune] + RUN + ["--json", out]
    return run if launcher == "local" else ["mpirun", "--oversubscribe", "-np", "2"] + run


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--points", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"# {args.points} points per sweep, {args.rounds} rounds; seconds per point")
    print(f"{'launcher':>8} {'direct':>8} {'sweep':>8} {'overhead':>9}")
    for launcher in ("local", "mpirun"):
        direct, swept = [], []
        with tempfile.TemporaryDirectory() as tmp:
            spec = os.path.join(tmp, "spec.yaml")
            with open(spec, "w") as f:
                f.write(spec_text(launcher, args.points))
            for r in range(args.rounds):
                start = time.monotonic()
                for i in range(args.points):
                    subprocess.run(direct_argv(args, launcher, os.path.join(tmp, f"d{r}-{i}.jsonl")),
                                   check=True, capture_output=True)
                direct.append((time.monotonic() - start) / args.points)
                start = time.monotonic()
                subprocess.run([args.colltune, "sweep", spec, "--results", os.path.join(tmp, "r")],
                               check=True, capture_output=True)
                swept.append((time.monotonic() - start) / args.points)
        d, s = statistics.median(direct), statistics.median(swept)
        print(f"{launcher:>8} {d:>8.3f} {s:>8.3f} {s - d:>9.3f}", flush=True)


if __name__ == "__main__":
    main()
