#!/usr/bin/env python3
"""colltune history's error rates on this machine, with real launches (a benchmark, not a test).

1. A/A: --series histories of --runs identical nightly-style runs (`colltune run`, allreduce and
   alltoall 8 B-64 KiB, np 2, bound to cores): every history with a change is counted. Each
   change is also held against the 2 x --series - 1 other histories run beside it: a change that a
   quarter of them show at the same moment (a change or a spell's end with nothing recorded
   differing) is the machine's own level shift, which the runs did measure; one that the others
   do not show is the method's false alarm. A spell (slow runs followed by runs back at the
   earlier level) is counted apart: history says it is not a change.
2. A step: --series histories of --runs runs, then --runs more with Open MPI's TCP fallback
   (OMPI_MCA_btl=self,tcp): found when a change is dated the first TCP run with the btl knob
   named as what differed.
   Parts 1 and 2 run round-robin (run k of every history, then run k + 1), so one history's runs
   are about a minute apart. Keep the machine otherwise idle: a build or another benchmark is a
   real slowdown, and history will date it.
3. Drift: --sweeps identical sweeps (allreduce and alltoall 64 KiB-4 MiB, np 2, 3 launches each,
   bound to cores) compared pairwise, with compare's defaults and with the history of the same
   sweeps as --noise-floor.
4. Scale: history over --scale-runs synthetic runs of --scale-records records each (timed)."""
import argparse
import itertools
import json
import os
import random
import shutil
import subprocess
import tempfile
import time


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--series", type=int, default=20)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--sweeps", type=int, default=7)
    parser.add_argument("--scale-runs", type=int, default=365)
    parser.add_argument("--scale-records", type=int, default=2000)
    parser.add_argument("--skip", default="", help="parts to skip: 1 (parts 1 and 2), 3, 4")
    parser.add_argument("--reuse", metavar="DIR",
                        help="parts 1 and 2 read the runs an earlier bench left in DIR (its 'files "
                             "under' line) instead of launching new ones: the same runs judged "
                             "again, after a change to the method; part 3 its sweeps")
    return parser.parse_args()


def run_once(args, path, extra_env=None):
    env = dict(os.environ, **(extra_env or {}))
    start = time.time()
    proc = subprocess.run(["mpirun", "--oversubscribe", "--bind-to", "core", "-np", "2",
                           args.colltune, "run", "--coll", "allreduce,alltoall", "-b", "8", "-e",
                           "64K", "-f", "8", "--json", path], env=env, capture_output=True,
                          text=True, timeout=300)
    if proc.returncode != 0:
        raise SystemExit(f"colltune run failed ({proc.returncode}): {proc.stderr[-2000:]}")
    # Start times are kept to the second: one run per second.
    time.sleep(max(0.0, 1.05 - (time.time() - start)))
    return time.time() - start


def history(args, folder, *extra):
    out = os.path.join(folder, "out")
    proc = subprocess.run([args.colltune, "history", folder, "--out", out, *extra],
                          capture_output=True, text=True, timeout=600)
    if proc.returncode not in (0, 1, 3):
        raise SystemExit(f"history failed ({proc.returncode}): {proc.stderr[-2000:]}")
    with open(os.path.join(out, "history.json")) as f:
        return json.load(f), proc.stdout


def moment_of(h, run):
    """When a shift before `run` happened: between the start of the run before it and its own."""
    times = [r["started_utc"] for r in h["runs"]]
    return times[max(run - 1, 0)], times[run]


def overlap(a, b):
    return a[0] < b[1] and b[0] < a[1]  # ISO 8601 UTC strings order as times


def shift_moments(h):
    """Every moment a history's level moved with nothing recorded changing: its changes, and
    both ends of its spells (a change naming a recorded cause, the TCP step, is left out)."""
    out = []
    for f in h["findings"]:
        if f["kind"] == "change" and not f["context"]:
            out.append(moment_of(h, f["run"]))
        elif f["kind"] == "spell":
            out.append(moment_of(h, f["run"]))
            if f["end_run"] is not None and f["end_run"] < len(h["runs"]):
                out.append(moment_of(h, f["end_run"]))
    return out


