"""A failure that repeats is said once, with its cause, and stops the sweep: the first three
launches of a sweep whose mpirun is given an option it does not know all fail in milliseconds,
so the sweep stops (exit 3) with mpirun's own line as the cause, leaves the rest pending for a
resume, and the report groups the alike failures. As root, an mpirun without Open MPI's consent
is refused before any launch (exit 2, nothing written)."""
import os
import subprocess
import time

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
spec = h.write_spec(work, """name: fails
launcher: mpirun
launcher_args: [--oversubscribe, --no-such-mpirun-option]
repetitions: 2
benchmark: {collectives: [allreduce], min_bytes: 1K, max_bytes: 1K, samples: 3}
axes:
  np: 2
  OMPI_MCA_coll_tuned_use_dynamic_rules: [1]
  OMPI_MCA_coll_tuned_allreduce_algorithm: [1, 2, 3, 4, 5]
""")
results = os.path.join(work, "results")
start = time.monotonic()
code, out, err = h.run_sweep(args, spec, "--results", results, limit_seconds=120)
seconds = time.monotonic() - start
text = out + err
check(code == 3, f"exit {code}, 3 expected: {text[-600:]}")
check(seconds < 30, f"took {seconds:.1f} s: the sweep did not stop early")
# 6 points (5 algorithms + the baseline) x 2 rounds = 12 launches; 3 ran, 9 wait.
cause = 'mpirun: Error: unknown option "--no-such-mpirun-option"'
check(text.count("sweep: failed: " + cause) == 1, f"the cause is not said exactly once: {text}")
check(text.count("3 launches in a row, before any succeeded, all failed within 2 s with: " + cause) == 1,
      f"no stop line naming the cause: {text}")
check("9 of 12 launches not run; resume with: colltune sweep --resume" in text,
      f"no resume hint with the count: {text}")
store = h.the_store(results)
m = h.manifest(store) if store else None
statuses = sorted(l["status"] for l in m["launches"]) if m else []
check(statuses == ["failed"] * 3 + ["pending"] * 9, f"manifest statuses: {statuses}")

# The report: the three alike failures are one row, not three.
proc = subprocess.run([args.colltune, "report", store or work], env=h.mpi_env(),
                      capture_output=True, text=True, timeout=60)
check(proc.returncode == 0, f"report exit {proc.returncode}: {proc.stderr}")
report = open(os.path.join(store, "report.md")).read() if store else ""
rows = [line for line in report.splitlines() if "unknown option" in line]
check(len(rows) == 1 and rows[0].startswith("| 3 launches: "), f"failure rows: {rows}")

# Root without consent: refused before anything is written.
if os.geteuid() == 0:
    env = {k: v for k, v in h.mpi_env().items() if not k.startswith("OMPI_ALLOW_RUN_AS_ROOT")}
    root_spec = h.write_spec(work, """name: root
launcher: mpirun
launcher_args: [--oversubscribe]
benchmark: {collectives: [allreduce], min_bytes: 1K, max_bytes: 1K, samples: 3}
axes: {np: 2}
""", "root.yaml")
    root_results = os.path.join(work, "root-results")
    proc = subprocess.run([args.colltune, "sweep", root_spec, "--results", root_results], env=env,
                          capture_output=True, text=True, timeout=60)
    check(proc.returncode == 2, f"root without consent: exit {proc.returncode}")
    check("mpirun as root without Open MPI's consent" in proc.stderr
          and "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1" in proc.stderr
          and "--allow-run-as-root" in proc.stderr, f"root message: {proc.stderr}")
    check(not os.path.exists(root_results), "a store was made for a sweep refused in preflight")
    # --allow-run-as-root in launcher_args is consent too: the sweep runs.
    with open(root_spec) as f:
        consent = f.read().replace("[--oversubscribe]", "[--oversubscribe, --allow-run-as-root]")
    consent_spec = h.write_spec(work, consent, "consent.yaml")
    proc = subprocess.run([args.colltune, "sweep", consent_spec, "--results", root_results],
                          env=env, capture_output=True, text=True, timeout=120)
    check(proc.returncode == 0, f"--allow-run-as-root: exit {proc.returncode}: {proc.stderr}")
h.finish("sweep_fail_fast")
