"""The CI gate on real sweeps: identical launches (3 a side) are not called slower (same, or
inconclusive where the interval reaches past 5%); the same
sweep with shared memory taken away (OMPI_MCA_btl=self,tcp in the launch environment, as a node
that lost InfiniBand falls back to TCP) is. Verdicts only, never a time: the A/A check uses
--alpha 0.001, so its chance of failing by bad luck is near one in a thousand; the TCP check the
default 0.05, as TCP against shared memory at 8 B to 1 KiB is ~20x slower here, far beyond the
launch-to-launch spread, so missing it is the gate's fault. The A/A sides are the odd and the
even rounds of one sweep, interleaved in time: two sweeps run one after the other met a VM
slowed 2.2x for the two seconds of the second one (CI, 2026-12-01), which no statistic on
launches can tell from a regression, since it is one."""
import json
import os
import subprocess

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
spec = h.write_spec(work, """name: gate
launcher: mpirun
launcher_args: [--oversubscribe]
repetitions: 6
benchmark: {backends: [mpi], collectives: [allreduce], min_bytes: 8, max_bytes: 1K,
            step_factor: 8, iters: 20, samples: 10}
axes: {np: [2]}
""")


def sweep(results, extra_env=None):
    env = dict(h.mpi_env(), **(extra_env or {}))
    proc = subprocess.run([args.colltune, "sweep", spec, "--results", results], env=env,
                          capture_output=True, text=True, timeout=300)
    check(proc.returncode == 0, f"sweep: exit {proc.returncode} {proc.stderr[-800:]}")
    return h.the_store(results)


def compare(*argv):
    proc = subprocess.run([args.colltune, "compare", *argv], capture_output=True, text=True,
                          timeout=60)
    return proc.returncode, proc.stdout


a = sweep(os.path.join(work, "a"))
tcp = sweep(os.path.join(work, "tcp"), {"OMPI_MCA_btl": "self,tcp"})


def round_file(store, round_number):
    point = os.listdir(os.path.join(store, "points"))[0]
    return os.path.join(store, "points", point, f"round-{round_number}.jsonl")


if a and tcp:
    sides = []
    for first_round in (1, 2):
        for r in range(first_round, 7, 2):
            sides += ["--baseline" if first_round == 1 else "--candidate", round_file(a, r)]
    # Never slower. Three noisy launches a side here leave intervals past 5%, so the gate may
    # also say it could not rule a slowdown out (3); it never passes a row it could not decide.
    code, out = compare(*sides, "--alpha", "0.001")
    check(code in (0, 3) and "**0 slower**" in out and "at least 3 baseline, 3 candidate" in out,
          f"A/A: exit {code}\n{out[:1500]}")
    rows = [l for l in out.splitlines() if l.startswith("| same |") or l.startswith("| inconc")]
    check(len(rows) == 6 and all(("not ruled out" in l) == l.startswith("| inconc") for l in rows),
          f"A/A: each of 6 rows same or inconclusive with its reason:\n{out[:1500]}")
    check((code == 0) == all(l.startswith("| same |") for l in rows), f"A/A: exit {code} rows")
    # The regression at the default level: TCP is ~20x slower here, so a miss would be the gate's
    # fault, not bad luck (a strict level would make it the latter: 3 launches, df ~4).
    code, out = compare(a, tcp)
    check(code == 1 and "| slower |" in out, f"TCP: exit {code}\n{out[:1500]}")
    # One launch a side (a single run file each) is inconclusive: exit 3, never "slower".
    code, out = compare(round_file(a, 1), round_file(tcp, 1))
    check(code == 3 and "**0 slower**" in out and "inconclusive" in out,
          f"one launch a side: exit {code}\n{out[:800]}")
    # With the spread measured on the A/A sweeps as a noise floor, one launch a side decides.
    noise = os.path.join(work, "noise.json")
    proc = subprocess.run([args.colltune, "noise", a, "--out", noise], capture_output=True,
                          text=True, timeout=60)
    floor = json.load(open(noise)) if os.path.exists(noise) else {}
    check(proc.returncode == 0 and floor.get("launch_sd_log", 0) > 0
          # sizes 8, 64, 512 x out-of-place and in-place, each with 6 launches: 5 df.
          and floor.get("degrees_of_freedom") == 3 * 2 * 5,
          f"noise: exit {proc.returncode} {proc.stdout} {floor}")
    code, out = compare(round_file(a, 1), round_file(tcp, 1), "--noise-floor", noise)
    check(code == 1 and "noise.json" in out, f"noise floor: exit {code}\n{out[:800]}")
h.finish("gate_verdicts")
