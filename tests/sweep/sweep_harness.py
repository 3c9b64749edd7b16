"""Helpers for the sweep tests: the real driver, real mpirun, real signals."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "mpi"))
from harness import check, finish, mpi_env, skip  # noqa: E402,F401


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--colltune", required=True)
    return parser.parse_args()


def workdir():
    return tempfile.mkdtemp(prefix="colltune-sweep-test-")


def write_spec(directory, text, name="spec.yaml"):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def sweep_argv(args, *extra):
    return [args.colltune, "sweep", *extra]


def run_sweep(args, *extra, limit_seconds=300):
    proc = subprocess.run(sweep_argv(args, *extra), env=mpi_env(), capture_output=True, text=True,
                          timeout=limit_seconds)
    return proc.returncode, proc.stdout, proc.stderr


def popen_sweep(args, *extra):
    return subprocess.Popen(sweep_argv(args, *extra), env=mpi_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def the_store(results):
    stores = [os.path.join(results, d) for d in os.listdir(results)] if os.path.isdir(results) else []
    return stores[0] if len(stores) == 1 else None


def manifest(store):
    try:
        with open(os.path.join(store, "manifest.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def wait_for(predicate, seconds, interval=0.05):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    return None


def children(pid):
    """Direct and indirect children of pid, from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                text = f.read()
        except OSError:
            continue
        parents[int(entry)] = int(text[text.rfind(")") + 2:].split()[1])
    found, queue = set(), [pid]
    while queue:
        p = queue.pop()
        for child, parent in parents.items():
            if parent == p and child not in found:
                found.add(child)
                queue.append(child)
    return found


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read().replace("\0", " ")
    except OSError:
        return ""


def rank_pids(launcher_pid):
    """Ranks that have exec'd colltune; a fork of mpirun that has not yet shares its cmdline."""
    def is_rank(pid):
        argv = cmdline(pid).split()
        return len(argv) > 1 and argv[0].endswith("colltune") and argv[1] == "run"
    return sorted(p for p in children(launcher_pid) if is_rank(p))


def processes_mentioning(text):
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and text in cmdline(int(p))]


def launch_key(launch):
    return (launch["point"], launch["round"])
