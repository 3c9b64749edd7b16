#!/usr/bin/env python3
"""What `colltune run --interleave` buys: how often the fastest Open MPI allreduce algorithm per
size changes from one repeat to the next when the algorithms are measured in one launch with
samples taken in turns, against one launch per algorithm (set through OMPI_MCA_ in the
environment, as a plain sweep does). With --backend nccl the same for NCCL_ALGO values on one
process driving --gpus GPUs (no launcher needed). Same sizes, iterations and samples both ways; each repeat
runs both methods, in alternating order, so drift hits both alike. Also prints how much an
algorithm's time relative to the fastest at its size moves between repeats (the ranking's
noise), and the wall time of each method."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time


def knob(args):
    """The variable switched: its --interleave name and its environment (and record) name."""
    if args.backend == "nccl":
        return "NCCL_ALGO", "NCCL_ALGO"
    return "coll_tuned_allreduce_algorithm", "OMPI_MCA_coll_tuned_allreduce_algorithm"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--backend", choices=["mpi", "nccl"], default="mpi")
    parser.add_argument("--np", type=int, default=4, help="MPI ranks (--backend mpi)")
    parser.add_argument("--gpus", type=int, default=2,
                        help="GPUs of the one process (nccl; 2 or more: one rank never reads NCCL_ALGO)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--algorithms", help="default 1,2,3,4,5,6 (mpi), Ring,Tree (nccl)")
    parser.add_argument("--max-bytes", default="1M")
    args = parser.parse_args()
    if args.algorithms is None:
        args.algorithms = "Ring,Tree" if args.backend == "nccl" else "1,2,3,4,5,6"
    return args


def run(args, extra, env_extra):
    env = dict(os.environ, OMPI_MCA_coll_tuned_use_dynamic_rules="1", **env_extra)
    launch = (["mpirun", "--oversubscribe", "-np", str(args.np), args.colltune, "run"]
              if args.backend == "mpi" else
              [args.colltune, "run", "--backend", "nccl", "-g", str(args.gpus)])
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.jsonl")
        subprocess.run(launch + ["--coll", "allreduce", "-b", "8", "-e", args.max_bytes, "-f", "4",
                        "-n", "20", "--repetitions", "10", "--in-place", "never", "-c", "0",
                        "--json", out] + extra, env=env, check=True, capture_output=True)
        return [json.loads(line) for line in open(out)]


def interleaved(args, algorithms):
    name, env_name = knob(args)
    medians = {}
    for r in run(args, ["--interleave", f"{name}={','.join(algorithms)}"], {}):
        medians[(r["in_process_knobs"][env_name], r["bytes"])] = r["stats_seconds"]["median"]
    return medians


def separate(args, algorithms):
    medians = {}
    for algorithm in algorithms:
        for r in run(args, [], {knob(args)[1]: algorithm}):
            medians[(algorithm, r["bytes"])] = r["stats_seconds"]["median"]
    return medians


def winners(medians):
    sizes = sorted({size for _, size in medians})
    return {size: min((m, a) for (a, s), m in medians.items() if s == size)[1] for size in sizes}


def main():
    args = parse_args()
    algorithms = args.algorithms.split(",")
    methods = {"interleaved (one launch)": interleaved, "one launch per algorithm": separate}
    results = {name: [] for name in methods}
    seconds = {name: 0.0 for name in methods}
    for repeat in range(args.repeats):
        order = list(methods) if repeat % 2 == 0 else list(reversed(methods))
        for name in order:
            start = time.monotonic()
            results[name].append(methods[name](args, algorithms))
            seconds[name] += time.monotonic() - start
    ranks = f"{args.np} ranks" if args.backend == "mpi" else f"nccl, {args.gpus} GPU(s)"
    print(f"# {ranks}, allreduce 8 B..{args.max_bytes} x4, algorithms {args.algorithms}, "
          f"{args.repeats} repeats, -n 20, 10 samples, median per (algorithm, size)")
    print(f"{'method':<26} {'winner changed':>15} {'ratio drift':>12} {'wall s':>8}")
    for name in methods:
        runs = results[name]
        won = [winners(m) for m in runs]
        sizes = sorted(won[0])
        changed = sum(won[i][s] != won[i + 1][s] for i in range(len(won) - 1) for s in sizes)
        cells = (len(won) - 1) * len(sizes)
        # How far one algorithm's time relative to the size's fastest moves between repeats
        # (max/min - 1 per cell, median over cells): the ranking's noise, not the level's.
        relative = [{(a, s): m / min(v for (_, s2), v in r.items() if s2 == s)
                     for (a, s), m in r.items()} for r in runs]
        drift = statistics.median(
            max(r[key] for r in relative) / min(r[key] for r in relative) - 1 for key in runs[0])
        print(f"{name:<26} {f'{changed} of {cells}':>15} {f'{drift * 100:.1f}%':>12} "
              f"{seconds[name] / args.repeats:>8.1f}")
    for name in methods:
        print(f"# winners per repeat, {name}:")
        for m in results[name]:
            print("#   " + " ".join(f"{s}:{a}" for s, a in winners(m).items()))


if __name__ == "__main__":
    main()
