"""The HTML report in real headless Chromium, measured on the rendered page: it loads with no
console errors; every panel has both views (time log-log, busbw with the ceiling); 16
configurations are split into small multiples where no two lines look alike (colour, dash,
marker); at 1400 px the document is no wider than the window (tables wrap or scroll inside); no
tick label overlaps the plot frame; each line's end carries its legend number, right of the frame,
apart from the others. The measuring copy adds a script (the report itself has none and forbids them); the screenshot is
kept as an artefact. Skipped (77) where Chromium is not installed."""
import html as html_lib
import json
import os
import re
import shutil
import subprocess
import sys

import report_harness as h
from report_harness import check

args = h.parse_args()
browser = shutil.which("chromium") or shutil.which("chromium-browser")
if browser is None:
    print("html_chromium: skipped, no chromium on PATH (apt-get install chromium)")
    sys.exit(77)
root = h.fixtures()
common = [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
          "--user-data-dir=" + os.path.join(root, "profile"), "--enable-logging=stderr", "--v=0"]

# Reads layout from the rendered page into a <pre>, which --dump-dom then shows.
MEASURE = """<script>
const out = {width: document.documentElement.scrollWidth, viewport: window.innerWidth,
             charts: [], overlaps: []};
for (const svg of document.querySelectorAll('svg.chart')) {
  const looks = [...svg.querySelectorAll('polyline.series')].map(l =>
      [l.getAttribute('stroke'), l.getAttribute('stroke-dasharray') || '',
       (l.nextElementSibling && l.nextElementSibling.tagName === 'g' ?
        l.nextElementSibling.firstElementChild.tagName : '?')].join('|'));
  const frame = svg.querySelector('rect').getBBox();
  for (const t of svg.querySelectorAll('text')) {
    const b = t.getBBox();
    const inside = b.x > frame.x + 1 && b.x + b.width < frame.x + frame.width - 1 &&
                   b.y > frame.y + 1 && b.y + b.height < frame.y + frame.height - 1;
    const touches = b.x < frame.x + frame.width && b.x + b.width > frame.x &&
                    b.y < frame.y + frame.height && b.y + b.height > frame.y;
    if (touches && !inside) out.overlaps.push(t.textContent);  // straddles the frame
  }
  out.charts.push({id: svg.id, cls: svg.getAttribute('class'), looks,
                   title: svg.getAttribute('aria-label'),
                   labels: [...svg.querySelectorAll('polyline.series')].map(
                       l => l.getAttribute('data-label')),
                   ceiling: !!svg.querySelector('line.ceiling'),
                   ends: [...svg.querySelectorAll('text.end-label')].map(
                       t => [t.firstChild.nodeValue, t.getBBox().y, t.getBBox().x]),
                   intervals: svg.querySelectorAll('line.interval').length});
}
document.body.insertAdjacentHTML('beforeend',
    '<pre id="measure">' + JSON.stringify(out) + '</pre>');
</script>"""


def measure(store, width):
    code, _, err = h.colltune(args, "report", store, cwd=root)
    check(code == 0, f"report {store}: {err}")
    html = open(os.path.join(root, store, "report.html")).read()
    page = os.path.join(root, store, "measure.html")
    with open(page, "w") as f:
        f.write(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "",
                       html.replace("</body>", MEASURE + "</body>")))
    dom = subprocess.run(common + [f"--window-size={width},2000", "--dump-dom", "file://" + page],
                         capture_output=True, text=True, timeout=120)
    check(dom.returncode == 0, f"chromium --dump-dom exit {dom.returncode}: {dom.stderr[-800:]}")
    # The last match: the first is the script's own text.
    found = re.findall(r'<pre id="measure">(\{.*?)</pre>', dom.stdout, re.S)
    check(bool(found), f"{store}: no measurement in the rendered page")
    return json.loads(html_lib.unescape(found[-1])) if found else {}


# The report as shipped: no console errors (its CSP forbids scripts; none is needed).
code, _, err = h.colltune(args, "report", "base", cwd=root)
dom = subprocess.run(common + ["--dump-dom", "file://" + os.path.join(root, "base", "report.html")],
                     capture_output=True, text=True, timeout=120)
