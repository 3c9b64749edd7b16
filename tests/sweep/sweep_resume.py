"""SIGINT to the driver mid-sweep, then --resume, gives the same completed launches as an
uninterrupted sweep, none duplicated, none lost; so does a SIGKILL of the driver (its lock goes
with it). A second driver on a live store is refused; a resume never signals a reused pid."""
import json
import os
import signal
import subprocess
import time

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
spec = h.write_spec(work, """
name: resume
launcher_args: [--oversubscribe]
point_timeout_seconds: 60
repetitions: 2
env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}
benchmark: {collectives: allreduce, min_bytes: 8, max_bytes: 256K, step_factor: 8, iters: 20,
            samples: 5}
axes:
  np: 2
  OMPI_MCA_coll_tuned_allreduce_algorithm: [null, 1, 2, 3, 4]
""")


def completed(store):
    m = h.manifest(store)
    knob = {p["id"]: p["settings"].get("OMPI_MCA_coll_tuned_allreduce_algorithm")
            for p in m["points"]}
    keys = [h.launch_key(l) for l in m["launches"]]
    check(len(keys) == len(set(keys)), f"{store}: duplicated launches")
    done = {h.launch_key(l) for l in m["launches"] if l["status"] == "done"}
    for point, round_ in done:
        path = os.path.join(store, "points", point, f"round-{round_}.jsonl")
        lines = [json.loads(l) for l in open(path)]
        check(len(lines) == 12, f"{path}: {len(lines)} records, expected 12")
        # A resumed launch measured its own point, not a neighbour's: the rank saw its knob.
        seen = {r["context"]["environment"].get("OMPI_MCA_coll_tuned_allreduce_algorithm")
                for r in lines}
        check(seen == {knob[point]}, f"{path}: the ranks ran with {seen}, the point sets "
                                     f"{knob[point]}")
    partials = [f for _, _, files in os.walk(store) for f in files if f.endswith(".partial")]
    check(not partials, f"{store}: partial files left: {partials}")
    return done


reference_results = os.path.join(work, "reference")
code, _, stderr = h.run_sweep(args, spec, "--results", reference_results)
check(code == 0, f"reference sweep exit {code}: {stderr[-1000:]}")
reference = completed(h.the_store(reference_results))
check(len(reference) == 10, f"reference completed {len(reference)} launches, expected 10")

for sig, expected_exit in ((signal.SIGINT, 130), (signal.SIGKILL, -signal.SIGKILL)):
    results = os.path.join(work, f"results-{sig.name}")
    proc = h.popen_sweep(args, spec, "--results", results)

    def some_done():
        store = h.the_store(results)
        m = h.manifest(store) if store else None
        return m and sum(l["status"] == "done" for l in m["launches"]) >= 3 and \
            any(l["status"] == "running" for l in m["launches"])

    check(h.wait_for(some_done, 60) is not None, f"{sig.name}: never saw 3 launches done")
    if sig == signal.SIGINT:
        # One driver per store: a second one is refused at once, naming the first, and the first
        # runs on untouched.
        store = h.the_store(results)
        started = time.monotonic()
        code, _, stderr = h.run_sweep(args, "--resume", store, limit_seconds=30)
        took = time.monotonic() - started
        check(code == 2 and f"store: '{store}' is in use by another colltune sweep (pid {proc.pid} "
              "on " in stderr, f"second driver: exit {code}: {stderr[-500:]}")
        check(took < 5, f"second driver took {took:.1f} s to be refused")
        check(proc.poll() is None, "the first driver died when a second one tried the store")
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    check(proc.returncode == expected_exit, f"{sig.name}: driver exit {proc.returncode}")
    store = h.the_store(results)
    partial = completed(store)
    check(0 < len(partial) < 10, f"{sig.name}: {len(partial)} done before the resume")
    if sig == signal.SIGINT:
        check(f"--resume {store}" in stderr, f"no resume hint: {stderr[-500:]}")
        statuses = {l["status"] for l in h.manifest(store)["launches"]}
        check(statuses <= {"done", "pending"}, f"after SIGINT: statuses {statuses}")
    stranger = None
    if sig == signal.SIGINT:
        # Pid reuse: a launch recorded as running whose pid now belongs to another process (same
        # program name, other start time). The resume must leave that process alone.
        stranger = subprocess.Popen(["mpirun", "60"], executable="sleep")
        m = h.manifest(store)
        pending = next(l for l in m["launches"] if l["status"] == "pending")
        pending.update(status="running", pid=stranger.pid, pid_start_ticks=12345)
        with open(os.path.join(store, "manifest.json"), "w") as f:
            json.dump(m, f)
    code, stdout, stderr = h.run_sweep(args, "--resume", store)
    check(code == 0, f"{sig.name}: resume exit {code}: {stderr[-1000:]}")
    if stranger is not None:
        check(stranger.poll() is None, "resume killed a process that only reused a launch's pid")
        stranger.kill()
        stranger.wait()
    check(completed(store) == reference, f"{sig.name}: resumed set differs from the reference")
    check(not h.processes_mentioning(store), f"{sig.name}: processes left running")
h.finish("sweep_resume")
