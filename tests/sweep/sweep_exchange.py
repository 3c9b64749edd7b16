"""A sweep over alltoallv's exchange pattern: the axis reaches each launch as --exchange, the
uniform baseline is added and compared against, every record says its pattern, and the report
sets the patterns side by side in one panel."""
import csv
import json
import os
import subprocess

import sweep_harness as h
from sweep_harness import check

args = h.parse_args()
work = h.workdir()
spec = h.write_spec(work, """name: skew
benchmark: {collectives: alltoallv, min_bytes: 4K, max_bytes: 64K, step_factor: 16, samples: 3,
            in_place: never}
axes:
  np: 2
  exchange: ["hot:4", zipf:1]
""")
results = os.path.join(work, "results")
code, _, stderr = h.run_sweep(args, spec, "--results", results, limit_seconds=300)
check(code == 0, f"sweep: exit {code}: {stderr[-1500:]}")
store = h.the_store(results)
m = h.manifest(store)
check(len(m["points"]) == 3, f"{len(m['points'])} points: the baseline and two patterns expected")
patterns = {}
for point in m["points"]:
    path = os.path.join(store, "points", point["id"], "round-1.jsonl")
    records = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
    check(len(records) == 2, f"{point['label']}: {len(records)} records (4K and 64K)")
    want = point["settings"].get("exchange", "uniform")
    for r in records:
        x = r["exchange"]
        check(x["pattern"] == want and r["wrong"] == 0, f"{point['label']}: {x['pattern']}")
        check(sum(x["recv_bytes"]) == 2 * r["bytes"], f"{point['label']}: {x['recv_bytes']}")
    patterns[want] = point["baseline"]
check(patterns == {"uniform": True, "hot:4": False, "zipf:1": False},
      f"patterns and which is the baseline: {patterns}")
report = subprocess.run([args.colltune, "report", store], capture_output=True, text=True)
check(report.returncode == 0, f"report: {report.stderr}")
md = open(os.path.join(store, "report.md")).read()
panel = md[md.find("## alltoallv"):]
for label in ("exchange=hot:4", "exchange=zipf:1", "(no knob set)"):
    check(label in panel.split("\n## ")[0], f"the alltoallv panel lacks {label}")
check("left out" not in panel.split("\n## ")[0], "a pattern was left out of its panel")
# results.csv: the pattern and its imbalance beside each alltoallv row. hot:4 on 2 ranks by
# hand: the hot rank gets 4/5 of both rows, 2 x 4/5 = 1.6 times the mean (to whole elements).
rows = list(csv.DictReader(open(os.path.join(store, "results.csv"))))
hot = [r for r in rows if r["exchange"] == "hot:4"]
check(len(hot) == 2 and all(abs(float(r["imbalance"]) - 1.6) < 1e-3 for r in hot),
      f"results.csv hot:4 rows: {[(r['bytes'], r['imbalance']) for r in hot]}")
uniform = [r for r in rows if r["exchange"] == "uniform"]
check(len(uniform) == 2 and all(float(r["imbalance"]) == 1 for r in uniform),
      f"results.csv uniform rows: {[(r['bytes'], r['imbalance']) for r in uniform]}")
h.finish("sweep_exchange")
