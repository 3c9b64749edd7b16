"""--rank-samples keeps each rank's own samples: one list per rank, each as long as the
records' samples, whose element-wise maximum is the recorded sample (the default -a max); and a
rank delayed by 5 ms an op (test-only, inside its own timed region) is the one `colltune report`
names as lagging, with its host. Without --rank-samples the field is null. --copy-ceiling adds the host's memcpy bandwidth, once per
NUMA node and not once per rank."""
import os
import socket
import subprocess

import harness
from harness import check

args = harness.parse_args()
work = harness.workdir()
late = args.np - 1
out = os.path.join(work, "ranks.jsonl")
code, _, stderr, _ = harness.run(args, ["--coll", "allreduce", "-b", "8", "-e", "1K", "-f", "32",
                                        "-n", "2", "--repetitions", "6", "--rank-samples",
                                        "--test-delay-rank", str(late), "--test-delay-seconds",
                                        "0.005", "--json", out], limit_seconds=120)
check(code == 0, f"exit {code}: {stderr[-800:]}")
records = [r for r in harness.read_jsonl(out) if r["skipped"] is None]
check(len(records) == 4, f"{len(records)} records, expected 2 sizes x 2 placements")
for r in records:
    lists = r["rank_samples_seconds"]
    check(isinstance(lists, list) and len(lists) == args.np, f"{len(lists or [])} lists for "
          f"{args.np} ranks")
    check(all(len(l) == len(r["samples_seconds"]) for l in lists), "a list of another length")
    for s, recorded in enumerate(r["samples_seconds"]):
        check(abs(max(l[s] for l in lists) - recorded) <= 1e-12 * recorded,
              f"sample {s}: the max over ranks' own {[l[s] for l in lists]} is not {recorded}")
    # The delayed rank's own time holds the 5 ms an op; the others' do not.
    check(min(lists[late]) >= 0.005, f"rank {late}'s own samples {lists[late]} lack the delay")
report = subprocess.run([args.colltune, "report", out, "--out", os.path.join(work, "rep")],
                        capture_output=True, text=True)
check(report.returncode == 0, f"report: {report.stderr}")
md = open(os.path.join(work, "rep", "ranks.report.md")).read()
check(f"rank {late} on {socket.gethostname()} lags" in md,
      f"the report does not name rank {late} lagging: {md[md.find('warnings'):][:600]}")
check("rank 0 on" not in md.replace(f"rank {late} on", ""), "a rank without delay is named")
plain = os.path.join(work, "plain.jsonl")
code, _, stderr, _ = harness.run(args, ["--coll", "allreduce", "-b", "8", "-e", "8", "-n", "2",
                                        "--repetitions", "2", "--copy-ceiling", "--json", plain],
                                 limit_seconds=60)
check(code == 0 and all(r["rank_samples_seconds"] is None for r in harness.read_jsonl(plain)),
      "without --rank-samples the field is not null")
# --copy-ceiling: one host_memcpy figure per NUMA node of the one host (sysfs counts them),
# measured once however many ranks share the host; none without the flag.
numa_nodes = sorted(int(d[4:]) for d in os.listdir("/sys/devices/system/node")
                    if d.startswith("node") and d[4:].isdigit())
ceilings = harness.read_jsonl(plain)[0]["context"]["copy_ceilings"]
check(sorted(c["index"] for c in ceilings) == numa_nodes and
      all(c["host"] == socket.gethostname() and c["kind"] == "host_memcpy" and c["gbps"] > 0.05
          for c in ceilings), f"copy_ceilings {ceilings}, expected one per {numa_nodes} NUMA node")
check(records[0]["context"]["copy_ceilings"] == [], "copy_ceilings without --copy-ceiling")
harness.finish("rank_samples")
