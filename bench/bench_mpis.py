#!/usr/bin/env python3
"""Racing allreduce algorithms under every MPI colltune is built against (build/src/colltune for
Debian's Open MPI 4.1, build/src/colltune-<name> for COLLTUNE_EXTRA_MPIS), at np 2 and np 4 with
ranks bound to cores. For each MPI and rank count:
- race: the wall seconds of one racing launch over the MPI's allreduce algorithms and its
  default (Open MPI: coll_tuned ids 1-6 in one launch; MPICH: the MPIR_CVAR_ names it lists, in
  one launch, with MPIR_CVAR_DEVICE_COLLECTIVES=none; Intel MPI, which reads I_MPI_ADJUST_ at
  MPI_Init only: a racing sweep, one launch per preset);
- regret: the first repeat's pick per size (the fastest median) timed in a second repeat, over
  the second repeat's best (median, p90 and max over sizes; 1.00 = the same pick);
- verify: what `colltune verify` measures for the file `colltune tune` writes from the first
  repeat (ompi-rules, mpich-json, or env for Intel MPI), against the defaults: the geometric mean
  of tuned/default time over the sizes verify measured, and its exit code (0 not slower, 1 slower
  somewhere, 3 could not tell); "-" where tune wrote nothing (nothing beat the default
  significantly).
A benchmark, not a test: timings on 2 shared cores are noisy, and np 4 oversubscribes them
(MPICH's ranks poll: an allreduce there takes milliseconds)."""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import tempfile
import time

SIZES = ["-b", "8", "-e", "256K", "-f", "8"]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build")
    parser.add_argument("--mpis", default="", help="names to run (default: every one built)")
    parser.add_argument("--nps", default="2,4")
    return parser.parse_args()


def mpis_built(build):
    """(name, colltune, prefix or None for the default Open MPI) for each binary built."""
    found = [("openmpi4", os.path.join(build, "src", "colltune"), None)]
    cache = open(os.path.join(build, "CMakeCache.txt")).read()
    for line in cache.splitlines():
        if line.startswith("COLLTUNE_EXTRA_MPIS:"):
            for entry in filter(None, line.split("=", 1)[1].split(";")):
                name, prefix = entry.split("=", 1)
                found.append((name, os.path.join(build, "src", f"colltune-{name}"), prefix))
    return [m for m in found if os.access(m[1], os.X_OK)]


def environment(prefix):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PMIX_", "PMI_", "I_MPI_", "FI_", "MPIR_CVAR_"))}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    if prefix:
        env["PATH"] = os.path.join(prefix, "bin") + os.pathsep + env["PATH"]
        env.update(I_MPI_ROOT=prefix, FI_PROVIDER_PATH=os.path.join(prefix, "lib", "libfabric", "prov"))
    return env


def offered(colltune, env):
    out = subprocess.run([colltune, "topo", "--list-algorithms", "--json"], env=env,
                         capture_output=True, text=True, timeout=60).stdout
    return json.loads(out)


def medians(records, key):
    """(size, setting) -> median seconds of the out-of-place records."""
    out = {}
    for r in records:
        if r.get("in_place") or r.get("skipped"):
            continue
        setting = key(r)
        out[(r["bytes"], setting)] = statistics.median(r["samples_seconds"])
    return out


def picks_and_best(table):
    by_size = {}
    for (size, setting), seconds in table.items():
        by_size.setdefault(size, {})[setting] = seconds
    return by_size


def regret(first, second):
    a, b = picks_and_best(first), picks_and_best(second)
    ratios = []
    for size, times in a.items():
        pick = min(times, key=times.get)
        if size in b and pick in b[size]:
            ratios.append(b[size][pick] / min(b[size].values()))
    ratios.sort()
    if not ratios:
        return "-", "-", "-"
    p90 = ratios[min(len(ratios) - 1, math.ceil(0.9 * len(ratios)) - 1)]
    return f"{statistics.median(ratios):.2f}", f"{p90:.2f}", f"{ratios[-1]:.2f}"


