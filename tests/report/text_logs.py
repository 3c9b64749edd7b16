#!/usr/bin/env python3
"""nccl-tests and OSU text logs read by report, compare and history: hand-written in nccl-tests' exact
layouts (2.19.6; 2.13-2.17 with NCCL's last-error line after the footer; 2.10's per-collective
table with an 'error' column and no root), with NCCL INFO/WARN lines inside the table, several
collectives in one log, -c 0's N/A and a #wrong count; OSU 7.x's osu_latency, osu_bw (7.2's
header order), osu_mbw_mr and a collective with -f and -c. Figures in results.csv are the logged ones
(the oracle is the log itself); a truncated, foreign or ambiguous log is exit 2 naming the line."""
import csv
import os
import subprocess
import tempfile

import report_harness as h
from report_harness import check

args = h.parse_args()
root = tempfile.mkdtemp(prefix="colltune-text-logs-")

HEAD_2196 = """# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809
# Collective test starting: {binary}
# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0
#
# Using devices
#  Rank  0 Group  0 Pid  12345 on     node01 device  0 [0000:18:00] NVIDIA H200
#  Rank  1 Group  0 Pid  12346 on     node01 device  1 [0000:2a:00] NVIDIA H200
#  Rank  2 Group  0 Pid  22345 on     node02 device  0 [0000:18:00] NVIDIA H200
#  Rank  3 Group  0 Pid  22346 on     node02 device  1 [0000:2a:00] NVIDIA H200
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong 
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         
"""
FOOT_2196 = """# Out of bounds values : 0 OK
# Avg bus bandwidth    : {avg} 
#
# Collective test concluded: {binary}
#

"""
# allreduce on 4 ranks: busbw = algbw * 1.5.
ALLREDUCE = """           8             2     float     sum      -1    23.45    0.00    0.00       0    22.90    0.00    0.00       0 
node01:12345:12399 [0] NCCL INFO Channel 00/02 : 0 1 2 3
     1048576        262144     float     sum      -1    45.10   23.25   34.88       0    44.00   23.83   35.75       3 
"""
ALLGATHER = """     1048576         65536     float    none      -1    40.00   26.21   19.66     N/A    39.00   26.89   20.16     N/A 
"""
log = os.path.join(root, "nightly.log")
with open(log, "w") as f:
    f.write("node01:12345:12345 [0] NCCL INFO Bootstrap : Using ib0:10.0.0.1<0>\n")
    f.write(HEAD_2196.format(binary="all_reduce_perf") + ALLREDUCE +
            FOOT_2196.format(avg="17.6575", binary="all_reduce_perf"))
    f.write("node01:12345:12345 [0] NCCL WARN some warning between the runs\n")
    f.write(HEAD_2196.format(binary="all_gather_perf_mpi") + ALLGATHER +
            FOOT_2196.format(avg="19.91", binary="all_gather_perf_mpi"))

out = os.path.join(root, "out")
code, stdout, err = h.colltune(args, "report", log, "--out", out)
check(code == 0, f"report of an nccl-tests log: exit {code}: {err}")
rows = list(csv.DictReader(open(os.path.join(out, "nightly.results.csv")))) if code == 0 else []
by = {(r["collective"], r["bytes"], r["in_place"]): r for r in rows}
check(len(rows) == 6, f"{len(rows)} records, expected 6 (2 allreduce sizes + 1 allgather, x2)")
ar = by.get(("allreduce", "1048576", "false"), {})
check(ar.get("median_us") == "45.1000" and ar.get("nranks") == "4" and ar.get("samples") == "1",
      f"allreduce 1 MiB out-of-place: {ar}")
check(abs(float(ar.get("busbw_gbps", 0)) - 34.88) < 0.05,
      f"allreduce busbw {ar.get('busbw_gbps')} is not the logged 34.88")
check(by.get(("allreduce", "1048576", "true"), {}).get("wrong") == "3",
      "the in-place #wrong 3 is not kept")
ag = by.get(("allgather", "1048576", "false"), {})
check(ag.get("wrong") == "" and ag.get("op") == "none" and ag.get("median_us") == "40.0000",
      f"allgather with -c 0 (N/A): {ag}")
