"""colltune run --interleave: every Open MPI allreduce algorithm measured in one launch, each on
its own communicator, validated and recorded with its setting; bad settings are one line, exit 2
and no file. tests/mpi/mpi_t_premise.cpp checks that the switch reaches the algorithm."""
import json
import os
import subprocess

import harness
from harness import check

args = harness.parse_args()
harness.open_mpi_only("interleave", "its subject is Open MPI's coll/tuned switched through MPI_T and its rules file; MPICH's race in one launch is mpich.smoke's and mpich.premise.np4's")
algorithms = ["1", "2", "3", "4", "5", "6", "default"]  # sorted; default: the launch value
KNOB = "OMPI_MCA_coll_tuned_allreduce_algorithm"


def run(run_args, dynamic_rules="1"):
    env = harness.mpi_env()
    env["OMPI_MCA_coll_tuned_use_dynamic_rules"] = dynamic_rules
    proc = subprocess.run(harness.mpirun_argv(args, run_args), env=env, capture_output=True,
                          text=True, timeout=240)
    return proc.returncode, proc.stdout, proc.stderr


out = os.path.join(harness.workdir(), "interleave.jsonl")
code, stdout, stderr = run(["--coll", "allreduce,alltoall", "-b", "8", "-e", "64K", "-f", "64",
                            "-n", "3", "--repetitions", "4", "--json", out, "--interleave",
                            "coll_tuned_allreduce_algorithm=" + ",".join(algorithms)])
check(code == 0, f"exit {code}: {stderr[-1500:]}")
records = harness.read_jsonl(out) if os.path.exists(out) else []
for r in records:
    knobs = r["in_process_knobs"]
    check(list(knobs) == [KNOB], f"knobs {knobs}")
    check(r["wrong"] == 0 and len(r["samples_seconds"]) == 4,
          f"{r['collective']} {r['bytes']} {knobs}: #wrong {r['wrong']}")
# Each measured (collective, size, in-place) has one record per setting; alltoall leaves out
# 8 B at 4 ranks (under one element per peer).
groups = {}
for r in records:
    groups.setdefault((r["collective"], r["bytes"], r["in_place"]), []).append(
        r["in_process_knobs"].get(KNOB))
check(len([g for g in groups if g[0] == "allreduce"]) == 6, f"allreduce groups {sorted(groups)}")
check(len([g for g in groups if g[0] == "alltoall"]) >= 4, f"alltoall groups {sorted(groups)}")
for group, seen in groups.items():
    check(sorted(seen) == algorithms, f"{group}: measured settings {seen}")
# The console pairs each setting's out-of-place and in-place halves on one labelled row.
rows = [line for line in stdout.splitlines() if "[coll_tuned_allreduce_algorithm=" in line]
check(len(rows) == len(records) // 2, f"{len(rows)} labelled console rows, {len(records)} records")
check(all(len(row.replace(" ~", "").split()) == 14 for row in rows),
      f"a console row is not one size with both halves: {rows[:2]}")

# colltune report on the run's JSONL: one configuration per setting, as a sweep's points.
if os.path.exists(out):
    proc = subprocess.run([args.colltune, "report", out], capture_output=True, text=True,
                          timeout=120)
    report_path = os.path.join(os.path.dirname(out), "interleave.report.md")
    report = open(report_path).read() if os.path.exists(report_path) else ""
    check(proc.returncode == 0 and f"{len(algorithms)} configurations, {len(records)} records"
          in report, f"report: exit {proc.returncode}, {report[:300]}")
    # Four samples a setting are too few for a verdict: the winner column names no algorithm
    # (only the baseline, when it is the fastest: keeping Open MPI's choice needs no proof).
    winners = [row.split(" | ")[1] for row in report.splitlines()
               if row.startswith("| ") and " | " in row and row.split(" | ")[0][2:].strip()[:1].isdigit()]
    # (Labels in a panel are shortened: allreduce_alg stands for the whole parameter name.)
    check(winners and all(w in ("no significant difference", "allreduce\\_alg=default")
                          for w in winners)
          and "undecided: too few samples (4 and 4; 8 needed)" in report,
          f"report: a winner named from 4 samples a side: {winners}")

# tune on the run's JSONL reads "default" as the launch value (here unset: Open MPI's own
# decision, rule 0) and a number as that algorithm. A copy of the records in which one setting's
# 8 samples (the least a verdict needs) all lie below every other sample of the file makes that
# one win by construction, whatever the noise of the real run.
def rules_when_fastest(setting):
    copy = out + f".{setting}-wins.jsonl"
    floor = min(s for r in records for s in r["samples_seconds"]) / 10
    with open(copy, "w") as f:
        for r in records:
            samples = r["samples_seconds"] * 2
            if r["in_process_knobs"][KNOB] == setting:
                samples = [floor * (1 + i / 100) for i in range(len(samples))]
            f.write(json.dumps(dict(r, samples_seconds=samples)) + "\n")
    proc = subprocess.run([args.colltune, "tune", copy, "--emit", "ompi-rules"],
                          capture_output=True, text=True, timeout=60)
    check(proc.returncode == 0, f"tune with {setting} fastest: exit {proc.returncode}, "
                                f"{proc.stderr[-300:]}")
    lines = proc.stdout.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("2 # collective id")), None)
    # allreduce: its comm size, then the rule count, then the rules (bytes, algorithm, 0, 0).
    rules = []
    for line in lines[start + 4:] if start is not None else []:
        if "#" in line:
            break
        rules.append(line.split()[1])
    return rules


if records:
    check(rules_when_fastest("default") == ["0"], "tune: default fastest is not rule 0")
    check(rules_when_fastest("3") == ["3"], "tune: algorithm 3 fastest is not rule 3")

# Bad settings: one line from rank 0, exit 2, no file.
for run_args, dynamic_rules, expected in [
        (["--interleave", "coll_tuned_allreduce_algorithm=1,4"], "0", "use_dynamic_rules=1"),
        (["--interleave", "no_such_parameter=1"], "1", "is not an MPI_T control variable"),
        (["--interleave", "coll_tuned_use_dynamic_rules=1"], "1", "is read-only through MPI_T"),
        (["--interleave", "coll_tuned_allreduce_algorithm=ring"], "1", "'ring' is not allowed")]:
    bad = os.path.join(harness.workdir(), "bad.jsonl")
    code, stdout, stderr = run(["-b", "8", "-e", "8", "--json", bad] + run_args, dynamic_rules)
    lines = [line for line in stderr.splitlines() if line.startswith("colltune")]
    check(code == 2 and len(lines) == 1 and expected in lines[0],
          f"{run_args}: exit {code}, stderr lines {lines}")
    check(not os.path.exists(bad) and not os.path.exists(bad + ".partial"),
          f"{run_args}: a JSONL file was written")
harness.finish("interleave")
