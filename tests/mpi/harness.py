"""Shared helpers for the MPI tests: real mpirun, real files, a hard limit on every launch."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--np", type=int, required=True)
    parser.add_argument("--docs", required=True)
    return parser.parse_args()


def mpi_env():
    env = dict(os.environ)
    # Open MPI refuses root without these; CI and the dev machines run as root.
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    return env


def mpirun_argv(args, run_args):
    return ["mpirun", "--oversubscribe", "-np", str(args.np), args.colltune, "run"] + run_args


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
