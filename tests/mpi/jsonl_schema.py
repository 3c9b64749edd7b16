"""The JSONL parses and every record has every field docs/jsonl-schema.md documents."""
import os
import re
import statistics

import harness
from harness import check

args = harness.parse_args()
with open(os.path.join(args.docs, "jsonl-schema.md")) as f:
    documented = re.findall(r"^\| `([a-z0-9_.\[\]]+)` \|", f.read(), re.M)
check(len(documented) > 30, f"only {len(documented)} fields found in the docs table")

out = os.path.join(harness.workdir(), "s.jsonl")
env_before = dict(os.environ)
os.environ["NCCL_ALGO"] = "Ring"
os.environ["COLLTUNE_API_KEY"] = "do-not-record-me"
code, stdout, stderr, _ = harness.run(args, [
    "--coll", "allreduce,sendrecv,pingpong", "-b", "1K", "-e", "4K", "-f", "4", "--json", out,
    "--repetitions", "7"])
check(code == 0, f"exit code {code}: {stderr[-2000:]}")
records = harness.read_jsonl(out)
check(len(records) == 12, f"{len(records)} records, expected 12")


def lookup(record, dotted):
    value = record
    for part in dotted.split("."):
        if part.endswith("[]"):
            value = value[part[:-2]][0]
        else:
            value = value[part]
    return value


for r in records:
    if r["skipped"] is not None:
        continue
    for field in documented:
        try:
            lookup(r, field)
        except (KeyError, IndexError, TypeError):
            check(False, f"record {r['collective']} {r['bytes']} lacks documented field {field}")
    ctx = r["context"]
    check(ctx["nranks"] == args.np, f"nranks {ctx['nranks']}")
    check(len(ctx["placement"]) == args.np, "placement is not one entry per rank")
    check(sum(ctx["ranks_per_host"].values()) == args.np, "ranks_per_host does not add up")
    family = "MPICH" if harness.MPI_UNDER_TEST == "mpich" else "Open MPI"
    check(family in ctx["library_versions"]["mpi"] and ctx["mpi_family"] == family,
          f"the MPI's own version text and family: {ctx.get('mpi_family')}")
    check(ctx["environment"].get("NCCL_ALGO") == "Ring", "NCCL_ALGO not recorded")
    check(ctx["environment"].get("COLLTUNE_API_KEY") == "<redacted>", "secret not redacted")
    check("do-not-record-me" not in open(out).read(), "secret value leaked into the file")
    # The statistics and bandwidths from the raw samples, recomputed here (Python's statistics
    # module; nccl-tests' formulas, README): bus factor 2(n-1)/n for allreduce, 1 otherwise;
    # algbw = bytes / median time, GB = 1e9 bytes.
    st = r["stats_seconds"]
    samples = r["samples_seconds"]
    near = lambda a, b: abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-30)
    check(near(st["median"], statistics.median(samples)) and near(st["min"], min(samples))
          and near(st["max"], max(samples)) and near(st["mean"], statistics.fmean(samples))
          and near(st["stddev"], statistics.stdev(samples)),
          f"{r['collective']} {r['bytes']}: stats {st} do not match the samples {samples}")
    factor = 2 * (args.np - 1) / args.np if r["collective"] == "allreduce" else 1
    check(near(r["bus_factor"], factor), f"{r['collective']}: bus factor {r['bus_factor']}")
    algbw = r["bytes"] / statistics.median(samples) / 1e9
    check(near(r["algbw_gbps"], algbw) and near(r["busbw_gbps"], algbw * factor),
          f"{r['collective']} {r['bytes']}: algbw {r['algbw_gbps']} busbw {r['busbw_gbps']}, "
          f"expected {algbw} and {algbw * factor}")
    check(len(r["samples_seconds"]) == 7, "repetitions not honoured")
check(not os.path.exists(out + ".partial"), "the .partial file was left behind")
check(all(r["messages_per_second"] is None for r in records), "a message rate outside bw/bibw")

# A byte that is not UTF-8 in a recorded variable is kept, escaped (\\xNN), and loses nothing.
byte_out = os.path.join(harness.workdir(), "bytes.jsonl")
os.environb[b"UCX_COLLTUNE_TEST"] = b"a\xffb\\c"
code, _, stderr, _ = harness.run(args, ["-b", "8", "-e", "8", "--repetitions", "2", "--json",
                                        byte_out])
del os.environb[b"UCX_COLLTUNE_TEST"]
check(code == 0, f"a non-UTF-8 environment value: exit {code}: {stderr[-500:]}")
byte_records = harness.read_jsonl(byte_out) if code == 0 else []
check(len(byte_records) == 2 and all(
    r["context"]["environment"].get("UCX_COLLTUNE_TEST") == "a\\xffb\\\\c" for r in byte_records),
      f"escaped value: {[r['context']['environment'].get('UCX_COLLTUNE_TEST') for r in byte_records]}")

# bw and bibw: the message rate over all pairs, as osu_mbw_mr counts it, from the hand formula.
bw_out = os.path.join(harness.workdir(), "bw.jsonl")
code, stdout, stderr, _ = harness.run(args, ["--coll", "bw,bibw", "-b", "1K", "-e", "1K", "--window",
                                             "16", "--repetitions", "3", "--json", bw_out])
check(code == 0, f"bw: exit code {code}: {stderr[-1000:]}")
for r in (harness.read_jsonl(bw_out) if code == 0 else []):
    if r["skipped"] is not None:
        continue
    pairs, directions = args.np // 2, 2 if r["collective"] == "bibw" else 1
    expected = pairs * 16 * directions / statistics.median(r["samples_seconds"])
    check(abs(r["messages_per_second"] - expected) <= 1e-9 * expected,
          f"{r['collective']}: {r['messages_per_second']} msg/s, expected {expected}")
check(stdout.count(" msg/s") == 2 and f"# {args.np // 2} pair(s)" in stdout,
      f"bw table lacks the rate column: {stdout[-600:]}")
harness.finish("jsonl_schema")
