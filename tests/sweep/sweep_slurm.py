"""A real Slurm on this host (scripts/slurm-local.sh): a sweep with `launcher: srun` and the
--emit-sbatch script submitted with sbatch --wait give what mpirun gives: every launch done, the
knob seen by the ranks, placement as asked (srun --cpu-bind), exit codes recorded. Open MPI
starts under srun through PMIx (Debian's Open MPI has no PMI2 client). Skipped where Slurm is not
installed or cannot start (no root)."""
import glob
import json
import os
import subprocess

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
slurm_dir = os.path.join(work, "slurm")
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                      "slurm-local.sh")
start = subprocess.run([script, "start", slurm_dir], capture_output=True, text=True, timeout=60)
if start.returncode == 77:
    h.skip("sweep_slurm", start.stdout.strip() or start.stderr.strip())
if start.returncode != 0:
    check(False, f"slurm-local start: exit {start.returncode}: {start.stdout} {start.stderr}")
    h.finish("sweep_slurm")
os.environ["SLURM_CONF"] = os.path.join(slurm_dir, "slurm.conf")
try:
    spec = h.write_spec(work, """name: slurm
launcher: srun
point_timeout_seconds: 60
env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}
benchmark: {collectives: allreduce, min_bytes: 8, max_bytes: 1K, step_factor: 8, samples: 2}
axes:
  np: 2
  bind_to: [core, none]
  OMPI_MCA_coll_tuned_allreduce_algorithm: [null, 2]
""")

    def check_store(store, how):
        m = h.manifest(store)
        check(len(m["launches"]) == 4 and all(l["status"] == "done" and l["exit_code"] == 0
                                              for l in m["launches"]),
              f"{how}: launches {[(l['status'], l['exit_code']) for l in m['launches']]}")
        check(all(l["argv"][0] == "srun" for l in m["launches"]), f"{how}: not launched by srun")
        for point in m["points"]:
            path = os.path.join(store, "points", point["id"], "round-1.jsonl")
            records = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
            check(len(records) == 6, f"{how}: {path}: {len(records)} records")  # 8, 64, 512 B x 2
            if not records:
                continue
            cpus = [p["cpus"] for p in records[0]["context"]["placement"]]
            if point["settings"].get("bind_to") == "core":
                check(len(set(cpus)) == 2 and all("-" not in c and "," not in c for c in cpus),
                      f"{how}: bind_to core gave cpus {cpus}")
            else:
                check(all(c == cpus[0] for c in cpus) and ("-" in cpus[0] or "," in cpus[0]),
                      f"{how}: bind_to none gave cpus {cpus}")
            knob = point["settings"].get("OMPI_MCA_coll_tuned_allreduce_algorithm")
            seen = records[0]["context"]["environment"].get("OMPI_MCA_coll_tuned_allreduce_algorithm")
            check(seen == knob, f"{how}: the ranks saw algorithm {seen}, the point sets {knob}")

    results = os.path.join(work, "results")
    code, _, stderr = h.run_sweep(args, spec, "--results", results, limit_seconds=300)
    check(code == 0, f"srun sweep: exit {code}: {stderr[-800:]}")
    if code == 0:
        check_store(h.the_store(results), "srun sweep")

    batch_results = os.path.join(work, "batch")
    job = subprocess.run(h.sweep_argv(args, spec, "--emit-sbatch", "--results", batch_results),
                         capture_output=True, text=True, timeout=60)
    job_path = os.path.join(work, "job.sh")
    open(job_path, "w").write(job.stdout)
    check("#SBATCH --exclusive" in job.stdout, "the batch script does not ask for whole nodes")
    submitted = subprocess.run(["sbatch", "--wait", "-D", work, job_path], capture_output=True,
                               text=True, timeout=300)
    logs = glob.glob(os.path.join(work, "colltune-slurm-*.out"))
    log = open(logs[0]).read() if logs else ""
    check(submitted.returncode == 0 and "4 launches: 4 done" in log,
          f"sbatch --wait: exit {submitted.returncode}: {submitted.stderr} {log[-800:]}")
    if h.the_store(batch_results):
        check_store(h.the_store(batch_results), "sbatch")
    else:
        check(False, "sbatch: no store was written")
finally:
    subprocess.run([script, "stop", slurm_dir], timeout=60)
h.finish("sweep_slurm")
