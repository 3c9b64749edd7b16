"""Helpers for the report tests: fixtures made fresh in a temporary directory."""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "mpi"))
from harness import check, finish, mpi_env, skip  # noqa: E402,F401

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--artifacts", default="")
    return parser.parse_args()


def fixtures():
    """A directory holding base/, slower/, nccl/, torn/ and nccl-tests.json."""
    root = tempfile.mkdtemp(prefix="colltune-report-test-")
    subprocess.run([sys.executable, os.path.join(HERE, "make_fixtures.py"), root], check=True)
    return root


def colltune(args, *argv, cwd=None, limit_seconds=120):
    proc = subprocess.run([args.colltune, *argv], cwd=cwd, env=mpi_env(), capture_output=True,
                          text=True, timeout=limit_seconds)
    return proc.returncode, proc.stdout, proc.stderr
