"""Runs for the history tests: real `colltune run` launches, and files made from one with chosen
times, start stamps and environment."""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "mpi"))
from harness import mpi_env, read_jsonl  # noqa: E402


def real_run(colltune, path, extra_env=None):
    """One `colltune run` of allreduce 8-512 B on 2 ranks, its records written to `path`."""
    env = mpi_env()
    env.update(extra_env or {})
    proc = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", colltune, "run", "--coll",
                           "allreduce", "-b", "8", "-e", "512", "-f", "8", "--json", path],
                          env=env, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        print(proc.stdout, proc.stderr, file=sys.stderr)
        sys.exit(f"colltune run failed ({proc.returncode})")
    return read_jsonl(path)


def made(folder, base, factors, stamps=None, env_from=None, env=None):
    """One run file per factor: `base`'s records with every sample times the factor, stamped
    2026-11-<i>T02:00:00Z (or `stamps[i]`; None drops the stamp), `env` added to the recorded
    environment from run index `env_from` on."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for i, factor in enumerate(factors):
        stamp = stamps[i] if stamps else f"2026-11-{i + 1:02d}T02:00:00Z"
        with open(os.path.join(folder, f"run{i + 1:02d}.jsonl"), "w") as f:
            for rec in base:
                rec = json.loads(json.dumps(rec))
                rec["samples_seconds"] = [x * factor for x in rec["samples_seconds"]]
                if stamp is None:
                    del rec["context"]["start_time_utc"]
                else:
                    rec["context"]["start_time_utc"] = stamp
                if env and env_from is not None and i >= env_from:
                    rec["context"]["environment"].update(env)
                f.write(json.dumps(rec) + "\n")
    return folder
