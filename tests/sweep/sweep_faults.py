"""A point whose rank hangs (SIGSTOP) is killed at its limit and marked timeout; a point whose
rank is killed (SIGKILL) is marked failed; later points still run; nothing is left running."""
import os
import signal
import time

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
spec = h.write_spec(work, """
name: faults
launcher_args: [--oversubscribe]
point_timeout_seconds: 15
env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}
benchmark: {collectives: allreduce, min_bytes: 1M, max_bytes: 1M, iters: 100, samples: 100,
            timeout_seconds: 120, check: 0}
axes:
  np: 2
  OMPI_MCA_coll_tuned_allreduce_algorithm: [null, 2, 4]
""")
results = os.path.join(work, "results")
start = time.monotonic()
proc = h.popen_sweep(args, spec, "--results", results)


def running_launch(index):
    store = h.the_store(results)
    m = h.manifest(store) if store else None
    if not m or len(m["launches"]) <= index:
        return None
    launch = m["launches"][index]
    return launch if launch["status"] == "running" and launch["pid"] > 0 else None


def ranks_of(index):
    launch = running_launch(index)
    if not launch:
        return None
    pids = h.rank_pids(launch["pid"])
    return pids if len(pids) == 2 else None


ranks = h.wait_for(lambda: ranks_of(0), 30)
check(ranks is not None, "never saw the first launch's two ranks")
if ranks:
    os.kill(ranks[-1], signal.SIGSTOP)
ranks = h.wait_for(lambda: ranks_of(1), 60)
check(ranks is not None, "never saw the second launch's two ranks")
if ranks:
    # Past start-up: Open MPI 4.1's mpirun can hang when a rank dies before it has registered,
    # which the sweep would rightly call a timeout; this test is about a rank that dies mid-run.
    time.sleep(1.0)
    os.kill(ranks[-1], signal.SIGKILL)
try:
    stdout, stderr = proc.communicate(timeout=120)
except Exception:
    proc.kill()
    stdout, stderr = proc.communicate()
    check(False, "the sweep did not finish")
check(proc.returncode == 3, f"exit code {proc.returncode}, expected 3 (some failed)")
store = h.the_store(results)
m = h.manifest(store)
status = [l["status"] for l in m["launches"]]
check(status == ["timeout", "failed", "done"],
      f"statuses {status}; launches: {[(l['status'], l['exit_code'], l['seconds'], l['tail'][-3:]) for l in m['launches']]}")
first = m["launches"][0]
check(15 <= first["seconds"] < 30, f"the hung point ended after {first['seconds']:.1f} s, limit 15")
check(m["launches"][1]["exit_code"] not in (None, 0) or m["launches"][1]["signal"],
      "the killed point has no failure status")
check(bool(m["launches"][1]["tail"]), "the failed point kept no log tail")
check("1 failed, 1 timeout" in stdout, f"summary: {stdout}")
leftovers = h.processes_mentioning(store)
check(not leftovers, f"processes left running: {leftovers}")
for launch in m["launches"][:2]:
    path = os.path.join(store, launch["records"])
    check(not os.path.exists(path), f"{path} exists for a launch that did not finish")
h.finish("sweep_faults")
