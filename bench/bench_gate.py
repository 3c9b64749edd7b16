#!/usr/bin/env python3
"""How often `colltune compare` cries wolf and how reliably it catches a real regression, on
this machine. A/A: several identical sweeps (allreduce 8 B to 1 MiB, `--np` ranks, `--rounds`
launches each), compared pairwise with the defaults: every exit 1 is a false alarm. Regression:
the same sweep with OMPI_MCA_btl=self,tcp in the launch environment (the node lost shared memory,
as a node that lost InfiniBand falls back to TCP), each compared against an A/A sweep: every exit
other than 1 is a miss. Also prints the machine's launch-to-launch spread (`colltune noise`)."""
import argparse
import itertools
import os
import re
import subprocess
import tempfile


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--np", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--aa", type=int, default=7, help="identical sweeps (pairs: aa*(aa-1)/2)")
    parser.add_argument("--tcp", type=int, default=5, help="sweeps with OMPI_MCA_btl=self,tcp")
    parser.add_argument("--max-bytes", default="1M")
    return parser.parse_args()


def sweep(args, spec, results, extra_env=None):
    env = dict(os.environ, **(extra_env or {}))
    before = set(os.listdir(results)) if os.path.isdir(results) else set()
    proc = subprocess.run([args.colltune, "sweep", spec, "--results", results], env=env,
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise SystemExit(f"sweep failed ({proc.returncode}): {proc.stderr[-2000:]}")
    (new,) = set(os.listdir(results)) - before
    return os.path.join(results, new)


def compare(args, base, cand):
    proc = subprocess.run([args.colltune, "compare", base, cand], capture_output=True, text=True)
    slower = re.search(r"\*\*(\d+) slower\*\*", proc.stdout)
    return proc.returncode, int(slower.group(1)) if slower else -1


def main():
    args = parse_args()
    work = tempfile.mkdtemp(prefix="colltune-bench-gate-")
    spec = os.path.join(work, "gate.yaml")
    with open(spec, "w") as f:
        f.write(f"""name: gate
launcher: mpirun
launcher_args: [--oversubscribe]
repetitions: {args.rounds}
benchmark: {{backends: [mpi], collectives: [allreduce], min_bytes: 8, max_bytes: {args.max_bytes},
            step_factor: 4, iters: 20, samples: 10}}
axes: {{np: [{args.np}]}}
""")
    results = os.path.join(work, "results")
    aa = [sweep(args, spec, results) for _ in range(args.aa)]
    tcp = [sweep(args, spec, results, {"OMPI_MCA_btl": "self,tcp"}) for _ in range(args.tcp)]
    noise = subprocess.run([args.colltune, "noise", *aa], capture_output=True, text=True)
    print(f"machine: {(noise.stdout.strip() or noise.stderr.strip()).split(' in /')[0]}")
    codes = [compare(args, a, b) for a, b in itertools.combinations(aa, 2)]
    alarms = sum(code == 1 for code, _ in codes)
    print(f"A/A: {len(codes)} pairwise comparisons of {args.aa} identical sweeps "
          f"({args.rounds} launches each, np {args.np}): {alarms} exited 1 (false alarms), "
          f"{sum(code == 3 for code, _ in codes)} exited 3, "
          f"exit codes {sorted(code for code, _ in codes)}")
    caught = [compare(args, aa[i % len(aa)], t) for i, t in enumerate(tcp)]
    print(f"regression (OMPI_MCA_btl=self,tcp): {sum(code == 1 for code, _ in caught)} of "
          f"{len(caught)} flagged slower; sizes flagged per comparison: "
          f"{[slower for _, slower in caught]}")
    print(f"stores under {results}")


if __name__ == "__main__":
    main()
