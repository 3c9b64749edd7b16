"""An nccl-tests command line on real ranks: -J writes nccl-tests' JSON whose figures are the
JSONL records' (median sample, its bandwidth, #wrong), `colltune report` reads it back, -z 3 is
per-op timing and -C 1 records the launch span."""
import csv
import json
import os
import statistics
import subprocess

import harness
from harness import check

args = harness.parse_args()
work = harness.workdir()
jsonl, nccl_json = os.path.join(work, "r.jsonl"), os.path.join(work, "r.json")
# nccl-tests spellings: 1KB, -z 3, -a 3, -c 1, -p 0, -C 0, -I 0.
code, stdout, stderr, _ = harness.run(
    args, ["-b", "8", "-e", "1KB", "-f", "16", "-n", "5", "-w", "1", "-c", "1", "-d", "int32",
           "-z", "3", "-a", "3", "-p", "0", "-C", "0", "-I", "0", "--repetitions", "5", "--json",
           jsonl, "-J", nccl_json], limit_seconds=120)
check(code == 0, f"run: exit {code}: {stderr[-800:]}")
records = harness.read_jsonl(jsonl)
with open(nccl_json) as f:
    doc = json.load(f)
check(not os.path.exists(nccl_json + ".partial"), "-J left its .partial file behind")
check(doc["version"] == 3 and doc["args"][1] == "run" and "-J" in doc["args"],
      f"header: {doc['version']} {doc['args']}")
check(doc["config"]["blocking_collectives"] == "true", "-z 3 not shown as blocking collectives")
check(len(doc["config"]["devices"]) == args.np, f"{len(doc['config']['devices'])} device entries")
check(all(r["context"]["timing"] == "per-op" for r in records), "-z 3 did not time per op")
# 8, 128 B: each an out-of-place and an in-place half of one row.
check(len(doc["results"]) == 2 and len(records) == 4,
      f"{len(doc['results'])} rows, {len(records)} records")
for r in records:
    row = next(x for x in doc["results"] if x["size"] == r["bytes"])
    half = row["in_place" if r["in_place"] else "out_of_place"]
    # The oracle: the median of the record's raw samples, computed here.
    median_us = statistics.median(r["samples_seconds"]) * 1e6
    check(abs(half["time"] - median_us) <= 1e-9 * median_us,
          f"{r['bytes']} B: -J time {half['time']} us, median of samples {median_us} us")
    algbw = r["bytes"] / (median_us * 1e-6) / 1e9
    check(abs(half["alg_bw"] - algbw) <= 1e-9 * algbw, f"alg_bw {half['alg_bw']} vs {algbw}")
    check(half["nwrong"] == 0.0 and row["root"] == "    -1" and row["type"] == "int32",
          f"row fields {row}")
check(doc["out_of_bounds"] == {"count": 0, "okay": "true"}, f"{doc['out_of_bounds']}")
# Read back: the report takes the file as it takes nccl-tests' own.
proc = subprocess.run([args.colltune, "report", nccl_json, "--out", os.path.join(work, "rep")],
                      capture_output=True, text=True, timeout=60)
check(proc.returncode == 0, f"report of -J output: exit {proc.returncode}: {proc.stderr[-500:]}")
if proc.returncode == 0:
    with open(os.path.join(work, "rep", "r.results.csv")) as f:
        rows = list(csv.DictReader(f))
    check(len(rows) == len(records), f"report read {len(rows)} rows of {len(records)}")
    for r in records:
        row = next((x for x in rows if int(x["bytes"]) == r["bytes"]
                    and x["in_place"] == str(r["in_place"]).lower()), None)
        median_us = statistics.median(r["samples_seconds"]) * 1e6
        check(row is not None and abs(float(row["median_us"]) - median_us) < 1e-3,
              f"read back {r['bytes']} B: {row and row['median_us']} us, wrote {median_us}")

# -C 1: the clock stops when the launch call returns; recorded as the launch span, and -J
# names the figure cpu_time as nccl-tests does.
cpu_json = os.path.join(work, "cpu.json")
code, _, stderr, _ = harness.run(args, ["-b", "8", "-e", "8", "-n", "3", "--repetitions", "3",
                                        "-C", "1", "--json", os.path.join(work, "cpu.jsonl"),
                                        "-J", cpu_json], limit_seconds=60)
check(code == 0, f"-C 1: exit {code}: {stderr[-500:]}")
if code == 0:
    cpu = harness.read_jsonl(os.path.join(work, "cpu.jsonl"))
    check(all(r["context"]["time_span"] == "launch" for r in cpu), "-C 1 not recorded as launch")
    half = json.load(open(cpu_json))["results"][0]["out_of_place"]
    check("cpu_time" in half and "time" not in half, f"-C 1 -J half: {half}")
check(all(r["context"]["time_span"] == "completion" for r in records), "default span not kept")
harness.finish("nccl_tests_flags")
