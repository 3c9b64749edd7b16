#!/usr/bin/env python3
"""history.html in real headless Chromium, measured on the rendered page: 16 runs made from a
real run, run 4 alone 60% slower, runs 7-16 25% slower with OMPI_MCA_btl set, and within them runs
12-14 a slow spell. It loads with no console errors; each panel's chart has a line per size; the
change mark stands between runs 6 and 7 on every line, its text (naming the knob) inside the
chart; the spell is shaded from between runs 11 and 12 to between runs 14 and 15, its mark there;
the outlying run is ringed; no tick label straddles the plot frame; the end labels stand apart;
at 1400 px the document is no wider than the window. Skipped (77) where Chromium is not
installed."""
import argparse
import html as html_lib
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "mpi"))
from harness import check, finish, mpi_env, skip, workdir  # noqa: E402

import history_files as files  # noqa: E402

NAME = "history_html"
parser = argparse.ArgumentParser()
parser.add_argument("--colltune", required=True)
parser.add_argument("--artifacts", default="")
args = parser.parse_args()
browser = shutil.which("chromium") or shutil.which("chromium-browser")
if browser is None:
    skip(NAME, "no chromium on PATH (apt-get install chromium)")

root = workdir()
base = files.real_run(args.colltune, os.path.join(root, "template.jsonl"))
runs = files.made(os.path.join(root, "runs"), base,
                  [1.00, 1.01, 0.99, 1.60, 1.00, 1.02, 1.25, 1.26, 1.24, 1.25, 1.25, 1.70,
                   1.72, 1.71, 1.25, 1.24], env_from=6,
                  env={"OMPI_MCA_btl": "self,tcp"})
out = os.path.join(root, "out")
proc = subprocess.run([args.colltune, "history", runs, "--out", out], env=mpi_env(),
                      capture_output=True, text=True, timeout=120)
check(proc.returncode == 0, f"history: exit {proc.returncode}: {proc.stderr}")
page = os.path.join(out, "history.html")
common = [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
          "--user-data-dir=" + os.path.join(root, "profile"), "--enable-logging=stderr", "--v=0"]

dom = subprocess.run(common + ["--dump-dom", "file://" + page], capture_output=True, text=True,
                     timeout=120)
console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line or "Refused to" in line]
check(not console, f"console messages: {console}")

MEASURE = """<script>
const out = {width: document.documentElement.scrollWidth, viewport: window.innerWidth, charts: []};
for (const svg of document.querySelectorAll('svg.history')) {
  const f = svg.querySelector('rect').getBoundingClientRect();
  const straddle = [];  // tick labels that cross the plot frame's edge
  for (const t of svg.querySelectorAll('text.tick')) {
    const b = t.getBoundingClientRect();
    const inside = b.left > f.left + 1 && b.right < f.right - 1 && b.top > f.top + 1 &&
                   b.bottom < f.bottom - 1;
    const touches = b.left < f.right && b.right > f.left && b.top < f.bottom && b.bottom > f.top;
    if (touches && !inside) straddle.push(t.textContent);
  }
  const marks = [...svg.querySelectorAll('line.change-mark')].map(l =>
      [+l.getAttribute('data-run'), +l.getAttribute('x1')]);
  const labels = [...svg.querySelectorAll('text.mark-label')].map(t => {
    const b = t.getBoundingClientRect(), s = svg.getBoundingClientRect();
    return [t.textContent, b.left >= s.left - 0.5 && b.right <= s.right + 0.5 &&
            b.top >= s.top - 0.5 && b.bottom <= s.bottom + 0.5];
  });
  const points = {};
  for (const c of svg.querySelectorAll('circle.point')) {
    const run = +c.getAttribute('data-run');
    (points[run] = points[run] || []).push(+c.getAttribute('cx'));
  }
  const bands = [...svg.querySelectorAll('rect.spell-band')].map(r =>
      [+r.getAttribute('data-run'), +r.getAttribute('data-end-run'), +r.getAttribute('x'),
       +r.getAttribute('x') + +r.getAttribute('width')]);
  out.charts.push({lines: svg.querySelectorAll('polyline.series').length, marks, labels, points,
                   bands,
                   outliers: [...svg.querySelectorAll('circle.outlier')].map(
                       c => +c.getAttribute('data-run')),
                   ends: [...svg.querySelectorAll('text.end-label')].map(t => t.getBBox().y),
                   straddle});
}
document.body.insertAdjacentHTML('beforeend', '<pre id="measure">' + JSON.stringify(out) + '</pre>');
</script>"""
html = open(page).read()
measured = os.path.join(out, "measure.html")
with open(measured, "w") as f:
    f.write(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "",
                   html.replace("</body>", MEASURE + "</body>")))
