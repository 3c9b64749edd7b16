"""Open MPI: a forced coll/tuned algorithm is moot where another coll component serves that
collective, and colltune asks the library which one does. Raising coll/sm's priority above
tuned's (30) makes sm serve allreduce, bcast and barrier but not alltoall (coll_sm_module.c sets
no alltoall); Open MPI itself confirms sm is enabled at that priority in its coll_base_verbose
lines. So: a forced allreduce algorithm, set or interleaved, gets the warning naming sm; a forced
alltoall algorithm, and the same allreduce one without sm raised, get none. And verify of a rules
file for allreduce under sm raised is exit 3, saying the MPI did not apply the file."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, finish, mpi_env  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--colltune", required=True)
args = parser.parse_args()
work = tempfile.mkdtemp(prefix="colltune-coll-component-")


def run(extra, name, flags=()):
    env = dict(mpi_env(), OMPI_MCA_coll_tuned_use_dynamic_rules="1", **extra)
    out = os.path.join(work, name + ".jsonl")
    proc = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", args.colltune, "run",
                           "--coll", "allreduce,alltoall", "-b", "8", "-e", "1K", "-f", "128",
                           "-n", "2", "--repetitions", "2", "--json", out, *flags],
                          env=env, capture_output=True, text=True, timeout=120)
    check(proc.returncode == 0, f"{name}: exit {proc.returncode}: {proc.stderr[-400:]}")
    first = json.loads(open(out).readline()) if os.path.exists(out) else {"context": {}}
    return proc.stdout + proc.stderr, first["context"].get("warnings", [])


SERVED = "allreduce is served by Open MPI's coll/sm here, not coll/tuned"
said, warnings = run({"OMPI_MCA_coll_tuned_allreduce_algorithm": "4",
                      "OMPI_MCA_coll_sm_priority": "40", "OMPI_MCA_coll_base_verbose": "9"},
                     "sm_raised")
check("selecting          sm, priority  40, Enabled" in said,
      "Open MPI itself: sm enabled at priority 40 (the oracle)")
check(any(SERVED in w for w in warnings) and SERVED in said,
      f"the warning, printed and in the records: {warnings}")

# Raced in one launch through MPI_T: moot alike.
said, warnings = run({"OMPI_MCA_coll_sm_priority": "40"}, "interleaved",
                     ["--interleave", "OMPI_MCA_coll_tuned_allreduce_algorithm=3,4"])
check(any(SERVED in w for w in warnings), f"the warning for an interleaved knob: {warnings}")

said, warnings = run({"OMPI_MCA_coll_tuned_alltoall_algorithm": "2",
                      "OMPI_MCA_coll_sm_priority": "40"}, "alltoall_forced")
check(not any("is served by" in w for w in warnings), f"sm serves no alltoall: {warnings}")

said, warnings = run({"OMPI_MCA_coll_tuned_allreduce_algorithm": "4"}, "tuned_serves")
check(not any("is served by" in w for w in warnings), f"tuned serves allreduce: {warnings}")

# verify of a rules file for allreduce where sm serves allreduce: Open MPI never applies the file,
# so verify's figures are not the file's and it says so, exit 3. The same file with tuned serving
# measures it (whatever the verdict) without that line.
rules = os.path.join(work, "allreduce.rules")
with open(rules, "w") as f:  # Open MPI 4.1's format: allreduce (id 2), comm size 2, algorithm 3
    f.write("1 # collectives\n2 # collective id\n1 # comm sizes\n2 # comm size\n1 # rules\n"
            "0 3 0 0\n")
NOT_APPLIED = "colltune verify: the MPI did not apply " + rules


def verify(extra, name):
    return subprocess.run([args.colltune, "verify", rules, "--np", "2", "--rounds", "2",
                           "--results", os.path.join(work, name)],
                          env=dict(mpi_env(), **extra), capture_output=True, text=True,
                          timeout=300)


proc = verify({"OMPI_MCA_coll_sm_priority": "40"}, "verify_sm")
check(proc.returncode == 3 and NOT_APPLIED in proc.stderr and SERVED in proc.stderr
      and "the rules file (OMPI_MCA_coll_tuned_dynamic_rules_filename)" in proc.stderr,
      f"verify where sm serves: exit {proc.returncode}: {proc.stderr[-800:]}")
proc = verify({}, "verify_tuned")
check(proc.returncode in (0, 1, 3) and NOT_APPLIED not in proc.stderr and "colltune verify: store"
      in proc.stderr, f"verify where tuned serves: exit {proc.returncode}: {proc.stderr[-800:]}")
finish("coll_component")