md = open(os.path.join(out, "nightly.report.md")).read() if code == 0 else ""
check("node01" in md and "node02" in md, "the device lines' hosts are not in the report")

# 2.13-2.17: one space before #wrong, NCCL's last error text after the footer; no binary line,
# the collective told by the file name.
old = os.path.join(root, "reduce_scatter_perf.2023.log")
with open(old, "w") as f:
    f.write("""# nThread 1 nGpus 2 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid   4242 on     gpu-a1 device  0 [0x18] NVIDIA A100-SXM4-80GB
#  Rank  1 Group  0 Pid   4242 on     gpu-a1 device  1 [0x2a] NVIDIA A100-SXM4-80GB
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       
        1024           128     float     sum      -1    12.50    0.08    0.04      0    12.00    0.09    0.04      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 0.04 
#
NCCL error text that 2.13.4-2.17.2 print last, without a '#'
""")
code, stdout, err = h.colltune(args, "report", old, "--out", out)
check(code == 0, f"report of a 2.13-2.17 log: exit {code}: {err}")
rows = list(csv.DictReader(open(os.path.join(out, "reduce_scatter_perf.2023.results.csv")))) \
    if code == 0 else []
check([r["collective"] for r in rows] == ["reduce_scatter"] * 2 and rows[0]["count"] == "128",
      f"2.13-2.17 log: {[(r['collective'], r['count']) for r in rows]}")

# 2.10: the per-collective table (all_reduce: size count type redop, no root), 'error' column;
# told by its table alone (sum, 2(n-1)/n on 4 ranks = 1.5).
v210 = os.path.join(root, "old-run.log")
with open(v210, "w") as f:
    f.write("""# nThread 1 nGpus 4 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 validation: 1 
#
# Using devices
#   Rank  0 Pid  31337 on      dgx01 device  0 [0x07] Tesla V100-SXM2-32GB
#   Rank  1 Pid  31337 on      dgx01 device  1 [0x0a] Tesla V100-SXM2-32GB
#   Rank  2 Pid  31337 on      dgx01 device  2 [0x47] Tesla V100-SXM2-32GB
#   Rank  3 Pid  31337 on      dgx01 device  3 [0x4d] Tesla V100-SXM2-32GB
#
#                                                       out-of-place                       in-place          
#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error
#        (B)    (elements)                       (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       
     4194304       1048576     float     sum   100.00   41.94   62.91  0e+00    99.00   42.37   63.55  0e+00
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 63.23 
#
""")
code, stdout, err = h.colltune(args, "report", v210, "--out", out)
check(code == 0, f"report of a 2.10 log: exit {code}: {err}")
rows = list(csv.DictReader(open(os.path.join(out, "old-run.results.csv")))) if code == 0 else []
check([r["collective"] for r in rows] == ["allreduce"] * 2 and rows[0]["wrong"] == "",
      f"2.10 log: {[(r['collective'], r['wrong']) for r in rows]} (error is no count)")

# compare reads logs as launches: the same log against a slower copy of itself, with a floor.
slower = os.path.join(root, "slower.log")
with open(slower, "w") as f:
    f.write(open(log).read().replace("    45.10   23.25   34.88", "    90.20   11.63   17.44"))
code, stdout, err = h.colltune(args, "compare", log, slower, "--noise-floor", "4%")
check(code == 1 and "| slower |" in stdout, f"compare of logs: exit {code}\n{stdout}{err}")

# history orders logs by their files' modification times: 3 nights, then 3 nights 50% slower
# with a newer NCCL named in the version line.
nights = os.path.join(root, "nights")
os.makedirs(nights)
for night in range(6):
    factor, library = (1.0, "22809") if night < 3 else (1.5, "22903")
    rows = "".join(
        f"{size:>12}  {size // 4:>12}     float     sum      -1  {t * factor:7.2f}  "
        f"{size / (t * factor) / 1e3:6.2f}  {1.5 * size / (t * factor) / 1e3:6.2f}       0  "
        f"{t * factor:7.2f}  {size / (t * factor) / 1e3:6.2f}  "
        f"{1.5 * size / (t * factor) / 1e3:6.2f}       0 \n"
        for size, t in ((8, 23.45 + night * 0.1), (1048576, 45.10 - night * 0.1)))
    path = os.path.join(nights, f"night{night + 1}.log")
    with open(path, "w") as f:
        f.write(HEAD_2196.format(binary="all_reduce_perf").replace("22809", library) + rows +
                FOOT_2196.format(avg="17.0", binary="all_reduce_perf"))
    stamp = 1_790_000_000 + night * 86400
    os.utime(path, (stamp, stamp))
