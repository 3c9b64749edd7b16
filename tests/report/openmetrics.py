"""`colltune tune --emit openmetrics`, read by a real parser (prometheus_client's OpenMetrics
parser): two gauge families in base units, labels without paths, and values that match
results.csv (busbw GB/s x 1e9; the median time). Skipped where no Python here has
prometheus_client (Debian: python3-prometheus-client)."""
import csv
import json
import os
import subprocess
import sys

import report_harness as h
from report_harness import check

# The parsing runs in a child: the first interpreter that has the library, so a pyenv python
# without it can still use Debian's /usr/bin/python3.
PARSE = """
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
out = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        out.append([family.name, family.type, family.unit, s.name, s.labels, s.value])
print(json.dumps(out))
"""
interpreter = None
for candidate in (sys.executable, "/usr/bin/python3"):
    if os.path.exists(candidate) and subprocess.run(
            [candidate, "-c", "import prometheus_client"], capture_output=True).returncode == 0:
        interpreter = candidate
        break
if interpreter is None:
    h.skip("openmetrics", "no python here has prometheus_client (python3-prometheus-client)")

args = h.parse_args()
root = h.fixtures()
store = os.path.join(os.path.abspath(root), "base")  # an absolute path: it must not leak
code, text, err = h.colltune(args, "tune", store, "--emit", "openmetrics", cwd=root)
check(code == 0, f"tune --emit openmetrics: exit {code}: {err}")
parsed = subprocess.run([interpreter, "-c", PARSE], input=text, capture_output=True, text=True)
check(parsed.returncode == 0, f"the OpenMetrics parser refused it: {parsed.stderr[-800:]}")
samples = json.loads(parsed.stdout) if parsed.returncode == 0 else []
families = {(s[0], s[1], s[2]) for s in samples}
check(families == {("colltune_busbw_bytes_per_second", "gauge", "bytes_per_second"),
                   ("colltune_time_seconds", "gauge", "seconds")}, f"families {families}")
check(all(s[4]["source"] == "base" for s in samples), "a source label is not the store's name")
check(not any(v.startswith("/") for s in samples for v in s[4].values()), "a path in a label")
code, _, err = h.colltune(args, "report", store, cwd=root)
check(code == 0, f"report: {err}")
rows = list(csv.DictReader(open(os.path.join(store, "results.csv"))))
busbw = {(s[4]["point"], s[4]["collective"], s[4]["bytes"]): s[5] for s in samples
         if s[0] == "colltune_busbw_bytes_per_second"}
checked = 0
for (point, coll, size), value in busbw.items():
    medians = [float(r["busbw_gbps"]) for r in rows if r["point_id"] == point and
               r["collective"] == coll and r["bytes"] == size and r["in_place"] == "false"]
    if medians:
        checked += 1
        # The metric is the median over launches' samples; each CSV row is one round's. It
        # must lie within the rounds' range, in bytes per second (x 1e9, not GB/s).
        check(min(medians) * 1e9 * 0.999 <= value <= max(medians) * 1e9 * 1.001,
              f"{point} {coll} {size}: {value} B/s outside {min(medians)}..{max(medians)} GB/s")
check(checked >= 10, f"only {checked} metrics compared with results.csv")
h.finish("openmetrics")
