"""tune --emit nccl-plugin on the NCCL fixture store, then the file through colltune's tuner
plugin loaded with ctypes as NCCL loads it (dlopen, ncclTunerPlugin_v5, a contiguous
float[7][3] cost table). The oracle is the fixture's model (make_fixtures.py): Tree takes half
the time below 64 KiB and leaves the protocol to NCCL; Ring/Simple takes 0.8x from 64 KiB. So:
a tree/any row at 1 KiB with a gain interval holding 2.0, a ring/simple row from 64 KiB whose
intervals hold 1.25, and the plugin leaving only those cells. Also compared with a golden."""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

import report_harness as h
from report_harness import check

args = h.parse_args()
root = tempfile.mkdtemp(prefix="colltune-tuned-plugin-")
subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                             "make_fixtures.py"), root],
               check=True, capture_output=True)
store = os.path.join(root, "nccl")
code, text, err = h.colltune(args, "tune", store, "--emit", "nccl-plugin")
check(code == 0, f"tune --emit nccl-plugin: exit {code}: {err}")
doc = json.loads(text)
check(doc["format"] == "colltune-nccl-tuned" and doc["version"] == 1, f"header: {doc}")
rows = {(r["algorithm"], r["protocol"]): r for r in doc["rows"]}
check(set(rows) == {("tree", "any"), ("ring", "simple")}, f"rows: {list(rows)}")
tree, ring = rows.get(("tree", "any")), rows.get(("ring", "simple"))
if tree and ring:
    check(tree["min_bytes"] == 1024 and tree["max_bytes"] == 65535 and tree["nranks"] == 8
          and tree["nnodes"] == 1, f"tree row: {tree}")
    check(all(m["gain_low"] <= 2.0 <= m["gain_high"] for m in tree["measured"])
          and tree["measured"], f"tree's gain intervals miss the model's 2.0: {tree['measured']}")
    check(ring["min_bytes"] == 65536 and ring["channels"] == "any", f"ring row: {ring}")
    check(ring["measured"] and all(m["gain_low"] <= 1.25 <= m["gain_high"]
                                   for m in ring["measured"]),
          f"ring's gain intervals miss the model's 1.25: {ring['measured']}")

# The golden, with the store's temporary path taken out.
golden_path = os.path.join(os.path.dirname(__file__), "golden", "tuned-plugin.json")
doc["store"] = "<store>"
got = json.dumps(doc, indent=2, sort_keys=True) + "\n"
if os.environ.get("COLLTUNE_UPDATE_GOLDEN"):
    open(golden_path, "w").write(got)
check(os.path.exists(golden_path) and open(golden_path).read() == got,
      f"differs from {golden_path} (COLLTUNE_UPDATE_GOLDEN=1 rewrites it)")

# Round trip: the file as NCCL's process would see it.
plugin = os.path.join(os.path.dirname(os.path.realpath(args.colltune)),
                      "libnccl-tuner-colltune.so")
lib = ctypes.CDLL(plugin)
Init = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64,
                        ctypes.c_size_t, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p,
                        ctypes.c_void_p)
Get = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_int,
                       ctypes.POINTER(ctypes.c_float), ctypes.c_int, ctypes.c_int, ctypes.c_int,
                       ctypes.POINTER(ctypes.c_int))
Fin = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)


class V5(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("init", Init), ("getCollInfo", Get),
                ("finalize", Fin)]


v5 = V5.in_dll(lib, "ncclTunerPlugin_v5")
tuned = os.path.join(root, "tuned.json")
open(tuned, "w").write(text)
os.environ["COLLTUNE_TUNER_FILE"] = tuned
os.environ.pop("NCCL_ALGO", None)
os.environ.pop("NCCL_PROTO", None)
ALLREDUCE, TREE, RING, SIMPLE = 4, 0, 1, 2


def table_after(nranks, nnodes, nbytes):
    ctx = ctypes.c_void_p()
    check(v5.init(ctypes.byref(ctx), 1, nranks, nnodes, None, None, None) == 0, "init failed")
    table = (ctypes.c_float * 21)(*[10.0 + i for i in range(21)])
    channels = ctypes.c_int(0)
    check(v5.getCollInfo(ctx, ALLREDUCE, nbytes, 1, table, 7, 3, 0, ctypes.byref(channels)) == 0,
          "getCollInfo failed")
    v5.finalize(ctx)
    return [table[i] for i in range(21)]


untouched = [10.0 + i for i in range(21)]
small = table_after(8, 1, 1024)
check(all((v >= 0) == (i // 3 == TREE) for i, v in enumerate(small)),
      f"1 KiB: only Tree's cells (any protocol) should be left: {small}")
large = table_after(8, 1, 1 << 20)
check(all((v >= 0) == (i == RING * 3 + SIMPLE) for i, v in enumerate(large)),
      f"1 MiB: only Ring/Simple should be left: {large}")
check(table_after(8, 1, 512) == untouched, "512 B is outside every row: NCCL's table changed")
check(table_after(4, 1, 1024) == untouched, "a 4-rank communicator took 8-rank rows")
h.finish("tuned_plugin")
