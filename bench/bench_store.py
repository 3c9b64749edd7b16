#!/usr/bin/env python3
"""The sweep store under abuse, on real launches: a second driver on a live store (refused, and
how fast), --kills random SIGKILLs of the driver each followed by --resume until the sweep is
done (records lost and duplicated, against an uninterrupted reference), and the bad-input table
(exit code and the line printed). Not a test: it prints figures."""
import argparse
import json
import os
import random
import signal
import subprocess
import tempfile
import time

SPEC = """name: abuse
launcher_args: [--oversubscribe]
point_timeout_seconds: 60
repetitions: 3
env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}
benchmark: {collectives: allreduce, min_bytes: 8, max_bytes: 64K, step_factor: 8, iters: 10,
            samples: 3}
axes:
  np: 2
  OMPI_MCA_coll_tuned_allreduce_algorithm: [null, 1, 2, 3, 4, 5]
"""


def sweep(colltune, *extra, **kw):
    return subprocess.Popen([colltune, "sweep", *extra], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, **kw)


def store_of(results):
    entries = os.listdir(results) if os.path.isdir(results) else []
    return os.path.join(results, entries[0]) if entries else None


def records(store):
    """(point, round) -> record keys, and the number of duplicated keys within a launch."""
    out, duplicated = {}, 0
    for point in os.listdir(os.path.join(store, "points")):
        for name in os.listdir(os.path.join(store, "points", point)):
            if not name.endswith(".jsonl"):
                continue
            keys = [(r["bytes"], r["in_place"]) for r in
                    map(json.loads, open(os.path.join(store, "points", point, name)))]
            duplicated += len(keys) - len(set(keys))
            out[(point, name)] = set(keys)
    return out, duplicated


def manifest(store):
    try:
        return json.load(open(os.path.join(store, "manifest.json")))
    except (OSError, ValueError):
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--kills", type=int, default=100)
    args = parser.parse_args()
    args.colltune = os.path.abspath(args.colltune)
    work = tempfile.mkdtemp(prefix="colltune-bench-store-")
    spec = os.path.join(work, "spec.yaml")
    open(spec, "w").write(SPEC)

    ref = os.path.join(work, "reference")
    proc = sweep(args.colltune, spec, "--results", ref)
    proc.communicate()
    reference, _ = records(store_of(ref))
    print(f"# reference sweep: exit {proc.returncode}, {len(reference)} launches, "
          f"{sum(len(v) for v in reference.values())} records")

    # Two drivers on one store.
    two = os.path.join(work, "two")
    first = sweep(args.colltune, spec, "--results", two)
    while not (store_of(two) and manifest(store_of(two)) and any(
            l["status"] == "running" for l in manifest(store_of(two))["launches"])):
        time.sleep(0.02)
    started = time.monotonic()
    second = subprocess.run([args.colltune, "sweep", "--resume", store_of(two)],
                            capture_output=True, text=True)
    took = time.monotonic() - started
    first.communicate()
    print(f"# second driver on a live store: exit {second.returncode} in {took * 1000:.0f} ms: "
          f"{second.stderr.strip()}")
    print(f"# first driver: exit {first.returncode}")

    # Random kills of the driver, each followed by --resume; fresh sweeps until --kills is
    # reached, each checked against the reference.
    rng = random.Random(15)
    kills = restarts = lost = duplicated = partials = sweeps = 0
    while kills < args.kills:
        sweeps += 1
        killed = os.path.join(work, f"killed-{sweeps}")
        proc = sweep(args.colltune, spec, "--results", killed)
        while True:
            try:
                proc.wait(timeout=rng.uniform(0.05, 1.5))
            except subprocess.TimeoutExpired:
                if kills < args.kills:
                    proc.send_signal(signal.SIGKILL)
                    proc.wait()
                    kills += 1
            else:
                m = manifest(store_of(killed)) if store_of(killed) else None
                if m and all(l["status"] == "done" for l in m["launches"]):
                    break
            if proc.poll() is not None:
                store = store_of(killed)
                proc = (sweep(args.colltune, "--resume", store) if store and manifest(store)
                        else sweep(args.colltune, spec, "--results", killed))
                restarts += 1
        got, dup = records(store_of(killed))
        duplicated += dup
        lost += sum(len(keys - got.get(launch, set())) for launch, keys in reference.items())
        partials += sum(f.endswith(".partial") for _, _, files in os.walk(store_of(killed))
                        for f in files)
    print(f"# {kills} SIGKILLs of the driver over {sweeps} sweeps, {restarts} restarts "
          f"(--resume): records lost {lost}, duplicated {duplicated}, partial files left "
          f"{partials}")

    print("# bad input: exit code | the line printed")
    cases = [
        ("empty spec", "", []),
        ("YAML complex key", "? [a]\n: 1\n", []),
        ("missing hostfile", "hostfile: /nonexistent/hosts\n", []),
        ("colltune binary missing", "colltune: /nonexistent/colltune\n", []),
        ("np contradicts nodes x ranks_per_node",
         "axes:\n  np: 16\n  nodes: 2\n  ranks_per_node: 4\n", []),
        ("results under a file", "name: t\n", ["--results", spec + "/sub"]),
    ]
    for what, text, extra in cases:
        path = os.path.join(work, "bad.yaml")
        open(path, "w").write(text)
        r = subprocess.run([args.colltune, "sweep", path, *extra], capture_output=True, text=True,
                           cwd=work)
        print(f"| {what} | {r.returncode} | {r.stderr.strip().splitlines()[0] if r.stderr else ''} |")
    r = subprocess.run([args.colltune, "sweep", spec, "--results", os.path.join(work, "np")],
                       capture_output=True, text=True, env=dict(os.environ, PATH="/nonexistent"))
    print(f"| no mpirun on PATH | {r.returncode} | {r.stderr.strip()} |")


if __name__ == "__main__":
    main()
