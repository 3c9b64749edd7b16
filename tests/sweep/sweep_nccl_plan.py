"""A sweep interleaving NCCL_ALGO, planned (--dry-run): the NCCL points share one launch, each
value passed as a setting, the MPI points alone. Skipped where this build has no NCCL backend
(the plan needs no GPU; tests/gpu/validate_gpu.py runs it on one)."""
import subprocess
import sys

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
version = subprocess.run([args.colltune, "--version"], capture_output=True, text=True).stdout
if " nccl" not in version:
    print(f"sweep_nccl_plan: skipped: this build has no NCCL backend ({version.strip()})")
    sys.exit(77)
# NCCL_ALGO interleaved: the NCCL points share one launch, each value passed as a setting (run on
# a GPU by tests/gpu/validate_gpu.py; here the plan is checked, which needs no GPU).
nccl_spec = h.write_spec(work, """
name: nccl-algo
benchmark: {backends: [mpi, nccl], collectives: allreduce, min_bytes: 8, max_bytes: 1M}
axes:
  NCCL_ALGO: [null, Ring, '^Tree,Ring']
interleave: NCCL_ALGO
""", name="nccl.yaml")
code, stdout, stderr = h.run_sweep(args, "--dry-run", nccl_spec)
commands = [l for l in stdout.splitlines() if not l.startswith("#")]
nccl = [c for c in commands if "--backend nccl" in c]
check(code == 0 and len(commands) == 4 and len(nccl) == 1,
      f"NCCL dry run: exit {code}, {len(commands)} launches: {stderr[-500:]}")
check(bool(nccl) and nccl[0].count("--interleave-set") == 3 and
      "--interleave-set 'NCCL_ALGO=^Tree,Ring'" in nccl[0], f"NCCL dry run: {nccl}")
check(all("--interleave-set" not in c for c in commands if c not in nccl),
      "NCCL dry run: an MPI point was given an NCCL setting")
h.finish("sweep_nccl_plan")
