"""compare's verdicts and exit codes, bad and truncated inputs, and escaping of hostile strings."""
import csv
import json
import os
import re
import statistics

import report_harness as h
from report_harness import check

args = h.parse_args()
root = h.fixtures()

# A store against itself: three launches a side leave some 95% intervals past 5% (the fixtures'
# launch noise is up to 4%), so "same" is not shown there: inconclusive, exit 3, never a pass.
code, out, _ = h.colltune(args, "compare", "base", "base", cwd=root)
check(code == 3 and "**0 slower**" in out and "a slowdown beyond 5% is not ruled out" in out,
      f"a store against itself at 5%: exit {code}")
# At a tolerance its intervals stay within, every row is "same" and the gate passes.
code, out, _ = h.colltune(args, "compare", "base", "base", "--max-slowdown", "15%", cwd=root)
check(code == 0 and "**0 not compared**" in out, f"a store against itself at 15%: exit {code}")
# Every row is printed with its ratio and interval, "same" ones too.
check(out.count("| same |") == 40 and "| 1.000 | 0.9" in out, f"same rows not printed: {out[:900]}")
check("The MPI differs" not in out, "one MPI on both sides is no difference")
# Another MPI on the candidate side is said in the gate's summary, each side parsed from its text.
code, out, _ = h.colltune(args, "compare", "base", "mpich", "--allow-incomplete", cwd=root)
check("**The MPI differs**: baseline Open MPI 4.1.4, candidate MPICH 4.0.2." in out,
      f"the MPIs of the two sides: exit {code}: {out[:700]}")
code, out, _ = h.colltune(args, "compare", "base", "slower", "--junit", "j.xml", cwd=root)
check(code == 1, f"against the slower store: exit {code}")
check("| slower |" in out and "allreduce\\_algorithm=4" in out and "| 1M |" in out,
      f"the regression is not named: {out}")
junit = open(os.path.join(root, "j.xml")).read()
check('failures="1"' in junit and "<failure message=\"30.0% slower" in junit, "JUnit lacks the failure")
# A slowdown below the threshold is not a regression.
code, _, _ = h.colltune(args, "compare", "base", "slower", "--max-slowdown", "40%", cwd=root)
check(code == 0, f"--max-slowdown 40%: exit {code}")
# One launch a side cannot show launch-to-launch noise: inconclusive, its own exit code (3),
# unless relaxed or given a noise floor.
code, out, _ = h.colltune(args, "compare", "nccl-tests.json", "nccl-tests.json", cwd=root)
check(code == 3 and "| inconclusive |" in out and "one launch on a side" in out,
      f"nccl-tests self-compare: {code} {out[-500:]}")
# --allow-incomplete forgives some gaps, never a gate where every comparison is one.
code, out, _ = h.colltune(args, "compare", "nccl-tests.json", "nccl-tests.json",
                          "--allow-incomplete", cwd=root)
check(code == 3 and "nothing was compared" in out, f"--allow-incomplete, all gaps: {code}")
# A noise floor of 5% on one launch a side spans +/-13.5% (1.96 x 5% x sqrt 2): it cannot see
# a 5% slowdown, and says so; it can see 20%.
code, out, _ = h.colltune(args, "compare", "nccl-tests.json", "nccl-tests.json",
                          "--noise-floor", "5%", cwd=root)
check(code == 3 and "is too wide to see a 5% slowdown" in out and "+/-14%" in out,
      f"--noise-floor 5% at 5%: {code} {out[-900:]}")
code, out, _ = h.colltune(args, "compare", "nccl-tests.json", "nccl-tests.json",
                          "--noise-floor", "5%", "--max-slowdown", "20%", cwd=root)
check(code == 0 and "**0 not compared**" in out, f"--noise-floor 5% at 20%: {code} {out[:600]}")
# A candidate with nothing in common with the baseline fails closed.
code, out, _ = h.colltune(args, "compare", "base", "nccl", "--junit", "missing.xml", cwd=root)
check(code == 3 and "**0 slower**" in out and "missing" in out, f"disjoint stores: exit {code}")
junit = open(os.path.join(root, "missing.xml")).read()
# Nothing compared: one failing case says so (a CI reading tests=0 as green would pass it).
check('failures="1"' in junit and 'errors="0"' not in junit and "<error message=\"missing" in junit
      and 'name="anything compared"' in junit and "nothing was compared" in junit,
      "JUnit does not mark the missing comparisons as errors and the empty gate as a failure")