def main():
    args = parse_args()
    work = tempfile.mkdtemp(prefix="colltune-bench-mpis-")
    rows = []
    for name, colltune, prefix in mpis_built(args.build):
        if args.mpis and name not in args.mpis.split(","):
            continue
        env = environment(prefix)
        info = offered(colltune, env)
        family = info.get("mpi_family", "")
        launcher = "mpirun" if family == "Open MPI" else "mpiexec"
        for np in [int(n) for n in args.nps.split(",")]:
            if family == "Open MPI":
                head = [launcher, "--oversubscribe", "--bind-to", "core:overload-allowed", "-np", str(np)]
                knob, extra = "OMPI_MCA_coll_tuned_allreduce_algorithm", {
                    "OMPI_MCA_coll_tuned_use_dynamic_rules": "1"}
                values = ["default", "1", "2", "3", "4", "5", "6"]
            elif family == "MPICH":
                head = [launcher, "-n", str(np), "-bind-to", "core"]
                knob, extra = "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", {
                    "MPIR_CVAR_DEVICE_COLLECTIVES": "none"}
                listed = [k for k in info["knobs"] if k["env_name"] == knob][0]["values"]
                values = ["default"] + [v for v in listed if v not in ("auto", "ccl")]
            else:
                head, knob, extra = None, "I_MPI_ADJUST_ALLREDUCE", {}
                values = ["1", "2", "3", "5", "8", "9"]
            repeats, seconds, stores = [], [], []
            for rep in (1, 2):
                start = time.monotonic()
                if head:
                    out = os.path.join(work, f"{name}-{np}-{rep}.jsonl")
                    argv = head + [colltune, "run", "--coll", "allreduce", *SIZES, "--json", out,
                                   "--interleave", f"{knob}={','.join(values)}"]
                    proc = subprocess.run(argv, env=dict(env, **extra), capture_output=True,
                                          text=True, timeout=1800)
                    recs = [json.loads(l) for l in open(out)] if proc.returncode == 0 else []
                    repeats.append(medians(recs, lambda r: r["in_process_knobs"].get(knob)))
                    stores.append(out)
                else:
                    spec = os.path.join(work, f"{name}-{np}-{rep}.yaml")
                    open(spec, "w").write(
                        f"name: bench-{name}\nlauncher: mpiexec\nrepetitions: 3\nrace: true\n"
                        f"benchmark: {{collectives: allreduce, min_bytes: 8, max_bytes: 256K, "
                        f"step_factor: 8}}\naxes:\n  np: {np}\n  bind_to: core\n"
                        f"  {knob}: [null, {', '.join(values)}]\n")
                    results = os.path.join(work, f"results-{name}-{np}-{rep}")
                    proc = subprocess.run([colltune, "sweep", spec, "--results", results], env=env,
                                          capture_output=True, text=True, timeout=3600)
                    recs = []
                    for path in glob.glob(os.path.join(results, "*", "points", "*", "*.jsonl")):
                        recs += [json.loads(l) for l in open(path)]
                    repeats.append(medians(recs, lambda r: r["context"]["environment"].get(knob)))
                    stores.append(glob.glob(os.path.join(results, "*"))[0] if glob.glob(
                        os.path.join(results, "*")) else "")
                seconds.append(time.monotonic() - start)
            median_regret, p90, worst = regret(repeats[0], repeats[1])
            emit = {"Open MPI": "ompi-rules", "MPICH": "mpich-json"}.get(family, "env")
            tuned = subprocess.run([colltune, "tune", stores[0], "--emit", emit], env=env,
                                   capture_output=True, text=True, timeout=300)
            gain, verdict = "-", "-"
            if tuned.returncode == 0 and (emit != "env" or f"{knob}=" in tuned.stdout):
                path = os.path.join(work, f"{name}-{np}.tuned")
                open(path, "w").write(tuned.stdout)
                spec = os.path.join(work, f"{name}-{np}-launch.yaml")
                open(spec, "w").write(f"launcher: {launcher}\nlauncher_args: "
                                      f"{json.dumps(['--oversubscribe'] if family == 'Open MPI' else [])}\n")
                check = subprocess.run([colltune, "verify", path, "--np", str(np), "--spec", spec,
                                        "--rounds", "4", "--coll", "allreduce", "--results",
                                        os.path.join(work, "verify")], env=env,
                                       capture_output=True, text=True, timeout=3600)
                ratios = [float(w.split()[0]) for w in check.stdout.split("tuned/default time ")[1:]]
                if ratios:
                    gain = f"{math.exp(statistics.mean(math.log(r) for r in ratios)):.2f}"
                verdict = str(check.returncode)
            rows.append((name, family + " " + info.get("mpi_version", ""), np,
                         f"{seconds[0]:.1f}/{seconds[1]:.1f}", median_regret, p90, worst, gain,
                         verdict))
            print(" | ".join(str(c) for c in rows[-1]), flush=True)
    print("\n| MPI | version | np | race s (repeat 1/2) | regret median | p90 | max | "
          "verify tuned/default (geomean) | verify exit |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")


if __name__ == "__main__":
    main()