console = [l for l in dom.stderr.splitlines() if "CONSOLE" in l or "Refused to" in l]
check(not console, f"console messages: {console}")

base = measure("base", 1400)
classes = sorted(c["cls"] for c in base.get("charts", []))
check(classes == ["chart busbw"] * 2 + ["chart time"] * 2, f"base charts: {classes}")
check(all(c["ceiling"] for c in base.get("charts", []) if "busbw" in c["cls"]),
      "a busbw chart lacks the ceiling line")
check(all(c["intervals"] > 0 for c in base.get("charts", [])), "a chart draws no interval")
# allreduce: the baseline and algorithms 1, 2, 4; alltoall: the baseline and its algorithm 5.
lines = [len(c["looks"]) for c in base.get("charts", []) if "time" in c["cls"]]
check(lines == [4, 2], f"lines per time chart: {lines}, expected [4, 2]")

# 16 configurations: more than a chart shows readably (12), so small multiples split by the
# setting with the fewest values (3 segment sizes: 5 algorithms each, and the baseline in every
# part as the reference), each part with both views.
many = measure("many", 1400)
parts = [c for c in many.get("charts", []) if "allreduce" in c["title"] and "time" in c["cls"]]
check(len(parts) == 3 and all(len(c["looks"]) == 6 for c in parts),
      f"allreduce parts: {[(c['title'], len(c['looks'])) for c in parts]}")
# Between them the parts hold the 16 configurations: each part's title names its segment size
# (so its labels leave it out), each part holds the baseline and the 5 algorithms.
check(len({c["title"] for c in parts}) == 3 and
      all(sorted(c["labels"]) == ["(no knob set)"] + [f"allreduce_alg={a}" for a in range(1, 6)]
          for c in parts),
      f"the parts do not hold the 16 configurations: {[(c['title'], c['labels']) for c in parts]}")
for chart in many.get("charts", []):
    looks = chart["looks"]
    check(len(looks) <= 12, f"{chart['id']}: {len(looks)} lines in one chart")
    check(len(set(looks)) == len(looks), f"{chart['id']}: lines that look alike: {looks}")
check(not many.get("overlaps"), f"text over the plot frame: {many.get('overlaps')}")


def check_end_labels(store, charts):
    for chart in charts:
        ends = chart["ends"]
        numbers = sorted(int(n) for n, _, _ in ends)
        check(numbers == list(range(1, len(chart["looks"]) + 1)),
              f"{store} {chart['id']}: end labels {numbers} for {len(chart['looks'])} lines")
        tops = sorted(y for _, y, _ in ends)
        # 12 px text: digits stay apart when their boxes start 10 px or more apart.
        check(all(b - a >= 10 for a, b in zip(tops, tops[1:])),
              f"{store} {chart['id']}: end labels on top of each other at y {tops}")


check_end_labels("many", many.get("charts", []))
# Two configurations: one line each, numbered 1 and 2 at their ends in both views.
two = measure("two", 1400)
check([len(c["looks"]) for c in two.get("charts", [])] == [2, 2, 1, 1],
      f"two: lines per chart {[len(c['looks']) for c in two.get('charts', [])]}")
check_end_labels("two", two.get("charts", []))
check(not two.get("overlaps"), f"two: text over the plot frame: {two.get('overlaps')}")
check(many.get("width", 1e9) <= many.get("viewport", 0),
      f"document {many.get('width')} px wide in a {many.get('viewport')} px window")
print(f"many: {len(many.get('charts', []))} charts, document {many.get('width')} px in "
      f"{many.get('viewport')} px")

shot = os.path.join(root, "report.png")
run = subprocess.run(common + ["--window-size=1400,2600", "--hide-scrollbars",
                               f"--screenshot={shot}",
                               "file://" + os.path.join(root, "many", "report.html")],
                     capture_output=True, text=True, timeout=120)
check(run.returncode == 0 and os.path.exists(shot), f"no screenshot: {run.stderr[-1000:]}")
if os.path.exists(shot):
    check(os.path.getsize(shot) > 30_000, f"screenshot only {os.path.getsize(shot)} bytes")
    if args.artifacts:
        os.makedirs(args.artifacts, exist_ok=True)
        shutil.copy(shot, os.path.join(args.artifacts, "report.png"))
h.finish("html_chromium")