bad = [
    (["report", "torn"], "round-2.jsonl:8: not JSON (a torn or truncated record?)"),
    (["report", "no-such-dir"], "no-such-dir: no such file or directory"),
    (["report", "."], ".: no manifest.json"),
    (["compare", "base", "torn"], "not JSON"),
    (["compare", "base", "slower", "--max-slowdown", "lots"], "--max-slowdown: 'lots' is not allowed"),
    (["compare", "base", "slower", "--max-slowdown", "5"], "--max-slowdown: '5' is not allowed"),
    (["compare", "base"], "a baseline and a candidate are needed"),
    (["tune", "base", "--emit", "slurm"], "--emit: 'slurm' is not allowed"),
    (["tune", "nccl-tests.json", "--emit", "ompi-rules"], "no point sets OMPI_MCA_coll_tuned_"),
]
open(os.path.join(root, "empty.jsonl"), "w").close()
bad.append((["report", "empty.jsonl"], "empty.jsonl: empty"))
with open(os.path.join(root, "garbage.jsonl"), "w") as f:
    f.write('{"schema_version": 99}\n')
bad.append((["report", "garbage.jsonl"], "schema_version: 99 is not readable"))
for argv, expected in bad:
    code, out, err = h.colltune(args, *argv, cwd=root)
    lines = err.strip().splitlines()
    check(code == 2, f"{argv}: exit {code}, expected 2")
    check(len(lines) == 1 and expected in lines[0], f"{argv}: stderr {lines}")

# Hostile strings from the store (a knob value, a log line) are escaped everywhere.
code, _, err = h.colltune(args, "report", "base", cwd=root)
check(code == 0, f"report: {err}")
html = open(os.path.join(root, "base", "report.html")).read()
md = open(os.path.join(root, "base", "report.md")).read()
# The fixture's allreduce panel: algorithm 2 is 0.7x at 1K, 4 is 0.6x from 64K on, and at 16M
# every algorithm equals the baseline; the alltoall knob cannot change allreduce at all.
allreduce = md.split("## allreduce float sum")[1].split("## alltoall")[0]
rows = {line.split(" | ")[0][2:]: line.split(" | ")[1] for line in allreduce.splitlines()
        if line.startswith("| ") and line[2:3].isdigit()}
# Labels in a panel say only what differs, with Open MPI's names shortened (the key says so).
check(rows.get("1K", "") == "allreduce\\_alg=2" and rows.get("64K", "") == "allreduce\\_alg=4"
      and rows.get("16M") == "no significant difference", f"allreduce winners: {rows}")
# The answer first, from the same model: algorithm 2 at 1K, 4 at 64K and 1M (merged into one
# range), nothing to change at 16M where all four are alike; before the context and the details.
answer = md.split("## What to set")[1].split("## Context")[0] if "## What to set" in md else ""
check(md.find("## What to set") < md.find("## Context") and
      "- 1K: allreduce\\_alg=2, +" in answer and "- 64K-1M: allreduce\\_alg=4, +" in answer and
      "- 16M: keep the baseline, tied with 3 others (no significant difference)" in answer, f"answer: {answer}")
# Two configurations: algorithm 3 is 0.75x the time from 64K up (a third faster), alike at 1K.
# The answer's range is the least and greatest of the table's gains over those sizes, whatever
# order the sizes put them in.
code, _, err = h.colltune(args, "report", "two", cwd=root)
check(code == 0, f"report two: {err}")
two = open(os.path.join(root, "two", "report.md")).read()
table = two.split("## allreduce float sum")[1].split("## alltoall")[0]
gains = {line.split(" | ")[0][2:]: float(line.split(" | ")[5].rstrip("%"))
         for line in table.splitlines() if line.startswith("| ") and line[2:3].isdigit()}
ranged = re.search(r"- 64K-16M: allreduce\\_alg=3, \+([\d.]+)% to \+([\d.]+)% over the baseline "
                   r"\(significant\)", two)
check(ranged is not None and "- 1K: keep the baseline, tied with 1 other (no significant difference)" in two,
      f"two: answer {two.split('## Context')[0]}")
if ranged:
    big = [gains[s] for s in ("64K", "1M", "16M") if s in gains]
    check(len(big) == 3 and (float(ranged[1]), float(ranged[2])) == (min(big), max(big)),
          f"two: answer range {ranged.groups()}, table gains {big}")
    check(all(25 < g < 42 for g in big), f"two: gains {big}, expected about +33.3% (1/0.75)")
