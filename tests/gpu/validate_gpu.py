"""On a GPU (label gpu): every collective x dtype x op (avg, half, bfloat16 and fp8 included)
validates with #wrong 0 through NCCL, with and without -G, and on a non-blocking communicator;
--interleave NCCL_ALGO tells NCCL each value at its own communicator's init and NCCL chooses it
(its TUNING lines; needs two ranks, one rank never reads NCCL_ALGO); a corrupted element
is caught. Two ranks run on two GPUs, or on one with NCCL 2.30 or later
(NCCL_MULTI_RANK_GPU_ENABLE=1): -g 2 drives them from one process and validates alike, skips
agree, --interleave NCCL_ALGO switches, the tuner plugin is loaded and its row applied, and one
host's GPUs under --split host are one communicator; where the host has mpirun, also mpirun -np 2
over MPI, verify of an nccl-plugin file, the NCCL abort path, a rank missing at init (exit 4), and
--split host over two "hosts" of two ranks (UTS namespaces). Otherwise it prints which checks it
could not make, and why.
Runs colltune without a launcher (single-process mode) where it can, so most of it needs no MPI.
Skipped (77) where no GPU is visible; a GPU host whose build lacks NCCL fails."""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from harness import check, finish  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--colltune", required=True)
args = parser.parse_args()
env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_", "SLURM_"))}
workdir = tempfile.mkdtemp(prefix="colltune-gpu-")


def run(run_args, limit_seconds=300, extra_env=None):
    proc = subprocess.run([args.colltune, "run", "--backend", "nccl"] + run_args,
                          env=dict(env, **(extra_env or {})), capture_output=True, text=True,
                          timeout=limit_seconds)
    return proc.returncode, proc.stdout, proc.stderr


def split_hosts(mpi_env):
    """Two "hosts" of two ranks on this machine's GPUs (a UTS namespace a rank, root): each
    host's ranks make an NCCL communicator of their own, all measuring at once, as health's stage
    1 does on a cluster. The oracle is the placement the records carry: 2 ranks a host."""
    if visible < 4 and nccl < (2, 30):
        print(f"validate_gpu: NOT CHECKED: --split host over two hosts (4 ranks on {visible} "
              f"GPUs need NCCL 2.30 or later; this is {nccl_text})")
        return
    if visible < 4:
        mpi_env = dict(mpi_env, NCCL_MULTI_RANK_GPU_ENABLE="1")
    out = os.path.join(workdir, "split-hosts.jsonl")
    rename = 'hostname "split-host-$((OMPI_COMM_WORLD_RANK / 2))" && exec "$@"'
    proc = subprocess.run(
        ["mpirun", "--oversubscribe", "-np", "4", "unshare", "--uts", "--", "sh", "-c", rename,
         "sh", args.colltune, "run", "--backend", "nccl", "--split", "host", "--coll",
         "allreduce,alltoall", "-b", "8", "-e", "1M", "-f", "64", "--rank-samples", "--json",
         out], env=mpi_env, capture_output=True, text=True, timeout=300)
    rs = [json.loads(line) for line in open(out)] if os.path.exists(out) else []
    hosts = [p["host"] for p in rs[0]["context"]["placement"]] if rs else []
    if proc.returncode != 0 and not rs and "unshare" in proc.stderr:
        print(f"validate_gpu: NOT CHECKED: --split host over two hosts (no UTS namespace for a "
              f"rank here: {proc.stderr.strip()[-200:]})")
        return
    if rs and len(set(hosts)) == 1:
        print(f"validate_gpu: NOT CHECKED: --split host over two hosts (this MPI names every "
              f"rank's host {hosts[0]} inside its own UTS namespace)")
        return
    check(proc.returncode == 0 and "split by host: 2 communicators of 2 ranks" in proc.stdout and
          hosts == ["split-host-0"] * 2 + ["split-host-1"] * 2 and
          all(r["nranks"] == 2 and r["wrong"] == 0 and len(r["rank_samples_seconds"]) == 4
              for r in rs),
          f"--split host over two hosts: exit {proc.returncode}, hosts {hosts}: "
          f"{(proc.stdout + proc.stderr)[-800:]}")