def part_histories(args, work):
    """Parts 1 and 2 together, round-robin: run k of every history, then run k + 1, so the runs of
    one history are minutes apart, as nightly runs are far apart against the machine's drift
    (back to back, a slow spell of a few seconds spans several runs of one history)."""
    work = args.reuse or work
    aa = [os.path.join(work, f"aa{s + 1:02d}") for s in range(args.series)]
    tcp = [os.path.join(work, f"tcp{s + 1:02d}") for s in range(args.series)]
    for folder in [] if args.reuse else aa + tcp:
        os.makedirs(folder)
    for r in range(0 if args.reuse else 2 * args.runs):
        for folder in (aa if r < args.runs else []) + tcp:
            env = {"OMPI_MCA_btl": "self,tcp"} if folder in tcp and r >= args.runs else {}
            run_once(args, os.path.join(folder, f"run{r + 1:02d}.jsonl"), env)
    judged = {folder: history(args, folder)[0] for folder in aa + tcp}
    moments = {folder: shift_moments(h) for folder, h in judged.items()}
    alarms, lone, outliers, with_spell = 0, 0, 0, 0
    for s, folder in enumerate(aa):
        h = judged[folder]
        changes = [f for f in h["findings"] if f["kind"] == "change"]
        spells = [f for f in h["findings"] if f["kind"] == "spell"]
        outliers += sum(f["kind"] == "outlier" for f in h["findings"])
        alarms += bool(changes)
        with_spell += bool(spells)
        shared_by = []
        for f in changes:
            window = moment_of(h, f["run"])
            shared_by.append(sum(1 for other in aa + tcp if other != folder and
                                 any(overlap(window, m) for m in moments[other])))
            print(f"  A/A history {s + 1}: {f['text']} [also in {shared_by[-1]} of "
                  f"{len(aa + tcp) - 1} other histories]")
        for f in spells:
            print(f"  A/A history {s + 1}: {f['text']}")
        lone += any(n < len(aa + tcp) // 4 for n in shared_by)
    print(f"A/A: {args.series} histories of {args.runs} identical runs: {alarms} with a change "
          f"(target at most 1), {with_spell} with a spell (a level that left and came back), "
          f"{outliers} outlier findings in all")
    print(f"  of the {alarms} with a change, {lone} have one that fewer than a quarter of the other "
          f"histories show at the same moment (the method's own false alarms); the rest changed "
          f"when the histories run beside them changed too: the machine's own level shift, "
          f"which every history measured")
    found = 0
    for s, folder in enumerate(tcp):
        h = judged[folder]
        changes = [f for f in h["findings"] if f["kind"] == "change"]
        at_step = [f for f in changes if f["run"] == args.runs and
                   any("OMPI_MCA_btl (unset) -> self,tcp" in c for c in f["context"])]
        elsewhere = [f for f in changes if f["run"] != args.runs]
        found += bool(at_step)
        sizes = sorted({(f["min_bytes"], f["max_bytes"]) for f in at_step})
        print(f"  step history {s + 1}: {len(at_step)} findings at run {args.runs + 1} naming the "
              f"btl knob (sizes {sizes}), {len(elsewhere)} changes elsewhere")
    print(f"step: {args.series} histories of {args.runs} + {args.runs} runs with the TCP fallback: "
          f"found at run {args.runs + 1} with the btl knob named in {found} (target at least "
          f"{args.series - 1})")


def part_drift(args, work):
    spec = os.path.join(work, "drift.yaml")
    with open(spec, "w") as f:
        f.write("""name: drift
launcher: mpirun
launcher_args: [--oversubscribe]
repetitions: 3
benchmark: {backends: [mpi], collectives: [allreduce, alltoall], min_bytes: 64K, max_bytes: 4M,
            step_factor: 4, iters: 20, samples: 10}
axes: {np: [2], bind_to: [core]}
""")
    results = os.path.join(args.reuse or work, "sweeps")
    stores = sorted(os.path.join(results, n) for n in os.listdir(results)) if args.reuse else []
    for _ in range(0 if args.reuse else args.sweeps):
        before = set(os.listdir(results)) if os.path.isdir(results) else set()
        proc = subprocess.run([args.colltune, "sweep", spec, "--results", results],
                              capture_output=True, text=True, timeout=1800)
        if proc.returncode != 0:
            raise SystemExit(f"sweep failed ({proc.returncode}): {proc.stderr[-2000:]}")
        (new,) = set(os.listdir(results)) - before
        stores.append(os.path.join(results, new))
        time.sleep(1.1)
    floor_dir = os.path.join(work, "drift-history")
    shutil.rmtree(floor_dir, ignore_errors=True)
    subprocess.run([args.colltune, "history", *stores, "--out", floor_dir], capture_output=True,
                   text=True, timeout=600, check=True)
    with open(os.path.join(floor_dir, "history.json")) as f:
        sd = json.load(f)["between_run_sd_log"]
    plain, floored, warned = [], [], 0
    for a, b in itertools.combinations(stores, 2):
        p = subprocess.run([args.colltune, "compare", a, b], capture_output=True, text=True)
        plain.append(p.returncode)
        warned += "began within" in p.stderr
        q = subprocess.run([args.colltune, "compare", a, b, "--noise-floor", floor_dir],
                           capture_output=True, text=True)
        floored.append(q.returncode)
    pairs = len(plain)
    print(f"drift: {len(stores)} identical sweeps (3 launches each), {pairs} pairs: "
          f"{plain.count(1)} exit 1 with compare's defaults ({warned} of them warned that each "
          f"side's launches began within minutes); {floored.count(1)} exit 1 with "
          f"--noise-floor from their history (spread between runs {100 * (2.718281828 ** sd - 1):.1f}%"
          f" pooled; target at most 1)")


def part_scale(args, work):
    folder = os.path.join(work, "scale")
    os.makedirs(folder)
    template = os.path.join(work, "template.jsonl")
    run_once(args, template)
    with open(template) as f:
        base = [json.loads(line) for line in f if line.strip()]
    for rec in base:  # the context a history reads, without the per-launch environment
        rec["context"] = {k: rec["context"][k] for k in
                          ("colltune_version", "backend", "nranks", "hosts", "ranks_per_host",
                           "library_versions")}
    copies = max(1, args.scale_records // len(base))
    rng = random.Random(1)
    start = time.time()
    for r in range(args.scale_runs):
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1.7e9 + 86400 * r))
        drift = 1 + rng.gauss(0, 0.02)
        lines = []
        for k in range(1, copies + 1):
            for rec in base:
                # Odd multiples of sizes a power of 2 apart never meet: no duplicate record.
                rec = dict(rec, bytes=rec["bytes"] * (2 * k - 1), count=rec["count"] * (2 * k - 1),
                           context=dict(rec["context"], start_time_utc=stamp))
                rec["samples_seconds"] = [x * drift * (1 + rng.uniform(-0.02, 0.02))
                                          for x in rec["samples_seconds"][:5]]
                lines.append(json.dumps(rec))
        with open(os.path.join(folder, f"run{r + 1:03d}.jsonl"), "w") as f:
            f.write("\n".join(lines) + "\n")
    made = time.time() - start
    start = time.time()
    proc = subprocess.run([args.colltune, "history", folder], capture_output=True, text=True,
                          timeout=1800)
    took = time.time() - start
    first = (proc.stdout.splitlines() or [proc.stderr.strip()])[0]
    print(f"scale: history over {args.scale_runs} runs x {copies * len(base)} records: "
          f"{took:.1f} s (exit {proc.returncode}; files written in {made:.0f} s): {first}")


def main():
    args = parse_args()
    skip = set(args.skip.split(","))
    work = tempfile.mkdtemp(prefix="colltune-bench-history-")
    for number, part in (("1", part_histories), ("3", part_drift), ("4", part_scale)):
        if number in skip:
            continue
        start = time.time()
        part(args, work)
        print(f"  (part {number}: {time.time() - start:.0f} s)", flush=True)
    print(f"files under {work}")


if __name__ == "__main__":
    main()
