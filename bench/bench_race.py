#!/usr/bin/env python3
"""What racing buys: with --osu DIR first the exhaustive loop a user of the OSU Micro-Benchmarks
runs (one osu_allreduce -T mpi_float launch per algorithm and rank count; the pick is the lowest
average latency), then two independent repeats of `colltune run --interleave
coll_tuned_allreduce_algorithm=1,...,6 -b 8 -e 16M -f 2` at np 2 and np 4, once racing (the
default) and once with the fixed budget (--race off -n 20 --repetitions 10). Prints the wall time
of each repeat (both rank counts), how many (np, size) cells the two repeats recommend the same
algorithm for, and the regret of the first repeat's recommendation measured in the second: its
median time there over the second repeat's best median. A recommendation is what a user reading
the report takes: the setting that won; among tied settings the launch default where it is tied,
else the fastest of them; among undecided ones the fastest (`colltune tune` writes no rule there
and keeps Open MPI's own choice, which is not among these six); never an eliminated one. The repeats of
the two methods alternate (race, fixed, race, fixed), so drift hits both alike.

Every launch binds its ranks to cores (--mpirun-args). Open MPI binds by default, but not when
oversubscribed, as np 4 is on 2 cores, and floating ranks let each launch order the algorithms
its own way: 10 launches each of np 4 allreduce, fixed budget, 2026-12-05: the sd of log(time
of algorithm 2 / algorithm 1) at 512 B between launches was 0.200 floating (ratios 1.08-1.88)
and 0.037 bound (1.34-1.52); of 6 / 4 at 1 MiB over 8 alternating launches each, 0.127
(0.82-1.16: either faster) and 0.033 (0.83-0.92). colltune run warns of floating ranks when it
compares settings. This bench's own summary figures did not separate the two in 12 alternating
race-only runs (bound p90 1.041-1.104x, worst 1.129-1.668x; floating p90 1.020-1.099x, worst
1.143-1.284x): their worst cells are picks from undecided sets at other cells (np 4, 512 B bound:
a launch whose race ended undecided at turn 8 with algorithm 2 0.97x of 1, where five others
eliminated it at 1.34-1.50x).

"racing, then --race-after" is a launch and a second launch (`--race-after`) that races again
what the first left tied or undecided, the pick read from the two as the report reads them
(never a setting every launch eliminated; the lowest geometric mean of launch medians). With
--consensus --second-launch each unit is such a pair. The consensus lines also time the pick
all other launches agree on in each single launch: the floor of scoring a pick in one launch; and
how often the two-repeat figures (p90 <= 1.05x, worst <= 1.10x) are met, by one unit's pick timed
in another and by that oracle pick: where the oracle misses too, one two-repeat run cannot decide.

--as-tune scores what `colltune tune` would write, with Open MPI's own choice among the settings:
on 2026-12-05 (race only) median 1.046x, p90 1.289x, worst 1.635x, 19 of 44 cells over 1.10x:
the default is kept where the race is undecided, and its time varies between launches (np 2,
8 KiB: 1.014x of the best in one launch, 1.635x in the next), so that a cell's "keep the default"
is often far from the best of the next launch, though never worse than not tuning."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--colltune", required=True)
    parser.add_argument("--nps", default="2,4")
    parser.add_argument("--algorithms", default="1,2,3,4,5,6")
    parser.add_argument("--max-bytes", default="16M")
    parser.add_argument("--as-tune", action="store_true",
                        help="add Open MPI's own choice ('default': algorithm 0) to the settings "
                             "and recommend what `colltune tune` writes: a winner; else the "
                             "default while it is tied or undecided; else the fastest left")
    parser.add_argument("--race-args", default="", help="extra flags for the racing runs")
    parser.add_argument("--race-only", action="store_true", help="skip the fixed budget runs")
    parser.add_argument("--consensus", type=int, metavar="K",
                        help="instead: K racing launches per rank count, each launch's pick "
                             "scored against the geometric mean of the other K - 1 launches' "
                             "medians (a truth far less noisy than one launch)")
    parser.add_argument("--second-launch", action="store_true",
                        help="with --consensus: each unit is a launch and a `--race-after` launch "
                             "after it, picked as the report reads the two")
    parser.add_argument("--osu", help="an OSU Micro-Benchmarks build (osu_allreduce under it)")
    parser.add_argument("--mpirun-args", default="--bind-to core:overload-allowed",
                        help="mpirun flags for every launch, OSU's and colltune's alike (default: "
                             "ranks bound to cores, as Open MPI binds them when not "
                             "oversubscribed; '--bind-to none' lets them float)")
    return parser.parse_args()


def osu_binary(root):
    for directory, _, files in os.walk(root):
        if "osu_allreduce" in files and os.access(os.path.join(directory, "osu_allreduce"), os.X_OK):
            return os.path.join(directory, "osu_allreduce")
    raise SystemExit(f"bench_race: no executable osu_allreduce under {root}")


def osu_repeat(args, binary):
    """The OSU loop: {(np, bytes): {algorithm: (avg seconds, None)}} and the wall time."""
    cells = {}
    start = time.monotonic()
    for np in (int(n) for n in args.nps.split(",")):
        for algorithm in args.algorithms.split(","):
            env = dict(os.environ, OMPI_MCA_coll_tuned_use_dynamic_rules="1",
                       OMPI_MCA_coll_tuned_allreduce_algorithm="0" if algorithm == "default"
                       else algorithm)
            out = subprocess.run(["mpirun", "--oversubscribe", *args.mpirun_args.split(), "-np", str(np), binary, "-T",
                                  "mpi_float", "-m", f"8:{parse_size(args.max_bytes)}"],
                                 env=env, check=True, capture_output=True, text=True).stdout
            for line in out.splitlines():
                fields = line.split()
                if len(fields) == 2 and fields[0].isdigit():
                    cells.setdefault((np, int(fields[0])), {})[algorithm] = (
                        float(fields[1]) * 1e-6, None)
    return cells, time.monotonic() - start


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def one_run(args, np, extra, out):
    env = dict(os.environ, OMPI_MCA_coll_tuned_use_dynamic_rules="1")
    subprocess.run(["mpirun", "--oversubscribe", *args.mpirun_args.split(), "-np", str(np),
                    args.colltune, "run",
                    "--interleave", f"coll_tuned_allreduce_algorithm={args.algorithms}",
                    "-b", "8", "-e", args.max_bytes, "-f", "2", "--in-place", "never",
                    "-c", "0", "--json", out] + extra,
                   env=env, check=True, capture_output=True)
    return [json.loads(line) for line in open(out)]


def combine(per_launch):
    """One setting's launches as the report reads them: the geometric mean of their medians; the
    race's outcome where every launch ended alike, else undecided (the report then ranks by that
    mean); eliminated where every launch that raced it eliminated it."""
    median = statistics.geometric_mean(m for m, _ in per_launch)
    outcomes = {o for _, o in per_launch}
    return median, outcomes.pop() if len(outcomes) == 1 else "undecided"


def launch_cells(args, extra, second):
    """One launch per rank count, and with `second` a --race-after launch after each:
    {(np, bytes): {algorithm: (median seconds, race outcome or None)}}."""
    merged = {}
    with tempfile.TemporaryDirectory() as tmp:
        for np in (int(n) for n in args.nps.split(",")):
            first = os.path.join(tmp, f"np{np}-1.jsonl")
            launches = [one_run(args, np, extra, first)]
            if second:
                launches.append(one_run(args, np, extra + ["--race-after", first],
                                        os.path.join(tmp, f"np{np}-2.jsonl")))
            for records in launches:
                for r in records:
                    algorithm = r["in_process_knobs"]["OMPI_MCA_coll_tuned_allreduce_algorithm"]
                    outcome = r["race"]["outcome"] if r.get("race") else None
                    merged.setdefault((np, r["bytes"]), {}).setdefault(algorithm, []).append(
                        (r["stats_seconds"]["median"], outcome))
    return {key: {a: combine(v) for a, v in cell.items()} for key, cell in merged.items()}


def repeat(args, extra, second=False):
    """{(np, bytes): {algorithm: (median seconds, race outcome or None)}} and the wall time."""
    start = time.monotonic()
    cells = launch_cells(args, extra, second)
    return cells, time.monotonic() - start


def recommend(cell, as_tune=False):
    by_outcome = {}
    for algorithm, (median, outcome) in cell.items():
        by_outcome.setdefault(outcome, []).append((median, algorithm))
    for outcome in ("won", "tied", "undecided", None):
        if outcome in by_outcome:
            candidates = by_outcome[outcome]
            keeps_default = outcome == "tied" or (as_tune and outcome == "undecided")
            if keeps_default and any(a == "default" for _, a in candidates):
                return "default"
            return min(candidates)[1]
    raise ValueError(f"no recommendable setting in {cell}")


def quality(first, second, as_tune):
    agree, regrets, cells = 0, [], []
    for key in sorted(first):
        pick = recommend(first[key], as_tune)
        agree += pick == recommend(second[key], as_tune)
        best = min(median for median, _ in second[key].values())
        regrets.append(second[key][pick][0] / best)
        cells.append((regrets[-1], key, pick))
    return agree, regrets, sorted(cells, reverse=True)


def p90_of(ordered):
    """The 90th percentile of an ascending list, as every figure here reads it."""
    return ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


def describe_cell(cell, pick):
    """Each setting's median over the cell's best, its race outcome, the pick starred."""
    best = min(median for median, _ in cell.values())
    return " ".join(f"{'*' if a == pick else ''}{a}:{median / best:.3f}"
                    f"{'/' + outcome if outcome else ''}" for a, (median, outcome) in
                    sorted(cell.items()))


def consensus(args):
    """Each launch's pick against what the other launches agree on: the regret a user meets over
    many later launches, not in one noisy one."""
    launches = []  # each {(np, bytes): {algorithm: (median, outcome)}}
    start = time.monotonic()
    for _ in range(args.consensus):
        launches.append(launch_cells(args, args.race_args.split(), args.second_launch))
    regrets, worst = [], []
    for i, cells in enumerate(launches):
        others = [c for j, c in enumerate(launches) if j != i]
        for key, cell in cells.items():
            pick = recommend(cell, args.as_tune)
            truth = {a: statistics.geometric_mean(o[key][a][0] for o in others) for a in cell}
            regrets.append(truth[pick] / min(truth.values()))
            worst.append((regrets[-1], i + 1, key, pick, cell, truth))
    # The floor of one-launch scoring: the pick all the other launches agree on (the consensus
    # best), timed in this launch against this launch's best.
    floor = sorted(
        cells[key][min(truth, key=truth.get)][0] / min(m for m, _ in cells[key].values())
        for i, cells in enumerate(launches) for key in cells
        for truth in [{a: statistics.geometric_mean(o[key][a][0] for j, o in enumerate(launches)
                                                    if j != i) for a in cells[key]}])
    wall = (time.monotonic() - start) / args.consensus
    regrets.sort()
    p90 = p90_of(regrets)
    unit = "racing units (a launch and its --race-after launch)" if args.second_launch else \
        "racing launches"
    print(f"{unit}: {args.consensus} per rank count ({args.nps}), algorithms "
          f"{args.algorithms}, mpirun {args.mpirun_args or '(no extra flags)'}: each launch's pick "
          f"against the other launches' geometric mean: median {statistics.median(regrets):.3f}x, "
          f"p90 {p90:.3f}x, worst {regrets[-1]:.3f}x; {sum(r > 1.10 for r in regrets)} of "
          f"{len(regrets)} picks over 1.10x")
    for regret, launch, key, pick, cell, truth in sorted(worst, reverse=True)[:3]:
        best = min(truth.values())
        print(f"  worst: launch {launch}, np {key[0]}, {key[1]} B, pick {pick} {regret:.3f}x; the "
              f"others: {' '.join(f'{a}:{truth[a] / best:.2f}' for a in sorted(truth))}; this "
              f"launch: {describe_cell(cell, pick)}")
    print(f"  wall {wall:.1f} s per unit (every rank count); the other launches' best timed in "
          f"one launch, as a two-repeat bench scores a pick: p90 "
          f"{p90_of(floor):.3f}x, worst {floor[-1]:.3f}x "
          f"({sum(r > 1.10 for r in floor)} of {len(floor)} over 1.10x)")
    two_repeat_odds(launches, args.as_tune)
    if not args.second_launch:
        paired_picks(args, launches)


def two_repeat_odds(launches, as_tune):
    """How often the two-repeat figures (regret p90 <= 1.05, worst <= 1.10 over the cells, repeat
    1's pick timed in repeat 2) are met: by this tool, over every ordered pair of units (i, j);
    and by an oracle that knows the answer, the pick all units but j agree on, timed in unit j.
    Where the oracle misses as often, the target is the machine's launch-to-launch noise, not the
    tool."""
    def figures(picks, cells):
        regrets = sorted(cells[key][pick][0] / min(m for m, _ in cells[key].values())
                         for key, pick in picks.items())
        return p90_of(regrets), regrets[-1]

    def met(runs):
        return (f"p90 met in {sum(p <= 1.05 for p, _ in runs)}, worst met in "
                f"{sum(w <= 1.10 for _, w in runs)}, both in "
                f"{sum(p <= 1.05 and w <= 1.10 for p, w in runs)} of {len(runs)}; worst median "
                f"{statistics.median(w for _, w in runs):.3f}x")

    own = [figures({key: recommend(cell, as_tune) for key, cell in launches[i].items()},
                   launches[j]) for i in range(len(launches)) for j in range(len(launches))
           if i != j]
    oracle = []
    for j, cells in enumerate(launches):
        others = [c for i, c in enumerate(launches) if i != j]
        picks = {key: min(cell, key=lambda a: statistics.geometric_mean(o[key][a][0]
                                                                          for o in others))
                 for key, cell in cells.items()}
        oracle.append(figures(picks, cells))
    print(f"  two-repeat figures, this tool (unit i's pick timed in unit j, every i != j): "
          f"{met(own)}")
    print(f"  two-repeat figures, the oracle (the other units' consensus pick timed in unit j): "
          f"{met(oracle)}")


def group_pick(cells):
    """What a report names from launches that interleaved the same settings: never a setting
    every launch eliminated; else the lowest geometric mean of the launches' medians."""
    left = [a for a in cells[0] if any(c[a][1] != "eliminated" for c in cells)]
    return min(left, key=lambda a: statistics.geometric_mean(c[a][0] for c in cells))


def paired_picks(args, launches):
    """Launches two at a time (1+2, 3+4, ...), each pair's pick (group_pick) against the
    geometric mean of the launches outside the pair: what a second launch buys."""
    regrets, worst = [], []
    for i in range(0, len(launches) - 1, 2):
        others = [c for j, c in enumerate(launches) if j not in (i, i + 1)]
        for key in launches[i]:
            pick = group_pick([launches[i][key], launches[i + 1][key]])
            truth = {a: statistics.geometric_mean(o[key][a][0] for o in others)
                     for a in launches[i][key]}
            regrets.append(truth[pick] / min(truth.values()))
            worst.append((regrets[-1], i + 1, key, pick))
    if not regrets:
        return
    regrets.sort()
    p90 = p90_of(regrets)
    print(f"two launches a pick ({len(launches) // 2} pairs): median "
          f"{statistics.median(regrets):.3f}x, p90 {p90:.3f}x, worst {regrets[-1]:.3f}x; "
          f"{sum(r > 1.10 for r in regrets)} of {len(regrets)} picks over 1.10x")
    for regret, launch, key, pick in sorted(worst, reverse=True)[:3]:
        print(f"  worst: launches {launch}+{launch + 1}, np {key[0]}, {key[1]} B, pick {pick} "
              f"{regret:.3f}x")


def main():
    args = parse_args()
    if args.as_tune:
        args.algorithms = "default," + args.algorithms
    if args.consensus:
        consensus(args)
        return
    fixed = "fixed budget (--race off -n 20 --repetitions 10)"
    methods = {"racing (default)": (args.race_args.split(), False),
               "racing, then --race-after on what it left open": (args.race_args.split(), True),
               fixed: (["--race", "off", "-n", "20", "--repetitions", "10"], False)}
    if args.race_only:
        del methods[fixed]
    runs = {name: [] for name in methods}
    osu = "one OSU launch per algorithm (osu_allreduce)"
    if args.osu:
        runs = {osu: [], **runs}
        binary = osu_binary(args.osu)
    for _ in range(2):
        if args.osu:
            runs[osu].append(osu_repeat(args, binary))
        for name, (extra, second) in methods.items():
            runs[name].append(repeat(args, extra, second))
    print(f"allreduce, coll_tuned algorithms {args.algorithms}, 8 B to {args.max_bytes} factor 2, "
          f"np {args.nps}; two repeats each, alternating")
    for name, ((first, t1), (second, t2)) in runs.items():
        agree, regrets, cells = quality(first, second, args.as_tune)
        regrets.sort()
        p90 = p90_of(regrets)
        outcomes = {}
        for cell in first.values():
            for _, outcome in cell.values():
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
        versus = ""
        if args.osu and name != osu:
            osu_walls = [t for _, t in runs[osu]]
            versus = (f" ({t1 / osu_walls[0]:.2f} and {t2 / osu_walls[1]:.2f} of the OSU loop's "
                      f"wall in the same round)")
        print(f"{name}: wall {t1:.1f} s and {t2:.1f} s per repeat{versus}; winner agreed in {agree} of "
              f"{len(first)} cells; regret of repeat 1's pick in repeat 2: median "
              f"{statistics.median(regrets):.3f}x, p90 {p90:.3f}x, worst {regrets[-1]:.3f}x")
        if None not in outcomes:
            print(f"  repeat 1 outcomes over settings x cells: {outcomes}")
        bad = [(key, pick) for regret, key, pick in cells if regret > 1.10]
        if bad and None not in outcomes:
            # Repeat 2 decided inside its launch that the pick is slower, yet repeat 1 measured
            # it within the tie of that cell's repeat-2 best: the launches disagree.
            split = sum(1 for key, pick in bad
                        if second[key][pick][1] == "eliminated" and
                        first[key][pick][0] <= 1.05 * first[key][min(
                            second[key], key=lambda a: second[key][a][0])][0])
            print(f"  {len(bad)} cells with regret over 1.10; in {split} of them repeat 1 had the "
                  "pick within 5% of repeat 2's best and repeat 2 eliminated it: the two launches "
                  "disagree, which no rule inside one launch can see")
        for regret, key, pick in cells[:3]:
            print(f"  worst: np {key[0]}, {key[1]} B, regret {regret:.3f}x; repeat 1 "
                  f"{describe_cell(first[key], pick)}; repeat 2 {describe_cell(second[key], pick)}")


if __name__ == "__main__":
    main()
