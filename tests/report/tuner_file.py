"""The NCCL tuner file colltune emits, read the way NCCL's example tuner plugin reads it
(plugins/tuner/example in the NCCL repository; REFERENCE.md): CSV, '#' comments, 8 to 10 fields
collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks[,numPipeOps,regBuff].
That parser has no "-1" for algorithm or protocol: a name it does not know falls back to ring /
simple, so every row must name both, and they must be a pair some measured point set together."""
import json
import os

import report_harness as h
from report_harness import check

COLLECTIVES = {"broadcast", "reduce", "allgather", "reducescatter", "allreduce"}
ALGORITHMS = {"tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"}
PROTOCOLS = {"ll", "ll128", "simple"}


def parse(text):
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(",")]
        check(8 <= len(fields) <= 10, f"line {number}: {len(fields)} fields: {line}")
        coll, lo, hi, algo, proto = fields[:5]
        check(coll in COLLECTIVES, f"line {number}: collective {coll!r}")
        check(algo in ALGORITHMS, f"line {number}: algorithm {algo!r} would fall back to ring")
        check(proto in PROTOCOLS, f"line {number}: protocol {proto!r} would fall back to simple")
        check(0 <= int(lo) <= int(hi), f"line {number}: range {lo}..{hi}")
        for value in fields[5:]:
            check(int(value) == -1 or int(value) >= 1, f"line {number}: {value!r}")
        rows.append((coll, int(lo), int(hi), algo, proto, int(fields[6]), int(fields[7])))
    return rows


args = h.parse_args()
root = h.fixtures()
code, text, err = h.colltune(args, "tune", "nccl", "--emit", "nccl-tuner", cwd=root)
check(code == 0, f"tune: {code} {err}")
rows = parse(text)
manifest = json.load(open(os.path.join(root, "nccl", "manifest.json")))
measured = {(p["settings"]["NCCL_ALGO"].lower(), p["settings"]["NCCL_PROTO"].lower())
            for p in manifest["points"]
            if "NCCL_ALGO" in p["settings"] and "NCCL_PROTO" in p["settings"]}
check(rows, f"no row at all: {text}")
for coll, lo, hi, algo, proto, nodes, ranks in rows:
    check((algo, proto) in measured, f"{algo},{proto} was never measured together: {measured}")
    check(nodes == 1 and ranks == 8, f"nodes {nodes}, ranks {ranks}: the fixture ran 1 node x 8")
# The Tree point wins 1K but left the protocol to NCCL: no row may cover 1K.
check(all(not (lo <= 1024 <= hi) for _, lo, hi, *_ in rows), f"a row covers 1K: {rows}")
h.finish("tuner_file")