smi = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True) \
    if any(os.access(os.path.join(d, "nvidia-smi"), os.X_OK)
           for d in os.environ.get("PATH", "").split(os.pathsep)) else None
visible = smi.stdout.count("GPU ") if smi and smi.returncode == 0 else 0
probe_out = os.path.join(workdir, "probe.jsonl")
code, _, stderr = run(["-b", "8", "-e", "8", "-n", "1", "-w", "0", "--repetitions", "1",
                       "--json", probe_out], 120)
# No GPU here: a skip. A GPU the build or the probe cannot use: a failure, never a skip.
for marker, broken, absent in [
        ("not built into this colltune", "this colltune has no NCCL backend",
         "no GPU here and no NCCL backend in this build"),
        ("no CUDA device", "colltune found none", "no GPU visible here")]:
    if marker in stderr:
        if visible > 0:
            check(False, f"nvidia-smi lists {visible} GPU(s) but {broken}: {stderr}")
            finish("validate_gpu")
        print(f"validate_gpu: skipped, {absent}")
        sys.exit(77)
check(code == 0, f"probe: exit {code}: {stderr[-800:]}")
nccl_text = "unknown"
if os.path.exists(probe_out):
    with open(probe_out) as f:
        nccl_text = json.loads(f.readline())["context"]["library_versions"].get("nccl", "unknown")
nccl = tuple(int(x) for x in re.findall(r"\d+", nccl_text)[:2]) or (0, 0)
# Two ranks: on two GPUs, or on one where NCCL lets ranks share it (init.cc from v2.30.3-1).
if visible >= 2:
    pair_env, pair_absent = {}, None
elif nccl >= (2, 30):
    pair_env, pair_absent = {"NCCL_MULTI_RANK_GPU_ENABLE": "1"}, None
    print(f"validate_gpu: one GPU, NCCL {nccl_text}: two ranks share it "
          "(NCCL_MULTI_RANK_GPU_ENABLE=1)")
else:
    pair_env, pair_absent = None, (f"one GPU and NCCL {nccl_text}: two ranks on one GPU need "
                                   "NCCL 2.30 or later (NCCL_MULTI_RANK_GPU_ENABLE)")
mpirun_found = subprocess.run(["sh", "-c", "command -v mpirun"], capture_output=True,
                              text=True).returncode == 0
mpi_env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               **(pair_env or {}))


def validate(label, extra, extra_env=None):
    out = os.path.join(workdir, "gpu.jsonl")
    code, stdout, stderr = run(["--coll", "all", "-d", "all", "-o", "all", "-b", "8", "-e", "1M",
                                "-f", "64", "-n", "2", "--repetitions", "2", "--json", out] + extra,
                               extra_env=extra_env)
    check(code == 0, f"{label}: exit {code}: {stderr[-1500:]}")
    if not os.path.exists(out):
        return []
    records = [json.loads(line) for line in open(out)]
    for r in records:
        if r["skipped"] is None:
            check(r["wrong"] == 0, f"{label}: {r['collective']} {r['dtype']} {r['op']} "
                                   f"{r['bytes']} B in_place={r['in_place']}: #wrong {r['wrong']}")
    measured = {(r["collective"], r["dtype"], r["op"]) for r in records if r["skipped"] is None}
    for need in [("allreduce", "half", "avg"), ("allreduce", "bfloat16", "sum"),
                 ("reduce_scatter", "float", "avg"), ("alltoall", "bfloat16", "none"),
                 ("alltoallv", "float", "none"), ("gather", "half", "none"),
                 ("scatter", "int8", "none")]:
        check(need in measured, f"{label}: {need} was not measured")
    context = records[0]["context"] if records else {}
    check(context.get("backend_settings", {}).get("graph") == ("true" if "-G" in extra else "false"),
          f"{label}: backend_settings {context.get('backend_settings')}")
    check(all(p["gpu"] and p["gpu_model"] for p in context.get("placement", [{}])),
          f"{label}: placement lacks the GPU: {context.get('placement')}")
    check({"nccl", "cuda_runtime", "cuda_driver", "gpu"} <= set(context.get("library_versions", {})),
          f"{label}: library_versions {context.get('library_versions')}")
    skips = sorted({r["skipped"] for r in records if r["skipped"] is not None})
    print(f"{label}: {len(records)} records, skips: {skips}")
    return records