dom = subprocess.run(common + ["--window-size=1400,2000", "--dump-dom", "file://" + measured],
                     capture_output=True, text=True, timeout=120)
found = re.findall(r'<pre id="measure">(\{.*?)</pre>', dom.stdout, re.S)
check(bool(found), "no measurement in the rendered page")
m = json.loads(html_lib.unescape(found[-1])) if found else {"charts": []}
check(len(m["charts"]) == 2, f"{len(m['charts'])} charts, expected 2 (in-place, out-of-place)")
for i, c in enumerate(m["charts"]):
    check(c["lines"] == 3, f"chart {i}: {c['lines']} lines, expected 3 (8, 64, 512 B)")
    check([run for run, _ in c["marks"]] == [6, 11], f"chart {i}: marks at runs {c['marks']}, "
          "expected the change at run index 6 and the spell at 11")

    def between(x, run):  # x lies between the points of run index `run - 1` and `run`
        before, after = c["points"].get(str(run - 1), []), c["points"].get(str(run), [])
        return before and after and all(b < x for b in before) and all(x < a for a in after)

    for run, x in c["marks"]:
        check(between(x, run), f"chart {i}: the mark at x {x} is not before run index {run}")
    check(len(c["labels"]) == 2 and "OMPI_MCA_btl" in c["labels"][0][0] and
          "spell" in c["labels"][1][0] and all(inside for _, inside in c["labels"]),
          f"chart {i}: mark labels {c['labels']} (the change's must name the knob, the spell's "
          "say so, both inside the chart)")
    check(len(c["bands"]) == 1 and c["bands"][0][:2] == [11, 14] and
          between(c["bands"][0][2], 11) and between(c["bands"][0][3], 14),
          f"chart {i}: spell bands {c['bands']}, expected one over run indices 11-13")
    check(c["outliers"] == [3, 3, 3],
          f"chart {i}: outliers ringed at runs {c['outliers']}, expected run 3 on each of 3 lines")
    check(not c["straddle"], f"chart {i}: tick labels across the plot frame: {c['straddle']}")
    ends = sorted(c["ends"])
    check(all(b - a >= 10 for a, b in zip(ends, ends[1:])),
          f"chart {i}: end labels on top of each other at y {ends}")
check(m.get("width", 1e9) <= m.get("viewport", 0),
      f"document {m.get('width')} px wide in a {m.get('viewport')} px window")
check("the run of 2026-11-07T02:00:00Z" in html and "env OMPI_MCA_btl (unset) -&gt; self,tcp" in html,
      "the page does not date the change or name the knob")
# The change's step is the made factors' geometric means, after (runs 7-11 and 15-16) over before
# (runs 1-6 without the outlier): the spell's runs and the outlier are not in it.
factors = [1.00, 1.01, 0.99, 1.60, 1.00, 1.02, 1.25, 1.26, 1.24, 1.25, 1.25, 1.70, 1.72, 1.71,
           1.25, 1.24]
geo = lambda xs: math.exp(statistics.fmean(math.log(x) for x in xs))  # noqa: E731
step = geo(factors[6:11] + factors[14:]) / geo(factors[:3] + factors[4:6])
check(re.search(rf"\b{round((step - 1) * 100)}% slower \[\d+, \d+\] from the run of "
                r"2026-11-07T02:00:00Z", html),
      f"the change is not {(step - 1) * 100:.1f}% slower from night 7 (spell runs in its step?)")
check("2026-11-04T02:00:00Z alone, an outlier" in html, "the outlier is not in the findings")
check("from the run of 2026-11-12T02:00:00Z, back at the earlier level from the run of "
      "2026-11-15T02:00:00Z: a spell, not a change" in html, "the spell is not in the findings")

shot = os.path.join(root, "history.png")
run = subprocess.run(common + ["--window-size=1400,1800", "--hide-scrollbars",
                               f"--screenshot={shot}", "file://" + page],
                     capture_output=True, text=True, timeout=120)
check(run.returncode == 0 and os.path.exists(shot), f"no screenshot: {run.stderr[-600:]}")
if os.path.exists(shot) and args.artifacts:
    os.makedirs(args.artifacts, exist_ok=True)
    shutil.copy(shot, os.path.join(args.artifacts, "history.png"))
if not os.environ.get("KEEP"):
    shutil.rmtree(root, ignore_errors=True)
finish(NAME)