check("- 1K-16M: only (no knob set) measured, nothing to choose" in two,
      "two: the alltoall panel (one configuration) must say there is nothing to choose")
# Every CSV row's busbw from the fixture's raw samples, by nccl-tests' formulas (bytes / median,
# GB = 1e9, times 2(n-1)/n for allreduce and (n-1)/n for alltoall), computed here.
rows_checked = 0
for row in csv.DictReader(open(os.path.join(root, "base", "results.csv"))):
    if row["skipped"]:
        continue
    path = os.path.join(root, "base", "points", row["point_id"], f"round-{row['round']}.jsonl")
    record = next(r for r in map(json.loads, open(path))
                  if r["collective"] == row["collective"] and r["bytes"] == int(row["bytes"]))
    n = int(row["nranks"])
    factor = 2 * (n - 1) / n if row["collective"] == "allreduce" else (n - 1) / n
    busbw = int(row["bytes"]) / statistics.median(record["samples_seconds"]) / 1e9 * factor
    check(abs(float(row["busbw_gbps"]) - busbw) <= 1e-4 * busbw,
          f"results.csv {row['label']} {row['collective']} {row['bytes']}: busbw "
          f"{row['busbw_gbps']}, expected {busbw:.6g}")
    rows_checked += 1
check(rows_checked == 5 * 3 * 2 * 4, f"{rows_checked} CSV rows checked")
check("Names: allreduce\\_alg = OMPI\\_MCA\\_coll\\_tuned\\_allreduce\\_algorithm" in allreduce,
      "the allreduce panel does not say what allreduce_alg stands for")
check("alltoall\\_alg=5: left out: its knobs cannot change allreduce" in allreduce
      and not any("alltoall" in w for w in rows.values()), "a foreign knob in the allreduce panel")
check("<script" not in html.lower(), "a <script> tag reached the HTML")
check("<img" not in html.lower(), "an <img> tag reached the HTML")
# The .md escapes for Markdown (CommonMark backslashes), not with HTML entities: no tag can open
# where every < is escaped, and no entity appears.
check(re.search(r"(?<!\\)<", md) is None, "an unescaped < reached the Markdown")
check("&lt;" not in md and "&quot;" not in md and "&gt;" not in md, "HTML entities in the Markdown")
check("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html, "the hostile label is not shown escaped")
check("onerror" not in re.sub(r"&lt;img src=x onerror=alert\(1\)&gt;", "", html), "unescaped onerror")
check("MPI_Allreduce failed" in html, "the failed launch's reason is missing")
# --out makes a missing directory (after the input has been read), and refuses a file.
made = os.path.join(root, "new", "deeper")
code, _, err = h.colltune(args, "report", "base", "--out", made, cwd=root)
check(code == 0 and any(f.endswith(".md") for f in os.listdir(made)),
      f"report --out a missing directory: exit {code}: {err[-300:]}")
code, _, err = h.colltune(args, "report", "base", "--out", os.path.join(root, "j.xml"), cwd=root)
check(code == 2 and "is not a directory and cannot be one" in err, f"--out a file: {code} {err}")

# Every subcommand's help in one style: what it does, a usage line, every positional and option
# described (defaults named where there are any), and the exit codes.
for command in ("run", "sweep", "report", "compare", "noise", "tune", "topo"):
    code, out, err = h.colltune(args, command, "--help", cwd=root)
    lines = out.splitlines()
    check(code == 0 and lines and lines[0].startswith(f"colltune {command}: "),
          f"{command} --help: exit {code}, first line {lines[:1]}")
    check(any(l.startswith(f"usage: ") and f"colltune {command}" in l for l in lines),
          f"{command} --help has no usage line")
    check("Exit codes:" in out, f"{command} --help does not give the exit codes")
    check("Positionals:" not in out and "Options:" not in out,
          f"{command} --help is in CLI11's own style")
    # An entry without a description: a flag or positional name alone on its line.
    bare = [l for l in lines
            if re.fullmatch(r"  (-{1,2}[\w-]+(, -{1,2}[\w-]+)*( [A-Z][A-Z|.]*)?|[A-Z][A-Z_.]*)\s*", l)]
    check(not bare, f"{command} --help: entries without a description: {bare}")
code, out, _ = h.colltune(args, "compare", "--help", cwd=root)
check("--alpha P" in out and "(default 0.05)" in out and "BASE" in out,
      f"compare --help lacks value names or defaults: {out[:600]}")
h.finish("report_cli")