plain = validate("one GPU", [])
graph = validate("one GPU, -G", ["-G"])
check(len(plain) == len(graph), "-G and plain runs measured different sets")
check(all(a["wrong"] == b["wrong"] for a, b in zip(plain, graph)), "-G validated differently")
# A non-blocking communicator finishes its groups in the background: the same results, -G too.
nonblocking = validate("one GPU, --nccl-blocking 0, -G", ["--nccl-blocking", "0", "-G"])
check(len(nonblocking) == len(plain), "--nccl-blocking 0 measured a different set")
check(all(r["context"]["backend_settings"]["nccl_blocking"] == "0" for r in nonblocking[:1]),
      "--nccl-blocking 0 is not recorded in backend_settings")

# -m 4: ops grouped four at a time still validate, and the record says 4 x -n ops per sample.
out = os.path.join(workdir, "agg.jsonl")
code, _, stderr = run(["--coll", "allreduce,allgather,alltoall", "-m", "4", "-n", "5", "-b", "8",
                       "-e", "1M", "-f", "64", "--json", out])
check(code == 0, f"-m 4: exit {code}: {stderr[-800:]}")
if os.path.exists(out):
    for r in map(json.loads, open(out)):
        check(r["wrong"] == 0 and r["ops_per_sample"] == 20, f"-m 4: {r['collective']} "
              f"{r['bytes']} B: #wrong {r['wrong']}, ops_per_sample {r['ops_per_sample']}")

# NCCL_ALGO=NVLS or PAT with every dtype and op: what NCCL has no kernel for (NVLS: 8-bit types,
# prod, avg; PAT: avg reduce_scatter) and, with two GPUs, what NCCL's own probe refuses on this
# system (NVLS without NVSwitch, PAT with two GPUs on one node) are skips with their reason; the
# rest runs and validates; nothing dies.
for algo, coll, expected in (("NVLS", "allreduce,reduce_scatter", ("int8", "sum", "nvls has no int8 sum")),
                             ("PAT", "allgather,reduce_scatter", ("float", "avg", "pat has no avg"))):
    out = os.path.join(workdir, f"algo-{algo}.jsonl")
    proc = subprocess.run([args.colltune, "run", "--backend", "nccl", "--coll", coll, "-d", "all",
                           "-o", "all", "-b", "1K", "-e", "1K", "-n", "2", "--repetitions", "2",
                           "--json", out] + (["-g", "2"] if pair_env is not None else []),
                          env=dict(env, NCCL_ALGO=algo, **(pair_env or {})),
                          capture_output=True, text=True,
                          timeout=300)
    check(proc.returncode in (0, 5), f"NCCL_ALGO={algo} -d all -o all: exit {proc.returncode}: "
                                     f"{proc.stderr[-800:]}")
    rows = [json.loads(line) for line in open(out)] if os.path.exists(out) else []
    check(rows and all((r["skipped"] is None and r["wrong"] == 0) or r["skipped"] for r in rows),
          f"NCCL_ALGO={algo}: a record neither validated nor skipped with a reason")
    dtype, op, reason = expected
    named = [r for r in rows if r["dtype"] == dtype and r.get("op") == op and
             r["collective"] == "reduce_scatter"]
    check(named and all(r["skipped"] and reason in r["skipped"] for r in named),
          f"NCCL_ALGO={algo}: {dtype} {op} reduce_scatter not skipped with '{reason}': "
          f"{[r['skipped'] for r in named]}")
    print(f"validate_gpu: NCCL_ALGO={algo}: {sum(r['skipped'] is None for r in rows)} measured, "
          f"{sum(bool(r['skipped']) for r in rows)} skipped")

