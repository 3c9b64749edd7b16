"""-I 1 -K 2 -J: nccl-tests 2.19.6's per-iteration objects, field by field. Every row's half has
its "<half>_per_iter" object in nccl-tests' key order; times_us has one entry per iteration (-n)
and is the element-wise max of per_process_max_times_us, one list per process, which are the
records' own per-rank samples in microseconds; the statistics are recomputed here from times_us
by nccl-tests' rules (worked in the comments). A rank delayed 2 ms an op is the slowest process
in every row. With COLLTUNE_NCCL_TESTS_ANALYZER set to nccl-tests' tools/analyze_perf_json.py,
that analyzer reads the file too and must name the same process."""
import json
import math
import os
import socket
import subprocess
import sys

import harness
from harness import check

args = harness.parse_args()
harness.per_rank_timing_or_skip("per_iter_json", args.np)
work = harness.workdir()
late = args.np - 1
iterations, skip = 12, 2
out = os.path.join(work, "per-iter.json")
records_path = os.path.join(work, "records.jsonl")
code, _, stderr, _ = harness.run(args, ["--coll", "allreduce", "-b", "8", "-e", "4K", "-f", "8",
                                        "-n", str(iterations), "-I", "1", "-K", str(skip),
                                        "--test-delay-rank", str(late), "--test-delay-seconds",
                                        "0.002", "-J", out, "--json", records_path],
                                 limit_seconds=120)
check(code == 0, f"exit {code}: {stderr[-800:]}")
doc = json.load(open(out), object_pairs_hook=lambda pairs: pairs)  # keeps key order
as_dict = lambda pairs: dict(pairs)
top = as_dict(doc)
config = as_dict(top["config"])
check(config["iterations"] == iterations, f"config iterations {config['iterations']}")
check(config["per_iter_timing"] == "true" and config["per_iter_skip"] == skip,
      f"config says per_iter_timing {config['per_iter_timing']}, skip {config['per_iter_skip']}")
devices = [as_dict(d) for d in config["devices"]]
check(len(devices) == args.np and all(d["hostname"] == socket.gethostname() for d in devices),
      f"devices {devices}: one per process with its host")
records = {(r["bytes"], r["in_place"]): r for r in harness.read_jsonl(records_path)}
rows = [as_dict(r) for r in top["results"]]
check(len(rows) == 4, f"{len(rows)} rows, expected 4 sizes")
keys_expected = ["size", "count", "type", "redop", "root", "out_of_place",
                 "out_of_place_per_iter", "in_place", "in_place_per_iter", "actual_iterations",
                 "experiment_name"]
stat_keys = ["skipped_iterations", "min_us", "max_us", "avg_us", "p50_us", "p95_us", "p99_us",
             "stdev_us", "cv_pct", "times_us", "per_process_max_times_us"]
for pairs, row in zip(top["results"], rows):
    check([k for k, _ in pairs] == keys_expected, f"row keys {[k for k, _ in pairs]}")
    check(row["actual_iterations"] == iterations, f"actual_iterations {row['actual_iterations']}")
    for half, in_place in (("out_of_place", False), ("in_place", True)):
        pairs_it = row[half + "_per_iter"]
        check([k for k, _ in pairs_it] == stat_keys, f"{half}_per_iter keys {pairs_it}")
        it = as_dict(pairs_it)
        times, lists = it["times_us"], it["per_process_max_times_us"]
        check(len(times) == iterations, f"{len(times)} times for -n {iterations}")
        check(len(lists) == args.np and all(len(l) == iterations for l in lists),
              f"per-process lists {[len(l) for l in lists]}, expected {args.np} x {iterations}")
        record = records[(row["size"], in_place)]
        for p, own in enumerate(record["rank_samples_seconds"]):
            check(all(abs(a - b * 1e6) <= 1e-9 * max(a, 1) for a, b in zip(lists[p], own)),
                  f"process {p}'s list {lists[p][:3]} is not its record samples {own[:3]}")
        for i in range(iterations):
            check(abs(times[i] - max(l[i] for l in lists)) < 1e-6, f"times_us[{i}] not the max")
        # nccl-tests' rules over the iterations after the first -K: p50 = sorted[n/2], p95 and
        # p99 the nearest rank sorted[min(n-1, ceil(n p / 100) - 1)], stdev over n.
        kept = sorted(times[skip:])
        n = len(kept)
        mean = sum(kept) / n
        sd = math.sqrt(sum((t - mean) ** 2 for t in kept) / n)
        expect = {"skipped_iterations": skip, "min_us": kept[0], "max_us": kept[-1],
                  "avg_us": mean, "p50_us": kept[n // 2],
                  "p95_us": kept[min(n - 1, math.ceil(n * 95 / 100) - 1)],
                  "p99_us": kept[min(n - 1, math.ceil(n * 99 / 100) - 1)], "stdev_us": sd,
                  "cv_pct": sd / mean * 100}
        for key, value in expect.items():
            check(abs(it[key] - value) <= 1e-6 * max(abs(value), 1),
                  f"{row['size']} B {half}: {key} {it[key]}, by nccl-tests' rule {value}")
        averages = [sum(l) / len(l) for l in lists]
        check(averages.index(max(averages)) == late,
              f"{row['size']} B {half}: slowest process {averages.index(max(averages))}, "
              f"delayed {late}")
analyzer = os.environ.get("COLLTUNE_NCCL_TESTS_ANALYZER")
if analyzer:
    result = subprocess.run([sys.executable, analyzer, out, "--straggler", "--nodes"],
                            capture_output=True, text=True)
    check(result.returncode == 0, f"analyzer: {result.stderr[-500:]}")
    check(f"slowest=process {late:2d}" in result.stdout, f"analyzer: {result.stdout[-800:]}")
    check(socket.gethostname() in result.stdout, "analyzer does not group by our host")
else:
    print("per_iter_json: nccl-tests' analyzer not run (COLLTUNE_NCCL_TESTS_ANALYZER unset)")
harness.finish("per_iter_json")
