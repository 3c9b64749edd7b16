#!/usr/bin/env python3
"""Sweep -> ompi-rules -> rerun with the rules; ratios of medians per rank count and size."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

SPEC = """
name: tune-roundtrip
launcher_args: [--oversubscribe, --bind-to, "core:overload-allowed"]
repetitions: 2
env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}
benchmark: {collectives: allreduce, min_bytes: 8, max_bytes: 1M, step_factor: 16, samples: 20,
            in_place: never}
axes:
  np: [2, 4]
  OMPI_MCA_coll_tuned_allreduce_algorithm: [null, 1, 2, 3, 4, 5, 6]
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--colltune", required=True)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="colltune-roundtrip-")
    spec = os.path.join(tmp, "spec.yaml")
    open(spec, "w").write(SPEC)
    subprocess.run([args.colltune, "sweep", spec, "--results", tmp + "/results"], check=True,
                   capture_output=True)
    store = os.path.join(tmp, "results", os.listdir(tmp + "/results")[0])
    rules = subprocess.run([args.colltune, "tune", store, "--emit", "ompi-rules"], check=True,
                           capture_output=True, text=True).stdout
    rules_path = os.path.join(tmp, "rules.conf")
    open(rules_path, "w").write(rules)
    print(rules)
    manifest = json.load(open(os.path.join(store, "manifest.json")))
    medians = {}  # (np, algorithm, bytes) -> [samples]
    for launch in manifest["launches"]:
        point = next(p for p in manifest["points"] if p["id"] == launch["point"])
        alg = point["settings"].get("OMPI_MCA_coll_tuned_allreduce_algorithm", "default")
        for line in open(os.path.join(store, launch["records"])):
            r = json.loads(line)
            medians.setdefault((r["nranks"], alg, r["bytes"]), []).extend(r["samples_seconds"])
    print(f"{'np':>3} {'bytes':>8} {'winner':>8} {'winner us':>10} {'default us':>10} "
          f"{'rules us':>9} {'rules/winner':>12} {'rules/default':>13}")
    for np in (2, 4):
        out = os.path.join(tmp, f"rules-{np}.jsonl")
        subprocess.run(["mpirun", "--oversubscribe", "--bind-to", "core:overload-allowed", "-np",
                        str(np), "--mca", "coll_tuned_use_dynamic_rules", "1", "--mca",
                        "coll_tuned_dynamic_rules_filename", rules_path, args.colltune, "run",
                        "--coll", "allreduce", "-b", "8", "-e", "1M", "-f", "16",
                        "--repetitions", "40", "--in-place", "never", "--json", out],
                       check=True, capture_output=True)
        for line in open(out):
            r = json.loads(line)
            size = r["bytes"]
            cells = {alg: statistics.median(s) for (n, alg, b), s in medians.items()
                     if n == np and b == size}
            winner = min(cells, key=cells.get)
            ours = r["stats_seconds"]["median"]
            print(f"{np:>3} {size:>8} {winner:>8} {cells[winner] * 1e6:>10.2f} "
                  f"{cells['default'] * 1e6:>10.2f} {ours * 1e6:>9.2f} "
                  f"{ours / cells[winner]:>12.3f} {ours / cells['default']:>13.3f}")


if __name__ == "__main__":
    main()