# --interleave NCCL_ALGO needs 2+ ranks (NCCL's one-rank path never reads it): on one rank it is
# refused; with two, -g 2 gives each value its own 2-rank communicator.
code, _, stderr = run(["--coll", "allreduce", "--interleave", "NCCL_ALGO=Ring,Tree"], 60)
check(code == 2 and "allowed: 2 or more ranks" in stderr,
      f"--interleave NCCL_ALGO on one rank: exit {code}, {stderr[-400:]}")
if pair_env is None:
    print(f"validate_gpu: NOT CHECKED: --interleave NCCL_ALGO switching, the tuner plugin "
          f"({pair_absent})")
else:
    # --interleave NCCL_ALGO: one communicator per value, each told its value at init (NCCL's INFO
    # line per init) and validated; the launch's environment is back afterwards (context lacks it).
    out = os.path.join(workdir, "interleave.jsonl")
    proc = subprocess.run([args.colltune, "run", "--backend", "nccl", "--coll", "allreduce", "-b", "1M",
                           "-e", "1M", "-n", "5", "--repetitions", "3", "--json", out, "--interleave",
                           "NCCL_ALGO=Ring,Tree,default", "-g", "2"],
                          env=dict(env, NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="ENV,TUNING",
                                   NCCL_PROTO="Simple", **pair_env),
                          capture_output=True, text=True, timeout=300)
    log = proc.stdout + proc.stderr
    check(proc.returncode == 0, f"--interleave NCCL_ALGO: exit {proc.returncode}: {proc.stderr[-800:]}")
    told = [line.split("set by environment to ")[-1] for line in log.splitlines()
            if "NCCL_ALGO set by environment to" in line]
    # In order, once per init or more (NCCL may log it from more than one place); none for default.
    check(list(dict.fromkeys(told)) == ["Ring", "Tree"], f"--interleave NCCL_ALGO: NCCL was told {told}")
    # What NCCL chose, from its TUNING lines (rank 0 of each communicator, every op), in the
    # forms NCCL has printed: "AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE ..." (2.2x),
    # "... Bytes -> Algo 1 proto 2 ..." (older, numeric: 0 Tree, 1 Ring) and "Best tuning,
    # algorithm, RING, protocol, SIMPLE" (newer). Told is not chosen: both must appear.
    numeric = {"0": "TREE", "1": "RING", "2": "COLLNET_DIRECT", "3": "COLLNET_CHAIN", "4": "NVLS",
               "5": "NVLS_TREE", "6": "PAT"}
    pairs = re.findall(r"Bytes -> Algo (\w+) proto|Best tuning, algorithm, (\w+),", log)
    chosen = [numeric.get(name, name.upper()) for pair in pairs for name in pair if name]
    check({"RING", "TREE"} <= set(chosen),
          f"--interleave NCCL_ALGO=Ring,Tree,default: NCCL's TUNING lines chose {sorted(set(chosen))}"
          f" ({len(chosen)} lines); each of Ring and Tree must be chosen by its communicator")
    print(f"--interleave NCCL_ALGO: NCCL chose {dict((a, chosen.count(a)) for a in set(chosen))} "
          "over the run (TUNING lines)")
    # colltune's tuner plugin, loaded by NCCL: a row forcing Tree/LL at 1 MiB on this 2-rank
    # communicator is NCCL's choice there (TUNING lines), and a file for 4 ranks changes nothing.
    plugin = os.path.join(os.path.dirname(os.path.realpath(args.colltune)),
                          "libnccl-tuner-colltune.so")
    for nranks, wanted in ((2, "TREE"), (4, None)):
        tuned = os.path.join(workdir, f"tuned-{nranks}.json")
        with open(tuned, "w") as f:
            json.dump({"format": "colltune-nccl-tuned", "version": 1, "rows": [
                {"collective": "allreduce", "min_bytes": 1 << 20, "max_bytes": 1 << 20,
                 "nnodes": 1, "nranks": nranks, "algorithm": "tree", "protocol": "ll",
                 "channels": "any"}]}, f)
        proc = subprocess.run([args.colltune, "run", "--backend", "nccl", "--coll", "allreduce",
                               "-b", "1M", "-e", "1M", "-n", "5", "--repetitions", "2", "-g", "2"],
                              env=dict(env, NCCL_DEBUG="INFO", NCCL_DEBUG_SUBSYS="INIT,TUNING",
                                       NCCL_TUNER_PLUGIN=plugin, COLLTUNE_TUNER_FILE=tuned,
                                       **pair_env),
                              capture_output=True, text=True, timeout=300)
        log = proc.stdout + proc.stderr
        check(proc.returncode == 0 and "colltune tuner:" in log,
              f"tuner plugin ({nranks}-rank file): exit {proc.returncode}, loaded: "
              f"{'colltune tuner:' in log}: {log[-800:]}")
        pairs = re.findall(r"Bytes -> Algo (\w+) proto (\w+)|Best tuning, algorithm, (\w+), "
                           r"protocol, (\w+)", log)
        chosen = {numeric.get(a or c, (a or c).upper()) for a, _, c, _ in pairs}
        if wanted:
            check(chosen == {wanted} and "row 1 applied" in log,
                  f"tuner plugin: a Tree/LL row at 1 MiB, NCCL chose {sorted(chosen)}")
        else:
            check("changing nothing" in log, f"tuner plugin: a 4-rank file on 2 ranks: {log[-600:]}")
        print(f"validate_gpu: tuner plugin with a {nranks}-rank file: NCCL chose {sorted(chosen)}")
    if os.path.exists(out):
        records = [json.loads(line) for line in open(out)]
        knobs = sorted(r["in_process_knobs"]["NCCL_ALGO"] for r in records)
        check(knobs == ["Ring", "Ring", "Tree", "Tree", "default", "default"],
              f"--interleave NCCL_ALGO: records carry {knobs}")
        check(all(r["wrong"] == 0 for r in records), "--interleave NCCL_ALGO: wrong results")
        environment = records[0]["context"]["environment"] if records else {}
        check("NCCL_ALGO" not in environment and environment.get("NCCL_PROTO") == "Simple",
              f"--interleave NCCL_ALGO: the launch environment was not restored: {environment}")
        print(f"--interleave NCCL_ALGO: NCCL told {told}; busbw by setting: " + ", ".join(
            f"{r['in_process_knobs']['NCCL_ALGO']}/{'in' if r['in_place'] else 'out'} "
            f"{r.get('busbw_gbps')}" for r in records))

