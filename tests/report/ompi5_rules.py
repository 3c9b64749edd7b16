"""Open MPI 5 applies colltune's rules file as it is: the file `tune --emit ompi-rules` writes
from the fixture store forces alltoall algorithm 5 (two_proc, which refuses any other rank count
than 2) at comm size 4, and PyPI's Open MPI 5 then fails a 4-rank alltoall with
MPI_ERR_UNSUPPORTED_OPERATION, while the same run without the file passes: Open MPI 5 read the
file and applied the rule (report.ompi_rules_roundtrip shows it for Open MPI 4.1). Skipped (77)
without colltune-openmpi5 or its prefix."""
import argparse
import os
import subprocess

import report_harness as h
from report_harness import check

parser = argparse.ArgumentParser()
parser.add_argument("--colltune", required=True, help="colltune (tune)")
parser.add_argument("--mpi-colltune", required=True, help="colltune-openmpi5")
parser.add_argument("--prefix", required=True, help="Open MPI 5's install prefix")
args = parser.parse_args()
mpirun = os.path.join(os.path.abspath(args.prefix), "bin", "mpirun")
if not os.access(args.mpi_colltune, os.X_OK) or not os.access(mpirun, os.X_OK):
    h.skip("ompi5_rules", f"no {args.mpi_colltune} or no {mpirun} "
                          "(scripts/setup.sh --with-test-tools builds them)")

root = h.fixtures()
code, rules, err = h.colltune(args, "tune", "base", "--emit", "ompi-rules", cwd=root)
check(code == 0 and "\n3 # collective id\n1 # comm sizes\n4 # comm size\n1 # rules" in rules
      and "\n0 5 0 0\n" in rules, f"fixture rules (alltoall, comm size 4, algorithm 5): {rules}")
rules_path = os.path.join(root, "alltoall.rules")
with open(rules_path, "w") as f:
    f.write(rules)

# Open MPI 5's own launcher and nothing of the default MPI's environment.
env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PRTE_"))}
env["PATH"] = os.path.dirname(mpirun) + os.pathsep + env.get("PATH", "")
if os.geteuid() == 0:
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def alltoall(rules_file):
    argv = [mpirun, "--oversubscribe", "-np", "4", "--mca", "coll_tuned_use_dynamic_rules", "1"]
    if rules_file:
        argv += ["--mca", "coll_tuned_dynamic_rules_filename", rules_file]
    argv += [args.mpi_colltune, "run", "--coll", "alltoall", "-d", "uint8", "-b", "8", "-e", "4K",
             "-f", "32", "-n", "2", "--repetitions", "2"]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=180)


proc = alltoall(None)
check(proc.returncode == 0 and "# mpi: Open MPI 5." in proc.stdout,
      f"Open MPI 5 without the file: exit {proc.returncode}: {proc.stdout[:300]} "
      f"{proc.stderr[-600:]}")
proc = alltoall(rules_path)
check(proc.returncode != 0 and "MPI_ERR_UNSUPPORTED_OPERATION" in proc.stdout + proc.stderr,
      f"Open MPI 5 with algorithm 5 forced by the file: exit {proc.returncode}: "
      f"{proc.stderr[-800:]}")
h.finish("ompi5_rules")