code, stdout, err = h.colltune(args, "history", nights, "--gate")
check(code == 1 and "nccl 2.28.9 -> 2.29.3" in stdout and "50% slower" in stdout,
      f"history over logs: exit {code}\n{stdout}{err}")

# OSU 7.x: each layout's quirks; the figures are the logged ones.
def osu(name, body):
    path = os.path.join(root, name)
    with open(path, "w") as f:
        f.write(body)
    return path


def report_rows(path):
    code, _, err = h.colltune(args, "report", path, "--out", out)
    check(code == 0, f"report {os.path.basename(path)}: exit {code}: {err}")
    stem = os.path.splitext(os.path.basename(path))[0]
    return list(csv.DictReader(open(os.path.join(out, stem + ".results.csv")))) if code == 0 else []


latency = report_rows(osu("osu_latency.log", """
# OSU MPI Latency Test v7.4
# Datatype: MPI_CHAR.
# Size       Avg Latency(us)
1                       1.67
4194304               412.77
"""))
check([(r["collective"], r["nranks"], r["bytes"], r["median_us"]) for r in latency] ==
      [("pingpong", "2", "1", "1.6700"), ("pingpong", "2", "4194304", "412.7700")],
      f"osu_latency 7.4: {[(r['collective'], r['nranks'], r['median_us']) for r in latency]}")
bw = report_rows(osu("osu_bw.log", """# OSU MPI Bandwidth Test v7.2
# Size      Bandwidth (MB/s)
# Datatype: MPI_CHAR.
4194304             23012.88
"""))
check(len(bw) == 1 and bw[0]["collective"] == "bw" and
      abs(float(bw[0]["algbw_gbps"]) - 23.01288) < 1e-3,
      f"osu_bw 7.2: algbw {bw[0]['algbw_gbps'] if bw else None}, expected 23.013 GB/s")
mbw = report_rows(osu("osu_mbw_mr.log", """# OSU MPI Multiple Bandwidth / Message Rate Test v7.4
# [ pairs: 2 ] [ window size: 32 ]
# Datatype: MPI_CHAR.
# Size                  MB/s        Messages/s
1                       2.36        2356892.44
4194304             26903.29           6414.24
"""))
check([r["nranks"] for r in mbw] == ["4", "4"], f"osu_mbw_mr on 2 pairs: {mbw}")
coll = report_rows(osu("osu_allreduce.np4.log", """
# OSU MPI Allreduce Latency Test v7.4
# Datatype: MPI_CHAR.
# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations        Validation
1                       2.81              2.51              3.10        1000              Pass
1048576              1234.56           1200.00           1300.25         100              Fail
"""))
check([(r["collective"], r["nranks"], r["median_us"], r["wrong"]) for r in coll] ==
      [("allreduce", "4", "2.8100", "0"), ("allreduce", "4", "1234.5600", "1")],
      f"osu_allreduce -f -c: {[(r['collective'], r['nranks'], r['median_us'], r['wrong']) for r in coll]}")
code, _, err = h.colltune(args, "report", osu("alltoall-run.log", """
# OSU MPI All-to-All Personalized Exchange Latency Test v7.4
# Datatype: MPI_CHAR.
# Size       Avg Latency(us)
1                       3.20
"""), "--out", out)
check(code == 2 and "np<N>" in err, f"an OSU collective without its rank count: exit {code}: {err}")
code, _, err = h.colltune(args, "report", osu("osu_allgather.np2.log", """
# OSU MPI Allgather Latency Test v7.4
# Datatype: MPI_CHAR.
# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations
1                       2.81              2.51              3.10        1000
2                       2.85
"""), "--out", out)
check(code == 2 and "osu_allgather.np2.log:6" in err, f"a short OSU row: exit {code}: {err}")

