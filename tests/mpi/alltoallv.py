"""alltoallv on real ranks: every pattern validates element by element; the record holds what the
pattern made each rank move, checked against shares worked out by hand; algbw comes from the
busiest rank; uniform moves what alltoall moves, in about the same time; bad patterns exit 2."""
import os

import harness
from harness import check

args = harness.parse_args()
n = args.np
work = harness.workdir()

# Validation, every pattern, two element widths, two seeds.
for pattern in ("uniform", "random:8", "zipf:0.5", "zipf:1.5", "hot:4"):
    for seed in ("1", "77"):
        out = os.path.join(work, f"{pattern}-{seed}.jsonl")
        code, _, stderr, _ = harness.run(args, [
            "--coll", "alltoallv", "--exchange", pattern, "--exchange-seed", seed, "-d",
            "int8,double", "-b", "64", "-e", "256K", "-f", "64", "-n", "2", "-w", "1",
            "--repetitions", "2", "--check", "--json", out])
        check(code == 0, f"{pattern} seed {seed}: exit {code}: {stderr[-1500:]}")
        records = [r for r in harness.read_jsonl(out) if r["skipped"] is None]
        check(len(records) >= 4, f"{pattern}: only {len(records)} records measured")
        for r in records:
            x = r["exchange"]
            where = f"{pattern} seed {seed} {r['dtype']} {r['bytes']} B"
            check(r["wrong"] == 0, f"{where}: #wrong {r['wrong']}")
            check(x["pattern"] == pattern and x["seed"] == int(seed), f"{where}: {x}")
            # Every rank sends the size; what is sent is received.
            check(x["send_bytes"] == [r["bytes"]] * n, f"{where}: send_bytes {x['send_bytes']}")
            check(sum(x["recv_bytes"]) == n * r["bytes"], f"{where}: recv_bytes {x['recv_bytes']}")
            busiest = max(x["send_bytes"] + x["recv_bytes"])
            check(x["busiest_bytes"] == busiest, f"{where}: busiest {x['busiest_bytes']}")
            median = sorted(r["samples_seconds"])[len(r["samples_seconds"]) // 2]
            stats_median = r["stats_seconds"]["median"]
            check(abs(r["algbw_gbps"] - busiest / stats_median / 1e9) <= 1e-9 * r["algbw_gbps"],
                  f"{where}: algbw {r['algbw_gbps']} is not busiest bytes / median")
            check(median > 0, f"{where}: samples")
            if pattern == "uniform":
                check(x["recv_bytes"] == [r["bytes"]] * n and x["imbalance"] == 1,
                      f"{where}: uniform is uneven: {x}")

# hot:4 by hand: every row splits 4 : 1 : ... : 1 over n destinations (n + 3 shares), so the hot
# rank receives n x 4/(n+3) of a row and the others n x 1/(n+3). 4 (n+3) floats per peer makes
# every share whole.
per_peer = 4 * (n + 3)
size = per_peer * n * 4
out = os.path.join(work, "hot.jsonl")
code, _, stderr, _ = harness.run(args, [
    "--coll", "alltoallv", "--exchange", "hot:4", "-d", "float", "-b", str(size), "-e", str(size),
    "-n", "2", "-w", "1", "--repetitions", "2", "--check", "--json", out])
check(code == 0, f"hot:4: exit {code}: {stderr[-1000:]}")
rows = [r for r in harness.read_jsonl(out) if r["skipped"] is None]
row_bytes = per_peer * n * 4
share = row_bytes // (n + 3)
expected = sorted([n * share] * (n - 1) + [n * 4 * share])
check(rows and sorted(rows[0]["exchange"]["recv_bytes"]) == expected,
      f"hot:4 receives {rows and rows[0]['exchange']['recv_bytes']}, by hand {expected}")
check(rows and abs(rows[0]["exchange"]["imbalance"] - 4 * n / (n + 3)) < 1e-12,
      f"hot:4 imbalance {rows and rows[0]['exchange']['imbalance']}, by hand {4 * n / (n + 3)}")

# The console header gives the pattern's own skew, not the smallest size's rounding: zipf:1 sends
# 1/k of a row to the destination of popularity k, so the most popular receives n x 1/H(n) rows
# (H the harmonic number: 2 ranks 1.33, 3 ranks 1.64, 4 ranks 1.92), though a 64 B row of 16
# floats on 2 ranks splits 11 : 5 (1.38) and on 4 ranks 8 : 4 : 2 : 2 (2.00) in whole elements.
code, stdout, stderr, _ = harness.run(args, [
    "--coll", "alltoallv", "--exchange", "zipf:1", "-b", "64", "-e", "64", "-n", "2", "-w", "1",
    "--repetitions", "2"])
skew = n / sum(1 / k for k in range(1, n + 1))
check(code == 0 and f"the busiest rank moves {skew:.2f}x the mean" in stdout,
      f"zipf:1 header: expected {skew:.2f}x: {[l for l in stdout.splitlines() if 'exchange' in l]}")

# uniform moves what alltoall moves. Times: alternating launches, a loose 2x band that still
# catches an alltoallv sending n times the data (a per-peer count mistaken for a total).
if n == 2:
    medians = {"alltoall": [], "alltoallv": []}
    for turn in range(3):
        for coll in ("alltoall", "alltoallv"):
            out = os.path.join(work, f"{coll}-{turn}.jsonl")
            code, _, stderr, _ = harness.run(args, [
                "--coll", coll, "-d", "float", "-b", "1M", "-e", "1M", "--in-place", "never",
                "-n", "10", "-w", "5", "--repetitions", "7", "--json", out])
            check(code == 0, f"{coll}: exit {code}: {stderr[-1000:]}")
            r = harness.read_jsonl(out)[0]
            medians[coll].append(r["stats_seconds"]["median"])
            if coll == "alltoallv":
                check(r["bytes"] == 1 << 20 and r["exchange"]["busiest_bytes"] == 1 << 20,
                      f"uniform alltoallv moves {r['exchange']['busiest_bytes']} B, not 1 MiB")
    a = sorted(medians["alltoall"])[1]
    v = sorted(medians["alltoallv"])[1]
    print(f"1 MiB on 2 ranks: alltoall {a * 1e6:.1f} us, uniform alltoallv {v * 1e6:.1f} us, "
          f"ratio {v / a:.2f}")
    check(0.5 < v / a < 2, f"uniform alltoallv {v} s vs alltoall {a} s")

# Bad input: one line, exit 2, nothing written.
for flags, text in (
        (["--exchange", "zipf:-1"], "--exchange: 'zipf:-1' is not allowed; allowed: uniform"),
        (["--exchange", "lognormal"], "--exchange: 'lognormal' is not an exchange pattern"),
        (["--exchange", "hot:0.5"], "--exchange: 'hot:0.5' is not allowed")):
    out = os.path.join(work, "bad.jsonl")
    code, stdout, stderr, _ = harness.run(args, ["--coll", "alltoallv", "--json", out] + flags)
    lines = [line for line in stderr.splitlines() if line.startswith("colltune: error:")]
    check(code == 2 and lines and lines[0].startswith("colltune: error: " + text),
          f"{flags}: exit {code}, {lines}")
    check(not os.path.exists(out), f"{flags}: a records file was written")
harness.finish("alltoallv")
