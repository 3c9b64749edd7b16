"""The HTML report in real headless Chromium: it loads with no console errors and the charts
render. The screenshot is kept as an artefact. Skipped (77) where Chromium is not installed."""
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
code, _, err = h.colltune(args, "report", "base", cwd=root)
check(code == 0, f"report: {err}")
page = "file://" + os.path.join(root, "base", "report.html")
common = [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
          "--user-data-dir=" + os.path.join(root, "profile"), "--enable-logging=stderr", "--v=0"]

dom = subprocess.run(common + ["--dump-dom", page], capture_output=True, text=True, timeout=120)
check(dom.returncode == 0, f"chromium --dump-dom exit {dom.returncode}: {dom.stderr[-1000:]}")
console = [l for l in dom.stderr.splitlines() if "CONSOLE" in l or "Refused to" in l]
check(not console, f"console messages: {console}")
charts = dom.stdout.count('<svg class="chart"')
lines = len(re.findall(r'<polyline class="series"[^>]* points="[0-9]', dom.stdout))
check(charts == 2, f"{charts} charts in the rendered DOM, expected 2 (allreduce, alltoall)")
# allreduce: the baseline and algorithms 1, 2, 4; alltoall: the baseline and its algorithm 5.
# Each collective's chart leaves out the other's knob (a replicate of the baseline there).
check(lines == 4 + 2, f"{lines} drawn series, expected 4 + 2")

shot = os.path.join(root, "report.png")
run = subprocess.run(common + ["--window-size=1280,2200", "--hide-scrollbars",
                               f"--screenshot={shot}", page], capture_output=True, text=True,
                     timeout=120)
check(run.returncode == 0 and os.path.exists(shot), f"no screenshot: {run.stderr[-1000:]}")
if os.path.exists(shot):
    check(os.path.getsize(shot) > 30_000, f"screenshot only {os.path.getsize(shot)} bytes")
    if args.artifacts:
        os.makedirs(args.artifacts, exist_ok=True)
        shutil.copy(shot, os.path.join(args.artifacts, "report.png"))
h.finish("html_chromium")