# import: the logs as one store, each a launch; the store reads back with the logged figures.
store = os.path.join(root, "imported")
code, stdout, err = h.colltune(args, "import", log, slower, os.path.join(root, "osu_latency.log"),
                               "--out", store)
check(code == 0 and "3 logs" in stdout, f"import: exit {code}: {stdout}{err}")
code, _, err = h.colltune(args, "report", store, "--out", os.path.join(root, "imported-report"))
check(code == 0, f"report of the imported store: exit {code}: {err}")
rows = list(csv.DictReader(open(os.path.join(root, "imported-report", "results.csv")))) \
    if code == 0 else []
times = sorted((r["round"], r["median_us"]) for r in rows
               if r["collective"] == "allreduce" and r["bytes"] == "1048576" and
               r["in_place"] == "false")
check(times == [("1", "45.1000"), ("2", "90.2000")],
      f"imported allreduce 1 MiB launches {times}, expected the logged 45.10 and 90.20 us")
check(any(r["collective"] == "pingpong" and r["median_us"] == "1.6700" for r in rows),
      "the OSU log is not in the imported store")
code, _, err = h.colltune(args, "import", log, "--out", store)
check(code == 2 and "exists" in err, f"import into an existing path: exit {code}: {err}")
half = os.path.join(root, "half-store")
code, _, err = h.colltune(args, "import", log, log + ".missing",
                          "--out", half)
check(code == 2 and not os.path.exists(half), f"import of a missing log: exit {code}, "
      f"store {'made' if os.path.exists(half) else 'not made'}: {err}")

# Bad input: exit 2, one line naming the line.
truncated = os.path.join(root, "truncated.log")
with open(truncated, "w") as f:
    f.write(HEAD_2196.format(binary="all_reduce_perf") + ALLREDUCE.splitlines()[0] + "\n" +
            "     1048576        262144     float     sum      -1    45.10   23.25\n")
code, _, err = h.colltune(args, "report", truncated, "--out", out)
check(code == 2 and "truncated.log:15" in err and "not an nccl-tests table row" in err,
      f"truncated row: exit {code}: {err}")
cut = os.path.join(root, "cut.log")
with open(cut, "w") as f:
    f.write(HEAD_2196.format(binary="all_reduce_perf") + ALLREDUCE)
code, _, err = h.colltune(args, "report", cut, "--out", out)
check(code == 2 and "ends before nccl-tests' footer" in err, f"no footer: exit {code}: {err}")
ambiguous = os.path.join(root, "run7.log")
with open(ambiguous, "w") as f:
    f.write(HEAD_2196.format(binary="x").replace("# Collective test starting: x\n", "") +
            ALLGATHER + FOOT_2196.format(avg="19.91", binary="x").replace(
                "# Collective test concluded: x\n", ""))
code, _, err = h.colltune(args, "report", ambiguous, "--out", out)
check(code == 2 and "allgather and alltoall" in err and "file name" in err,
      f"allgather or alltoall: exit {code}: {err}")
foreign = os.path.join(root, "foreign.log")
with open(foreign, "w") as f:
    f.write(HEAD_2196.format(binary="all_reduce_perf") + "this is not a row of any table\n")
code, _, err = h.colltune(args, "report", foreign, "--out", out)
check(code == 2 and "foreign.log:14" in err, f"foreign line: exit {code}: {err}")

# The collective comes from what the log shows. An allreduce table named by a file that holds
# "allreduce" (no '# Collective test starting:', as in the old layout) is allreduce, never
# "reduce": busbw/algbw 1.5 on 4 ranks is allreduce's 2(n-1)/n; reduce's would be 1.
unnamed = HEAD_2196.format(binary="x").replace("# Collective test starting: x\n", "")
unfooted = FOOT_2196.format(avg="17.66", binary="x").replace("# Collective test concluded: x\n", "")
named = os.path.join(root, "allreduce-8xA100.log")
with open(named, "w") as f:
    f.write(unnamed + ALLREDUCE + unfooted)
