"""Racing under real mpirun: settings compared with --interleave stop being sampled once decided,
and every rank takes the same decisions (a rank that decided otherwise would skip a barrier its
peers wait in, and the run would hang into --timeout). A setting made 0.1 ms per op slower on one
rank (test hook) is eliminated by Student's t before the sign test's first look; settings that cannot differ (the segment size
of a one-segment allreduce) end tied within a 50% tolerance, or undecided within 0.5% at a budget
of 8 turns; each record's samples match its turn; without -n a sample lasts the target; the report
shows eliminated, tied and undecided apart; bad racing flags are exit 2 naming the range."""
import math
import os
import statistics
import subprocess

import harness
from harness import check

args = harness.parse_args()
# Its tied settings are coll/tuned segment sizes, which only Open MPI has; the race logic is the
# same under every MPI (mpi_family.* race MPICH's and Intel's algorithms across launches).
harness.open_mpi_only("race", "its tied settings are Open MPI coll/tuned segment sizes")
work = harness.workdir()
os.environ["OMPI_MCA_coll_tuned_use_dynamic_rules"] = "1"  # MPI_T may then set the algorithms
# A 1 KiB allreduce is one segment whatever the segment size: the three settings run alike.
KNOB = "OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize"
SETTINGS = "coll_tuned_allreduce_algorithm_segmentsize=0,4096,8192"


def race(name, extra):
    out = os.path.join(work, name + ".jsonl")
    code, stdout, stderr, _ = harness.run(args, ["--coll", "allreduce", "-b", "1K", "-e", "1K",
                                                 "--in-place", "never", "--timeout", "60",
                                                 "--json", out, "--interleave", SETTINGS] + extra)
    check(code == 0, f"{name}: exit {code} (a rank deciding otherwise hangs): {stderr[-800:]}")
    # The header says how samples were taken: -n's count, or grown to --min-sample-seconds (the
    # flag's value in microseconds); a budget of turns, not a count of samples.
    turns = extra[extra.index("--repetitions") + 1] if "--repetitions" in extra else "20"
    ops = ("500 ops per sample" if "-n" in extra else
           "ops per sample grown per size until a sample lasts "
           f"{float(extra[extra.index('--min-sample-seconds') + 1]) * 1e6:g} us")
    header = next((line for line in stdout.splitlines() if line.startswith("# timing")), "")
    check(ops in header and f"up to {turns} turns per size, raced" in header,
          f"{name}: header {header!r}: expected {ops!r} and up to {turns} turns")
    records = harness.read_jsonl(out) if os.path.exists(out) else []
    check(len(records) == 3, f"{name}: {len(records)} records, expected one per setting")
    for r in records:
        check(r["race"] is not None and len(r["samples_seconds"]) == r["race"]["turn"],
              f"{name}: {r['in_process_knobs']}: {len(r['samples_seconds'])} samples, race "
              f"{r['race']}")
    return {r["in_process_knobs"][KNOB]: r for r in records}, out


def report_text(path):
    out_dir = os.path.join(work, os.path.basename(path) + ".report")
    os.makedirs(out_dir)
    proc = subprocess.run([args.colltune, "report", path, "--out", out_dir], capture_output=True,
                          text=True, timeout=120)
    check(proc.returncode == 0, f"report: exit {proc.returncode}: {proc.stderr[-500:]}")
    md = [f for f in os.listdir(out_dir) if f.endswith(".md")]
    return open(os.path.join(out_dir, md[0])).read() if md else ""


# Setting 0 (segment size 0) is 0.1 ms per op slower on rank 0 (-n 500: 50 ms a sample against
# a few ms at most): its log ratio to the others is about log(10) with a spread of a few percent,
# so t's interval clears log(1.5) from its first turns, before the sign test (turn 8) could look.
# 4096 and 8192 cannot differ at 1 KiB. 500 ops a sample, so that a 1 KiB allreduce's
# microseconds are not lost in the timer and barrier noise.
DELAY = ["-n", "500", "--test-delay-rank", "0", "--test-delay-seconds", "0.0001",
         "--test-delay-setting", "0"]


def sign_interval_upper(log_ratios, confidence=0.99):
    """Upper end of the sign test's interval for the median: x_(n-k+1) with k the largest rank
    whose binomial tail P(X <= k - 1) stays within (1 - confidence) / 2 (exact, math.comb)."""
    n, tail, k = len(log_ratios), (1 - confidence) / 2, 0
    while k + 1 <= n // 2 and sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n <= tail:
        k += 1
    return sorted(log_ratios)[n - k] if k else math.inf


# A launch on a loaded machine can leave the equal pair far apart for most of its turns (seen:
# 4096 slower by 0.93x to 1.93x turn by turn); no rule may tie them within 50% then. Such a
# launch ends undecided, which the oracle above confirms from its samples, and another is run.
for attempt in range(3):
    by_setting, path = race("tied%d" % attempt, ["--race-tie", "50%"] + DELAY)
    if len(by_setting) != 3:
        break
    pair = [by_setting[k] for k in ("4096", "8192")]
    if pair[0]["race"]["outcome"] != "undecided":
        break
    fast, slow = sorted(pair, key=lambda r: statistics.median(r["samples_seconds"]))
    logs = [math.log(x / y) for x, y in zip(slow["samples_seconds"], fast["samples_seconds"])]
    check(sign_interval_upper(logs) >= math.log(1.5),
          f"the equal pair ended undecided at turn {len(logs)} though every 99% sign-test "
          f"interval bound of its ratios {[round(math.exp(x), 3) for x in logs]} is below 1.5")
    print(f"race: launch {attempt + 1} too noisy to tie the equal pair within 50% (ratios "
          f"{[round(math.exp(x), 3) for x in logs]}); launching again")