code, stdout, _ = run(["--coll", "allreduce", "-b", "1K", "-e", "1K", "--test-corrupt"])
check(code == 7 and "FAILED" in stdout, f"corrupted result: exit {code}")

if pair_env is not None:
    records = validate("-g 2", ["-g", "2"], pair_env)
    check(all(r["nranks"] == 2 for r in records), "-g 2: records do not say 2 ranks")
    check(len({p["gpu"] for p in records[0]["context"]["placement"]}) == min(visible, 2)
          if records else False, f"-g 2: placement does not name {min(visible, 2)} GPU(s)")
    # --split host, as health's stage 1 launches it: one host, so one communicator of both
    # GPUs from the id its first process made; validated, and the header says so.
    out = os.path.join(workdir, "split-g2.jsonl")
    code, stdout, stderr = run(["-g", "2", "--split", "host", "--coll", "allreduce,alltoall",
                                "-b", "8", "-e", "1M", "-f", "64", "--json", out], 300, pair_env)
    rs = [json.loads(line) for line in open(out)] if os.path.exists(out) else []
    check(code == 0 and "split by host: 1 communicators of 2 ranks" in stdout and rs and
          all(r["nranks"] == 2 and r["wrong"] == 0 for r in rs),
          f"-g 2 --split host: exit {code}, {len(rs)} records: {(stdout + stderr)[-800:]}")
    # Two processes over MPI, where this host has mpirun.
    if mpirun_found:
        def mpirun(colltune_args, limit_seconds=300):
            return subprocess.run(["mpirun", "--oversubscribe", "-np", "2", args.colltune] +
                                  colltune_args, env=mpi_env, capture_output=True, text=True,
                                  timeout=limit_seconds)
        out = os.path.join(workdir, "mpi2.jsonl")
        proc = mpirun(["run", "--backend", "nccl", "--coll",
                       "allreduce,alltoall,sendrecv,pingpong,alltoallv,gather,scatter",
                       "--exchange", "zipf:1", "-r", "-1", "-b", "8", "-e", "1M", "-f", "64",
                       "--json", out])
        check(proc.returncode == 0, f"mpirun -np 2 --backend nccl: exit {proc.returncode}: "
                                    f"{proc.stderr[-800:]}")
        if os.path.exists(out):
            rs = [json.loads(line) for line in open(out)]
            check(rs and all(r["nranks"] == 2 and (r["skipped"] is not None or r["wrong"] == 0)
                             for r in rs), "mpirun -np 2 --backend nccl: nranks or #wrong")
        # Skips agree over processes: PAT with two ranks on one node is NCCL's to refuse
        # (ncclPatEnable), and both ranks must write the same skip, not one of them an error.
        out = os.path.join(workdir, "mpi2-skip.jsonl")
        proc = mpirun(["run", "--backend", "nccl", "--coll", "allgather,allreduce", "-b", "1K",
                       "-e", "1K", "-n", "2", "--repetitions", "2", "--interleave",
                       "NCCL_ALGO=PAT,Ring", "--json", out])
        rs = [json.loads(line) for line in open(out)] if os.path.exists(out) else []
        pat = [r for r in rs if r["in_process_knobs"]["NCCL_ALGO"] == "PAT"]
        ring = [r for r in rs if r["in_process_knobs"]["NCCL_ALGO"] == "Ring"]
        check(proc.returncode in (0, 5) and pat and all(r["skipped"] for r in pat) and ring and
              all(r["skipped"] is None and r["wrong"] == 0 for r in ring),
              f"mpirun -np 2 --interleave NCCL_ALGO=PAT,Ring: exit {proc.returncode}, PAT "
              f"{[r['skipped'] for r in pat]}, Ring {[r['wrong'] for r in ring]}: "
              f"{proc.stderr[-600:]}")
        # verify of an nccl-plugin file: launches with the plugin beside colltune, and says that
        # NCCL loaded it and that its row is for this communicator before it measures.
        tuned = os.path.join(workdir, "tuned-2.json")
        with open(tuned, "w") as f:
            json.dump({"format": "colltune-nccl-tuned", "version": 1, "rows": [
                {"collective": "allreduce", "min_bytes": 1 << 20, "max_bytes": 1 << 20,
                 "nnodes": 1, "nranks": 2, "algorithm": "ring", "protocol": "simple",
                 "channels": "any"}]}, f)
        proc = subprocess.run([args.colltune, "verify", tuned, "--np", "2", "--rounds", "2",
                               "--results", os.path.join(workdir, "verify")], env=mpi_env,
                              capture_output=True, text=True, timeout=600)
        applied = "NCCL loaded colltune's tuner plugin: 1 of its 1 rows" in proc.stdout
        check(proc.returncode in (0, 1, 3) and applied,
              f"verify of an nccl-plugin file: exit {proc.returncode}, plugin applied: {applied}: "
              f"{(proc.stdout + proc.stderr)[-800:]}")
        print(f"validate_gpu: verify of an nccl-plugin file: exit {proc.returncode}, the plugin "
              f"applied: {applied}")
        # The NCCL abort path: rank 1 stops after its first completed op (connected, so rank 0
        # does not block on the host in NCCL's runtime connect, init.cc ~1269), rank 0's next
        # allreduce waits on its GPU; synchronize gives up at --timeout, aborts the
        # communicators (ncclCommAbort) and the job ends with 4, saying so.
        proc = mpirun(["run", "--backend", "nccl", "--coll", "allreduce", "-b", "1K", "-e", "1K",
                       "--timeout", "5", "--test-hang-rank", "1", "--test-hang-after-first-op"],
                      120)
        check(proc.returncode == 4 and
              "did not finish within 5000 ms (--timeout); communicator aborted" in proc.stderr,
              f"NCCL abort path: exit {proc.returncode}, {proc.stderr[-800:]}")
        split_hosts(mpi_env)
        # A rank that never reaches its communicator's creation: the watchdog, armed around
        # NCCL's init, ends the job with 4 naming that step (no hang).
        proc = mpirun(["run", "--backend", "nccl", "--coll", "allreduce", "-b", "1K", "-e", "1K",
                       "--timeout", "5", "--test-hang-setup-rank", "1"], 120)
        check(proc.returncode == 4 and "creating the communicators (nccl init)" in proc.stderr,
              f"a rank missing at NCCL init: exit {proc.returncode}, {proc.stderr[-800:]}")
        # MPI on GPU memory, where this Open MPI is CUDA-aware: validated like host buffers,
        # and the records say where the buffers were. Otherwise its refusal, exit 2. One GPU
        # per rank: MPI's device buffers do not share a GPU.
        if visible >= 2:
            info = subprocess.run(["ompi_info", "--parsable", "--all"], capture_output=True,
                                  text=True)
            aware = "mpi_built_with_cuda_support:value:true" in info.stdout
            out = os.path.join(workdir, "mpi-device.jsonl")
            proc = mpirun(["run", "--buffers", "device", "--coll", "allreduce,alltoall,alltoallv",
                           "--exchange", "hot:4", "-b", "8", "-e", "1M", "-f", "64", "--json",
                           out])
            if aware:
                check(proc.returncode == 0, f"--buffers device: exit {proc.returncode}: "
                                            f"{proc.stderr[-800:]}")
                rs = [json.loads(line) for line in open(out)] if os.path.exists(out) else []
                check(rs and all(r["wrong"] == 0 for r in rs if r["skipped"] is None) and
                      rs[0]["context"]["backend_settings"].get("memory") == "device" and
                      rs[0]["context"]["placement"][0]["gpu"],
                      "--buffers device: #wrong, backend_settings.memory or the placement's GPU")
            else:
                check(proc.returncode == 2 and "is not CUDA-aware" in proc.stderr,
                      f"--buffers device on an MPI without CUDA: exit {proc.returncode}")
                print("validate_gpu: NOT CHECKED: --buffers device measurements (this Open MPI "
                      "is not CUDA-aware)")
        else:
            print("validate_gpu: NOT CHECKED: mpirun -np 2 --buffers device (one GPU)")
    else:
        print("validate_gpu: NOT CHECKED: mpirun -np 2 --backend nccl, skip agreement over "
              "processes, verify of an nccl-plugin file, the NCCL abort path, a rank missing at "
              "init, --split host over two hosts (no mpirun on this host)")
else:
    # One rank: every reduction is a copy and point-to-point cannot run. Say what was not checked.
    print(f"validate_gpu: NOT CHECKED ({pair_absent}): -g 2 (two ranks in one process), the tuner "
          "plugin, mpirun -np 2 --backend nccl, reductions across ranks (one rank's are copies), "
          "sendrecv / pingpong / bw / bibw (need two ranks), verify of an nccl-plugin file, the "
          "NCCL abort path, a rank missing at init")
finish("validate_gpu")
