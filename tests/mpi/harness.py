"""Shared helpers for the MPI tests: real mpirun, real files, a hard limit on every launch.
COLLTUNE_TEST_MPI=mpich runs them under Debian's MPICH instead of Open MPI: the colltune built
against it, started by MPICH's own Hydra mpiexec."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--np", type=int, required=True)
    parser.add_argument("--docs", required=True)
    args = parser.parse_args()
    if not os.access(args.colltune, os.X_OK):
        skip(os.path.basename(sys.argv[0]), f"no colltune at {args.colltune} (the MPICH one is "
             "built where scripts/setup.sh --with-test-tools finds MPICH)")
    if MPI_UNDER_TEST == "mpich" and HYDRA is None:
        skip(os.path.basename(sys.argv[0]), "no MPICH mpiexec here (apt install mpich)")
    return args


# Which MPI the tests run under: "openmpi" (the default build) or "mpich" (COLLTUNE_TEST_MPI).
MPI_UNDER_TEST = os.environ.get("COLLTUNE_TEST_MPI", "openmpi")
HYDRA = shutil.which("mpiexec.mpich") or shutil.which("mpiexec.hydra")


def launcher_argv(np):
    """The launcher of the MPI under test with its rank count, in its own words."""
    if MPI_UNDER_TEST == "mpich":
        return [HYDRA, "-n", str(np)]
    return ["mpirun", "--oversubscribe", "-np", str(np)]


def rank_pids(launcher_pid, colltune):
    """The ranks a launcher started, at any depth: Hydra's ranks are its proxy's children."""
    found, todo = [], [str(launcher_pid)]
    while todo:
        children = subprocess.run(["pgrep", "-P", todo.pop()], capture_output=True,
                                  text=True).stdout.split()
        for pid in children:
            try:
                argv = open(f"/proc/{pid}/cmdline").read().split("\0")
            except OSError:
                continue
            if os.path.basename(argv[0]) == os.path.basename(colltune) and "run" in argv:
                found.append(pid)
            else:
                todo.append(pid)
    return found


def killed_exit(signal_number):
    """The launcher's exit for a rank killed by a signal: Open MPI's mpirun 128 + the signal,
    Hydra's mpiexec the signal's number."""
    return signal_number if MPI_UNDER_TEST == "mpich" else 128 + signal_number


def timeout_exits():
    """The launcher's exit when a rank's --timeout ends the job (colltune exits 4). Hydra exits
    with the OR of its ranks' raw wait statuses (mpiexec.c): 0x400 for the 4, 9 for the SIGKILL
    it sends the ranks still running, 1 for a rank whose PMI socket closed before it was reaped
    (pmip_cb.c); any OR of them reads as 4, 9 or 1."""
    return (1, 4, 9) if MPI_UNDER_TEST == "mpich" else (4,)


def algorithm_race(values=2):
    """An --interleave setting of the MPI under test racing two (or three) allreduce algorithms
    in one launch, and the environment that lets the knob decide."""
    if MPI_UNDER_TEST == "mpich":
        names = ["recursive_doubling", "reduce_scatter_allgather", "smp"][:values]
        return ("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=" + ",".join(names),
                {"MPIR_CVAR_DEVICE_COLLECTIVES": "none"})
    return ("coll_tuned_allreduce_algorithm=" + ",".join(str(v + 1) for v in range(values)),
            {"OMPI_MCA_coll_tuned_use_dynamic_rules": "1"})


def bind_argv(np, policy):
    """The launcher binding each rank to a core ("core", overloading allowed) or to none."""
    if MPI_UNDER_TEST == "mpich":
        return [HYDRA, "-bind-to", policy, "-n", str(np)]
    return ["mpirun", "--oversubscribe", "--bind-to",
            "core:overload-allowed" if policy == "core" else "none", "-np", str(np)]


def per_rank_timing_or_skip(name, np):
    """MPICH's ranks poll without yielding: with more ranks than cores, which rank is slowest is
    the scheduler's doing, not the test's delay."""
    if MPI_UNDER_TEST == "mpich" and np > (os.cpu_count() or 1):
        skip(name, f"{np} MPICH ranks poll busily on {os.cpu_count()} cores: per-rank times are "
                   "the scheduler's; run with as many cores as ranks")


def open_mpi_only(name, why):
    """For a test whose subject is Open MPI itself (its MCA parameters, its mpirun)."""
    if MPI_UNDER_TEST != "openmpi":
        skip(name, f"{why}; this run is under {MPI_UNDER_TEST}")


def mpi_env():
    env = dict(os.environ)
    # Open MPI refuses root without these; CI and the dev machines run as root.
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    return env


def mpirun_argv(args, run_args):
    return launcher_argv(args.np) + [args.colltune, "run"] + run_args


def run(args, run_args, limit_seconds=240):
    """Runs colltune under mpirun; returns (exit code, stdout, stderr, seconds)."""
    start = time.monotonic()
    proc = subprocess.run(mpirun_argv(args, run_args), env=mpi_env(), capture_output=True,
                          text=True, timeout=limit_seconds)
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def workdir():
    return tempfile.mkdtemp(prefix="colltune-test-")


failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message, file=sys.stderr)


def skip(name, reason):
    """A test that cannot do its job here: ctest shows it Skipped (SKIP_RETURN_CODE 77)."""
    print(f"{name}: skipped: {reason}")
    sys.exit(77)


def finish(name):
    if failures:
        print(f"{name}: {len(failures)} failure(s)", file=sys.stderr)
        sys.exit(1)
    print(f"{name}: ok")