else:
    if not harness.failures:
        harness.skip("race", "3 launches in a row too noisy to tie two equal settings within 50%")
if len(by_setting) == 3:
    slow = by_setting["0"]["race"]
    check(slow["outcome"] == "eliminated" and 3 <= slow["turn"] < 8,
          f"the delayed setting: race {slow}, expected eliminated at turns 3 to 7")
    rest = [by_setting[k]["race"] for k in ("4096", "8192")]
    check(rest[0]["outcome"] == rest[1]["outcome"] == "tied" and rest[0]["turn"] == rest[1]["turn"],
          f"settings allreduce cannot tell apart within 50%: {rest}, expected tied together")
    check(all(r["ops_per_sample"] == 500 for r in by_setting.values()), "-n did not fix the ops")
    md = report_text(path)
    check("race tied at turn" in md and "eliminated: " in md and f"(turn {slow['turn']})" in md,
          "the report does not show the tie and the elimination")

# Within 0.5% with a budget of 8 turns, two equal settings can hardly be told apart: undecided,
# unless the two communicators really differ by more than 0.5% (a systematic difference, which
# the rule then rightly decides). The oracle is worked out here from the records' own samples:
# at 8 turns the 99% sign-test interval of the median ratio is [min, max], so the sign test
# eliminates exactly when every turn's ratio exceeds 1.005; Student's t at turn k can only
# eliminate when the mean log ratio of those k turns exceeds log(1.005), and only tie when it
# is below it; undecided at the budget means the sign test could not eliminate.
by_setting, path = race("undecided", ["--race-tie", "0.5%", "--repetitions", "8"] + DELAY)
if len(by_setting) == 3:
    a, b = (by_setting[k] for k in ("4096", "8192"))
    median_a, median_b = (statistics.median(r["samples_seconds"]) for r in (a, b))
    slow, fast = (a, b) if median_a > median_b else (b, a)
    ratios = [x / y for x, y in zip(slow["samples_seconds"], fast["samples_seconds"])]
    mean_log = sum(math.log(r) for r in ratios) / len(ratios)
    turn, outcomes = slow["race"]["turn"], (slow["race"]["outcome"], fast["race"]["outcome"])
    allowed = {("undecided", "undecided"): turn == 8 and min(ratios) <= 1.005,
               ("eliminated", "won"): (turn == 8 and min(ratios) > 1.005) or
                                      (turn < 8 and mean_log > math.log(1.005)),
               ("tied", "tied"): mean_log < math.log(1.005)}
    check(fast["race"]["turn"] == turn and allowed.get(outcomes, False),
          f"equal settings within 0.5%, ratios {[round(r, 4) for r in ratios]}: "
          f"{slow['race']} {fast['race']}: not what the rule allows from these samples")
    if outcomes[0] == "undecided":
        check("race undecided: budget of 8 turns spent" in report_text(path),
              "the report does not show the undecided race")
    else:
        print(f"race: the two communicators ended {outcomes[0]} at turn {turn} (they differed by "
              "0.5% or less, or systematically more); the undecided report line was not "
              "exercised this time")

# Without -n the ops per sample adapt: the same count for every setting, a sample >= the target.
by_setting, _ = race("adaptive", ["--min-sample-seconds", "0.002", "--race-tie", "50%"])
if by_setting:
    ops = {r["ops_per_sample"] for r in by_setting.values()}
    check(len(ops) == 1, f"settings of one size got different ops per sample: {ops}")
    for k, r in by_setting.items():
        sample = sorted(r["samples_seconds"])[len(r["samples_seconds"]) // 2] * r["ops_per_sample"]
        check(sample >= 0.002 * 0.5, f"setting {k}: a median sample lasts {sample:.5f} s with "
                                     f"{r['ops_per_sample']} ops, below the 0.002 s target")

# One setting: nothing to race; it gets the fixed budget and no race field.
out = os.path.join(work, "single.jsonl")
code, _, stderr, _ = harness.run(args, ["-b", "1K", "-e", "1K", "--in-place", "never", "--json",
                                        out, "--interleave", "coll_tuned_allreduce_algorithm=1"])
records = harness.read_jsonl(out) if code == 0 else []
check(code == 0 and records and all(r["race"] is None and len(r["samples_seconds"]) == 10
                                    for r in records),
      f"one setting: exit {code}, races {[r['race'] for r in records]}: {stderr[-400:]}")

for bad, expected in [
        (["--race-tie", "70%"], "--race-tie: '70%' is not allowed; allowed: 0.5% to 50%"),
        (["--race-tie", "5"], "--race-tie: '5' is not allowed; allowed: 0.5% to 50%"),
        (["--race-min-turns", "4"], "--race-min-turns: '4' is not allowed; allowed: an integer "
                                    "from 8 to 20"),
        (["--race", "maybe"], "--race: 'maybe' is not allowed; allowed: on off"),
        (["--race-futility", "1"], "--race-futility: '1' is not allowed; allowed: on off"),
        (["--min-sample-seconds", "0"], "--min-sample-seconds: '0' is not allowed; allowed: "
                                        "1e-05 s to 10 s")]:
    out = os.path.join(work, "bad.jsonl")
    code, _, stderr, _ = harness.run(args, ["--json", out, "--interleave", SETTINGS] + bad)
    check(code == 2 and expected in stderr and not os.path.exists(out),
          f"{bad}: exit {code}, {stderr.strip()[-300:]}")

harness.finish("race")