rows = report_rows(named) if "report_rows" in globals() else []
check([r["collective"] for r in rows] == ["allreduce"] * 4,
      f"allreduce-8xA100.log read as {[r['collective'] for r in rows]}")
# A name the table disagrees with: the log's rows say allreduce (1.5 on 4 ranks), the file says
# reduce. Exit 2 naming the file, both pieces of evidence and how to name it.
liar = os.path.join(root, "reduce_perf.log")
with open(liar, "w") as f:
    f.write(unnamed + ALLREDUCE + unfooted)
code, _, err = h.colltune(args, "report", liar, "--out", out)
check(code == 2 and "reduce_perf.log" in err and "its file name names reduce" in err
      and "busbw/algbw 1.500 on 4 ranks is allreduce's factor" in err,
      f"a file name the table disagrees with: exit {code}: {err}")
# Two tables of different rank counts: two sets (4 and 2 ranks), never one merged 4-rank record.
two_ranks = HEAD_2196.format(binary="all_reduce_perf").replace(
    "#  Rank  2 Group  0 Pid  22345 on     node02 device  0 [0000:18:00] NVIDIA H200\n"
    "#  Rank  3 Group  0 Pid  22346 on     node02 device  1 [0000:2a:00] NVIDIA H200\n", "")
mixed = os.path.join(root, "mixed.log")
with open(mixed, "w") as f:
    f.write(HEAD_2196.format(binary="all_reduce_perf") + ALLREDUCE +
            FOOT_2196.format(avg="17.6575", binary="all_reduce_perf"))
    f.write(two_ranks + ALLREDUCE.replace("23.25   34.88", "23.25   23.25").replace(
        "23.83   35.75", "23.83   23.83") + FOOT_2196.format(avg="11", binary="all_reduce_perf"))
rows = report_rows(mixed)
check(sorted((r["nranks"], r["bytes"]) for r in rows if r["in_place"] == "false") ==
      [("2", "1048576"), ("2", "8"), ("4", "1048576"), ("4", "8")],
      f"two rank counts in one log: {[(r['nranks'], r['bytes'], r['samples']) for r in rows]}")
# Rows after a footer are said, not read silently.
after = os.path.join(root, "after.log")
with open(after, "w") as f:
    f.write(HEAD_2196.format(binary="all_reduce_perf") + ALLREDUCE +
            FOOT_2196.format(avg="17.6575", binary="all_reduce_perf") + ALLREDUCE)
code, _, err = h.colltune(args, "report", after, "--out", out)
check(code == 0 and "2 row-like line(s) after the table's footer" in err,
      f"rows after the footer: exit {code}: {err}")
# nccl-tests' own FAILED verdict is a failure in compare, whatever the times.
failed = os.path.join(root, "failed.log")
with open(failed, "w") as f:
    f.write(open(log).read().replace("# Out of bounds values : 0 OK",
                                     "# Out of bounds values : 7 FAILED", 1))
code, stdout, err = h.colltune(args, "compare", log, failed, "--noise-floor", "1%",
                               "--allow-incomplete")
check(code == 1 and "| wrong results |" in stdout and "0 wrong elements in the baseline, 7 in the candidate" in stdout,
      f"a log whose check FAILED: exit {code}: {stdout[-800:]} {err}")

# Two imports racing for one --out: one store, the other refused (never two writers in it).
# The log takes both a while to read, so both pass any check made before reading.
big = os.path.join(root, "big_all_reduce.log")
with open(big, "w") as f:
    f.write(HEAD_2196.format(binary="all_reduce_perf") + ALLREDUCE * 40000 +
            FOOT_2196.format(avg="17.6575", binary="all_reduce_perf"))
raced = os.path.join(root, "raced-store")
racers = [subprocess.Popen([args.colltune, "import", big, "--out", raced], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True) for _ in range(2)]
results = [(p.wait(timeout=300), p.stderr.read()) for p in racers]
check(sorted(code for code, _ in results) == [0, 2]
      and any("exists" in err for code, err in results if code == 2),
      f"two imports into one store: {results}")

if not os.environ.get("KEEP"):
    import shutil
    shutil.rmtree(root, ignore_errors=True)
h.finish("text_logs")
