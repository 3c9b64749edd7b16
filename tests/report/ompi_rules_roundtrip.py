"""The Open MPI rules file, for real: one emitted from a real sweep is accepted by Open MPI 4.1
at 2 and 4 ranks with validation passing; and one naming alltoall algorithm 5 (two_proc, which
refuses 4 ranks) at comm size 4 makes a 4-rank alltoall fail while the same run without the file
passes: Open MPI read the file and applied our rule."""
import os

import report_harness as h
from report_harness import check

args = h.parse_args()
root = h.fixtures()
spec = os.path.join(root, "spec.yaml")
with open(spec, "w") as f:
    f.write("""
name: roundtrip
launcher_args: [--oversubscribe]
env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}
benchmark: {collectives: allreduce, min_bytes: 8, max_bytes: 256K, step_factor: 32, iters: 10,
            samples: 8}
axes:
  np: [2, 4]
  OMPI_MCA_coll_tuned_allreduce_algorithm: [1, 2, 3, 4, 5, 6]
""")
code, out, err = h.colltune(args, "sweep", spec, "--results", os.path.join(root, "results"), limit_seconds=300)
check(code == 0, f"sweep: {code} {err[-1000:]}")
store = os.path.join(root, "results", os.listdir(os.path.join(root, "results"))[0])
code, rules, err = h.colltune(args, "tune", store, "--emit", "ompi-rules")
check(code == 0 and "2 # collective id" in rules, f"tune: {code} {err}")
rules_path = os.path.join(root, "allreduce.rules")
with open(rules_path, "w") as f:
    f.write(rules)


def run_with(np, rules_file, coll):
    argv = ["mpirun", "--oversubscribe", "-np", str(np), "--mca", "coll_tuned_use_dynamic_rules", "1"]
    if rules_file:
        argv += ["--mca", "coll_tuned_dynamic_rules_filename", rules_file]
    argv += [args.colltune, "run", "--coll", coll, "-d", "uint8", "-b", "8", "-e", "256K", "-f", "32",
             "-n", "2", "--repetitions", "2"]
    import subprocess
    return subprocess.run(argv, env=h.mpi_env(), capture_output=True, text=True, timeout=120)


for np in (2, 4):
    proc = run_with(np, rules_path, "allreduce")
    check(proc.returncode == 0 and "0 OK" in proc.stdout, f"np {np} with the emitted rules: {proc.returncode} {proc.stderr[-800:]}")

code, rules, err = h.colltune(args, "tune", "base", "--emit", "ompi-rules", cwd=root)
check(code == 0 and "\n3 # collective id\n1 # comm sizes\n4 # comm size\n1 # rules" in rules and "\n0 5 0 0\n" in rules,
      f"fixture rules: {rules}")
broken = os.path.join(root, "alltoall.rules")
with open(broken, "w") as f:
    f.write(rules)
proc = run_with(4, broken, "alltoall")
check(proc.returncode != 0 and "MPI_ERR_UNSUPPORTED_OPERATION" in proc.stderr,
      f"alltoall at 4 ranks with algorithm 5 forced by the file: exit {proc.returncode}")
proc = run_with(4, None, "alltoall")
check(proc.returncode == 0, f"the same run without the file: exit {proc.returncode}")
h.finish("ompi_rules_roundtrip")
