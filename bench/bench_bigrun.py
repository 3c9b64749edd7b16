#!/usr/bin/env python3
"""How much memory and time report, compare and history take on one run file of N records
(default 10^6: allreduce float sum at N sizes, 4 B apart, out-of-place, 10 samples each, with a
full context), and how large report's HTML is. Peak RSS from the kernel (wait4's ru_maxrss);
targets from issue 48: report under 1 GB with HTML under 50 MB, history under 2 GB, compare
under 1 GB. Usage: bench_bigrun.py --colltune PATH [--records N] [--keep DIR]"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# A real record (the fuzz seed, from the report fixtures): its context and fields, sizes varied.
TEMPLATE = os.path.join(HERE, "..", "tests", "fuzz", "seeds", "run.jsonl")


def write_run(path, records, stamp, factor):
    template = json.loads(open(TEMPLATE).readline())
    template["context"]["start_time_utc"] = stamp
    template["rank_samples_seconds"] = None
    with open(path, "w") as f:
        for i in range(records):
            count = i + 1
            rec = dict(template, count=count, bytes=4 * count,
                       samples_seconds=[(1e-5 + count * 1e-10) * factor * (1 + 0.001 * k)
                                        for k in range(10)])
            f.write(json.dumps(rec) + "\n")


def measure(argv):
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read()
    return (os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024, time.monotonic() - start,
            err.strip().splitlines()[-1:] if err.strip() else [])


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--colltune", required=True)
    p.add_argument("--records", type=int, default=1_000_000)
    p.add_argument("--keep", help="write the inputs and outputs here and keep them; inputs "
                   "already there (from an earlier --keep of as many records) are used again")
    p.add_argument("--only", action="append", choices=["report", "compare", "history"],
                   help="measure only this command (repeat for several; default all three)")
    a = p.parse_args()
    root = a.keep or tempfile.mkdtemp(prefix="colltune-bigrun-")
    os.makedirs(root, exist_ok=True)
    try:
        runs = []
        t = time.monotonic()
        for night, factor in ((1, 1.0), (2, 1.01)):
            path = os.path.join(root, f"night{night}.jsonl")
            if not (a.keep and os.path.exists(path)):
                write_run(path, a.records, f"2026-12-0{night}T02:00:00Z", factor)
            runs.append(path)
        print(f"bigrun: {a.records} records a run, {os.path.getsize(runs[0]) / 1e6:.0f} MB a file "
              f"(written in {time.monotonic() - t:.0f} s)")
        out = os.path.join(root, "report")
        rows = []
        for name, argv in (("report", [a.colltune, "report", runs[0], "--out", out]),
                           ("compare", [a.colltune, "compare", runs[0], runs[1], "--noise-floor", "1%"]),
                           ("history", [a.colltune, "history", runs[0], runs[1]])):
            if a.only and name not in a.only:
                continue
            code, rss_mb, seconds, tail = measure(argv)
            rows.append((name, code, rss_mb, seconds, tail))
            print(f"bigrun: {name}: exit {code}, peak RSS {rss_mb:.0f} MB, {seconds:.1f} s"
                  + (f" ({tail[0][:120]})" if tail else ""), flush=True)
        html = os.path.join(out, "night1.report.html")
        if os.path.exists(html):
            print(f"bigrun: report.html {os.path.getsize(html) / 1e6:.1f} MB, report.md "
                  f"{os.path.getsize(os.path.join(out, 'night1.report.md')) / 1e6:.1f} MB")
    finally:
        if not a.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
