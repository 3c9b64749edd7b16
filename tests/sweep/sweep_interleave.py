"""A spec's interleave: the points that differ only in an Open MPI algorithm share one launch per
round (each on its own communicator, switched through MPI_T), and every point still gets its own
complete records; a rank killed mid-launch fails the shared launch, after which each point is
measured alone; SIGINT then --resume completes it with nothing lost or doubled; report reads the
store."""
import json
import os
import re
import signal
import subprocess
import time

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
algorithms = [None, "1", "2", "3", "4", "5", "6"]
spec = h.write_spec(work, """
name: interleave
launcher_args: [--oversubscribe]
point_timeout_seconds: 15
repetitions: 2
env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}
benchmark: {collectives: allreduce, min_bytes: 8, max_bytes: 1M, step_factor: 32, iters: 10,
            samples: 6}
axes:
  np: [2, 4]
  OMPI_MCA_coll_tuned_allreduce_algorithm: [null, 1, 2, 3, 4, 5, 6]
interleave: OMPI_MCA_coll_tuned_allreduce_algorithm
""")
KNOB = "OMPI_MCA_coll_tuned_allreduce_algorithm"


def check_store(store, label):
    m = h.manifest(store)
    points = {p["id"]: p for p in m["points"]}
    keys = [h.launch_key(l) for l in m["launches"]]
    check(len(keys) == len(set(keys)) == 2 * 14, f"{label}: launches {len(keys)}")
    for l in m["launches"]:
        check(l["status"] == "done", f"{label}: {h.launch_key(l)} is {l['status']}")
        mates = [points[p] for p in l["together"]]
        me = points[l["point"]]
        check(len(mates) == 6 and all(p["settings"]["np"] == me["settings"]["np"] for p in mates),
              f"{label}: {l['point']} measured together with {l['together']}")
        check(l["argv"].count("--interleave-set") == 7 and KNOB not in " ".join(l["argv"][:8]),
              f"{label}: argv {l['argv']}")
        path = os.path.join(store, "points", l["point"], f"round-{l['round']}.jsonl")
        records = [json.loads(line) for line in open(path)] if os.path.exists(path) else []
        want = me["settings"].get(KNOB, "default")
        check(len(records) == 8 and all(r["in_process_knobs"] == {KNOB: want} and r["wrong"] == 0
                                        for r in records),
              f"{label}: {path}: {len(records)} records, knobs "
              f"{sorted({str(r['in_process_knobs']) for r in records})}")
    # One launch per (np, round): the group shares argv and start.
    launches = {(tuple(l["argv"]), l["started_utc"]) for l in m["launches"]}
    check(len(launches) == 4, f"{label}: {len(launches)} distinct launches, expected 4")
    partials = [f for _, _, files in os.walk(store) for f in files if f.endswith(".partial")]
    check(not partials, f"{label}: partial files left: {partials}")


results = os.path.join(work, "results")
code, stdout, stderr = h.run_sweep(args, spec, "--results", results)
check(code == 0, f"sweep exit {code}: {stderr[-1500:]}")
store = h.the_store(results)
check_store(store, "uninterrupted")
code, stdout, stderr = h.run_sweep(args, "--dry-run", spec)
check(code == 0 and stdout.count("--interleave-set") == 4 * 7,
      f"dry run: exit {code}, {stdout.count('--interleave-set')} settings printed")
proc = subprocess.run([args.colltune, "report", store], capture_output=True, text=True,
                        timeout=120)
check(proc.returncode == 0 and os.path.exists(os.path.join(store, "report.md")),
      f"report exit {proc.returncode}: {proc.stderr[-500:]}")
if os.path.exists(os.path.join(store, "report.md")):
    report = open(os.path.join(store, "report.md")).read()
    check("**interleaved**: 28 of 28 point-rounds shared a launch, up to 7 points each" in report,
          "report.md does not say the points were interleaved")


def running_group(results_dir):
    s = h.the_store(results_dir)
    m = h.manifest(s) if s else None
    if not m:
        return None
    running = [l for l in m["launches"] if l["status"] == "running" and l["pid"] > 0]
    if len(running) != 7:
        return None
    ranks = h.rank_pids(running[0]["pid"])
    return (running, ranks) if len(ranks) == int(m["points"][0]["settings"]["np"]) else None


# A rank killed mid-launch: the shared launch fails, and each of its seven points is then
# measured alone, so one bad setting cannot cost the others their results. Open MPI 4.1's mpirun
# has once (in CI, not reproduced here) failed to end after the kill: then the driver's own limit
# (point_timeout_seconds per point of the group, kept low above) ends it as a timeout, which must
# lead to the same recovery.
results = os.path.join(work, "killed")
proc = h.popen_sweep(args, spec, "--results", results)
found = h.wait_for(lambda: running_group(results), 60)
check(found is not None, "never saw a group launch with its ranks")
if found:
    time.sleep(0.2)  # a launch lasts about a second here: kill early, while it runs
    os.kill(found[1][-1], signal.SIGKILL)
stdout, stderr = proc.communicate(timeout=240)
check(proc.returncode == 0, f"killed rank: driver exit {proc.returncode}: {stderr[-800:]}")
m = h.manifest(h.the_store(results))
alone = [l for l in m["launches"] if any("measured alone" in w for w in l["warnings"])]
check(len(alone) == 7, f"killed rank: {len(alone)} points measured alone, expected 7")
for l in alone:
    check(l["status"] == "done" and "--interleave-set" not in l["argv"] and not l["together"]
          and re.search("ended (failed|timeout)", " ".join(l["warnings"])), f"killed rank: {l}")
check(all(l["status"] == "done" for l in m["launches"]), "killed rank: not every launch is done")

# SIGINT during a group launch, then --resume: the same complete store as without interruption.
results = os.path.join(work, "interrupted")
proc = h.popen_sweep(args, spec, "--results", results)
check(h.wait_for(lambda: running_group(results), 60) is not None, "never saw a group running")
proc.send_signal(signal.SIGINT)
stdout, stderr = proc.communicate(timeout=60)
check(proc.returncode == 130, f"SIGINT: driver exit {proc.returncode}")
store = h.the_store(results)
statuses = [l["status"] for l in h.manifest(store)["launches"]]
check(set(statuses) <= {"done", "pending"} and statuses.count("pending") % 7 == 0,
      f"after SIGINT: statuses {statuses}")
code, stdout, stderr = h.run_sweep(args, "--resume", store)
check(code == 0, f"resume exit {code}: {stderr[-1000:]}")
check_store(store, "resumed")
check(not h.processes_mentioning(work), "processes left running")

h.finish("sweep_interleave")
