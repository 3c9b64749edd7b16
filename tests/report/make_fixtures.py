#!/usr/bin/env python3
"""Writes small, fixed results stores for the report tests: deterministic, so outputs can be
compared with golden files. Usage: make_fixtures.py OUTDIR"""
import hashlib
import json
import os
import random
import sys

SIZES = [1024, 65536, 1 << 20, 16 << 20]
SAMPLES = 12
ROUNDS = 3  # launches per point: decisions rest on what varies between them


def point_id(settings):
    # FNV-1a 64 over "key=value\n" in key order, as colltune computes it.
    h = 0xcbf29ce484222325
    for key in sorted(settings):
        for byte in f"{key}={settings[key]}\n".encode():
            h ^= byte
            h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def context(backend, nranks, hosts, mpi_library="Open MPI v4.1.4 (fixture)"):
    return {
        "colltune_version": "0.1.0", "git_revision": "fixture", "backend": backend,
        "start_time_utc": "2026-01-01T00:00:00Z", "command_line": ["colltune", "run"],
        "nranks": nranks, "hosts": hosts,
        "ranks_per_host": {h: nranks // len(hosts) for h in hosts},
        "placement": [{"rank": r, "host": hosts[r * len(hosts) // nranks], "cpus": str(r)}
                      for r in range(nranks)],
        "library_versions": dict({"mpi": mpi_library}, **(NCCL_VERSIONS if backend == "nccl" else {})),
        "timing": "batch",
        "cache": "warm", "warmup_iters": 5, "iters": 20, "repetitions": SAMPLES, "check_rounds": 1,
        "environment": {}}


NCCL_VERSIONS = {"nccl": "2.28.9", "cuda_runtime": "13.0", "cuda_driver": "13.0",
                 "gpu": "NVIDIA H200, 143771 MiB, sm_90 (bus 0000:1B:00.0)"}


def record(coll, size, nranks, samples, ctx, dtype="float", op="sum"):
    per_peer = coll in ("alltoall", "allgather", "reduce_scatter")
    factor = {"allreduce": 2 * (nranks - 1) / nranks}.get(coll, (nranks - 1) / nranks if per_peer else 1)
    median = sorted(samples)[len(samples) // 2]
    return {
        "schema_version": 1, "collective": coll, "dtype": dtype, "op": op if coll != "alltoall" else "none",
        "root": -1, "in_place": False, "count": size // 4 // (nranks if per_peer else 1),
        "bytes": size, "nranks": nranks, "window": None, "ops_per_sample": 20, "buffer_sets": 1,
        "skipped": None, "wrong": 0, "samples_seconds": samples, "bus_factor": factor,
        "stats_seconds": None, "algbw_gbps": size / median / 1e9, "busbw_gbps": size / median / 1e9 * factor,
        "timing": "batch", "cache": "warm", "context": ctx}


def samples(seed_text, seconds):
    # Each launch shifts all its samples alike (within 4%), and each sample moves within 2%.
    rng = random.Random(hashlib.sha256(seed_text.encode()).hexdigest())
    launch = 1 + rng.uniform(-0.04, 0.04)
    return [round(seconds * launch * (1 + rng.uniform(-0.02, 0.02)), 12) for _ in range(SAMPLES)]


def write_store(root, name, points, model, backend, nranks, hosts, failed=(), warnings=(),
                ceiling_gbps=None, device_ceiling_gbps=None, mpi_library="Open MPI v4.1.4 (fixture)"):
    os.makedirs(root, exist_ok=True)
    manifest = {"schema_version": 1, "sweep_id": os.path.basename(root), "name": name,
                "created_utc": "2026-01-01T00:00:00Z", "colltune_version": "0.1.0 (fixture)",
                "notes": [], "points": [], "launches": []}
    for settings, label, baseline in points:
        pid = point_id(settings)
        manifest["points"].append({"id": pid, "label": label, "settings": settings, "baseline": baseline})
        os.makedirs(os.path.join(root, "points", pid), exist_ok=True)
        for rnd in range(1, ROUNDS + 1):
            launch = {"point": pid, "round": rnd, "status": "done", "exit_code": 0, "signal": None,
                      "seconds": 1.0, "started_utc": "2026-01-01T00:00:00Z", "pid": 0,
                      "records": f"points/{pid}/round-{rnd}.jsonl",
                      "log": f"points/{pid}/round-{rnd}.log", "argv": ["mpirun"], "tail": []}
            launch["warnings"] = list(warnings[label]) if label in warnings else []
            if label in failed:
                launch.update(status="failed", exit_code=1, tail=failed[label])
            else:
                ctx = context(backend, nranks, hosts, mpi_library)
                ctx["environment"] = {k: v for k, v in settings.items() if k.isupper() or "_" in k and k[0].isupper()}
                with open(os.path.join(root, "points", pid, f"round-{rnd}.jsonl"), "w") as f:
                    for coll in ("allreduce", "alltoall"):
                        for size in SIZES:
                            t = model(settings, coll, size)
                            f.write(json.dumps(record(coll, size, nranks, samples(f"{name}{pid}{coll}{size}{rnd}", t), ctx)) + "\n")
            manifest["launches"].append(launch)
    with open(os.path.join(root, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
    with open(os.path.join(root, "spec.yaml"), "w") as f:
        f.write(f"name: {name}\n")
    if ceiling_gbps:
        ceilings = [{"kind": "host_memcpy", "numa": 0, "gbps": ceiling_gbps, "method": "fixture"}]
        if device_ceiling_gbps:
            ceilings.append({"kind": "device_memcpy", "gpu": 0, "gbps": device_ceiling_gbps,
                             "method": "fixture"})
        with open(os.path.join(root, "ceilings.json"), "w") as f:
            json.dump({"host": hosts[0], "ceilings": ceilings}, f)


ALG = "OMPI_MCA_coll_tuned_allreduce_algorithm"
A2A = "OMPI_MCA_coll_tuned_alltoall_algorithm"
HOSTILE = "<script>alert('x')</script>&|"


def ompi_points():
    base = {"backend": "mpi", "np": "4"}
    return [
        (base, "backend=mpi np=4 (no knob set)", True),
        (dict(base, **{ALG: "1"}), f"backend=mpi np=4 {ALG}=1", False),
        (dict(base, **{ALG: "2"}), f"backend=mpi np=4 {ALG}=2", False),
        (dict(base, **{ALG: "4"}), f"backend=mpi np=4 {ALG}=4", False),
        (dict(base, **{A2A: "5"}), f"backend=mpi np=4 {A2A}=5", False),
        (dict(base, X_HOSTILE=HOSTILE), f"backend=mpi np=4 X_HOSTILE={HOSTILE}", False),
    ]


def ompi_model(slow_alg4_at_1m=1.0):
    def model(settings, coll, size):
        if coll == "alltoall":
            t = 20e-6 + size / 2e9
            return t * (0.5 if settings.get(A2A) == "5" else 1.0)
        t = 10e-6 + size / 1e9
        alg = settings.get(ALG)
        if size >= 16 << 20:
            return t  # every algorithm alike: no winner to name here
        if alg == "2":
            t *= 0.7 if size < 65536 else 1.3
        if alg == "4":
            t *= 1.2 if size < 65536 else 0.6
            if size == 1 << 20:
                t *= slow_alg4_at_1m
        return t
    return model


def main():
    out = sys.argv[1]
    failed = {f"backend=mpi np=4 X_HOSTILE={HOSTILE}":
              ["--------", "colltune: rank 3 on node<img src=x onerror=alert(1)>: MPI_Allreduce failed"]}
    warnings = {f"backend=mpi np=4 {ALG}=2": ["ranks 0 and 1 on node1 share core(s) 0 and 0"]}
    write_store(os.path.join(out, "base"), "fixture", ompi_points(), ompi_model(), "mpi", 4, ["node1"],
                failed, warnings, ceiling_gbps=10.0)
    write_store(os.path.join(out, "slower"), "fixture", ompi_points(), ompi_model(1.3), "mpi", 4, ["node1"], failed)

    # Many configurations in one chart (16): algorithms x segment sizes, plus the baseline.
    seg = "OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize"
    many = [({"backend": "mpi", "np": "4"}, "backend=mpi np=4 (no knob set)", True)]
    for alg in ("1", "2", "3", "4", "5"):
        for size in ("0", "8192", "65536"):
            settings = {"backend": "mpi", "np": "4", ALG: alg, seg: size}
            many.append((settings, f"backend=mpi np=4 {ALG}={alg} {seg}={size}", False))

    def many_model(settings, coll, size):
        t = 10e-6 + size / 1e9
        alg = int(settings.get(ALG, "0"))
        return t * (1 + 0.07 * alg) * (1 + int(settings.get(seg, "0")) / 1e6)
    write_store(os.path.join(out, "many"), "many", many, many_model, "mpi", 4, ["node1"],
                ceiling_gbps=10.0)

    # The smallest comparison: the baseline and one knob on 2 ranks. Algorithm 3 is a quarter
    # faster from 64K up and alike below (launch noise decides nothing there).
    two_base = {"backend": "mpi", "np": "2"}
    two_alg = dict(two_base, **{ALG: "3"})

    def two_model(settings, coll, size):
        t = 5e-6 + size / 4e9
        return t * (0.75 if settings.get(ALG) == "3" and size >= 65536 else 1.0)
    write_store(os.path.join(out, "two"), "two",
                [(two_base, "backend=mpi np=2 (no knob set)", True),
                 (two_alg, f"backend=mpi np=2 {ALG}=3", False)],
                two_model, "mpi", 2, ["node1"], ceiling_gbps=10.0)

    # MPICH at 2 ranks: smp is half the time at 1 KiB, recursive doubling 40% less at 64 KiB,
    # alike elsewhere (tune --emit mpich-json writes those two ranges, MPICH's own choice around).
    mpich_alg = "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM"
    mpich_base = {"backend": "mpi", "np": "2", "MPIR_CVAR_DEVICE_COLLECTIVES": "none"}

    def mpich_model(settings, coll, size):
        t = 5e-6 + size / 4e9
        alg = settings.get(mpich_alg)
        if coll == "allreduce" and alg == "smp" and size == 1024:
            return t * 0.5
        if coll == "allreduce" and alg == "recursive_doubling" and size == 65536:
            return t * 0.6
        return t
    write_store(os.path.join(out, "mpich"), "mpich-fixture",
                [(mpich_base, "backend=mpi np=2 (no knob set)", True),
                 (dict(mpich_base, **{mpich_alg: "smp"}), f"backend=mpi np=2 {mpich_alg}=smp", False),
                 (dict(mpich_base, **{mpich_alg: "recursive_doubling"}),
                  f"backend=mpi np=2 {mpich_alg}=recursive_doubling", False)],
                mpich_model, "mpi", 2, ["node1"], mpi_library="MPICH Version:      4.0.2 (fixture)")

    # Intel MPI at 4 ranks: preset 8 is half the time at 1 KiB, preset 2 40% less from 1 MiB,
    # alike elsewhere. tune --emit env writes I_MPI_ADJUST_ALLREDUCE='8:0-65535;2': preset 2 has
    # the better mean over the four sizes, and 8 won its one size significantly.
    impi_alg = "I_MPI_ADJUST_ALLREDUCE"
    impi_base = {"backend": "mpi", "np": "4"}

    def impi_model(settings, coll, size):
        t = 5e-6 + size / 4e9
        alg = settings.get(impi_alg)
        if coll == "allreduce" and alg == "8" and size == 1024:
            return t * 0.5
        if coll == "allreduce" and alg == "2" and size >= 1 << 20:
            return t * 0.6
        return t
    write_store(os.path.join(out, "impi"), "impi-fixture",
                [(impi_base, "backend=mpi np=4 (no knob set)", True),
                 (dict(impi_base, **{impi_alg: "2"}), f"backend=mpi np=4 {impi_alg}=2", False),
                 (dict(impi_base, **{impi_alg: "8"}), f"backend=mpi np=4 {impi_alg}=8", False)],
                impi_model, "mpi", 4, ["node1"],
                mpi_library="Intel(R) MPI Library 2021.13 for Linux* OS")

    nbase = {"backend": "nccl", "np": "8"}
    ring = dict(nbase, NCCL_ALGO="Ring", NCCL_PROTO="Simple")
    # Tree wins small sizes but leaves the protocol to NCCL: no tuner row may name one for it.
    tree = dict(nbase, NCCL_ALGO="Tree")

    def nccl_model(settings, coll, size):
        t = 8e-6 + size / 100e9
        if settings.get("NCCL_ALGO") == "Tree":
            t *= 0.5 if size < 65536 else 1.4
        if settings.get("NCCL_ALGO") == "Ring":
            t *= 1.3 if size < 65536 else 0.8
        return t
    write_store(os.path.join(out, "nccl"), "nccl-fixture",
                [(nbase, "backend=nccl np=8 (no knob set)", True),
                 (ring, "backend=nccl np=8 NCCL_ALGO=Ring NCCL_PROTO=Simple", False),
                 (tree, "backend=nccl np=8 NCCL_ALGO=Tree", False)],
                nccl_model, "nccl", 8, ["gpu1"], ceiling_gbps=10.0, device_ceiling_gbps=2000.0)

    # nccl-tests -J output (its quirks: strings for booleans and root, "nan", the whole env).
    nccl_tests = {
        "version": 3, "start_time": "2026-01-01 00:00:00",
        "args": ["./build/all_reduce_perf", "-b", "8", "-e", "1M", "-f", "128", "-J", "x.json"],
        "env": ["NCCL_ALGO=Ring", "AWS_SECRET_ACCESS_KEY=do-not-copy", "NCCL_IB_TOKEN=hide-me"],
        "nccl_version": 22800,
        "config": {"nthreads": 1, "ngpus": 1, "minimum_bytes": 8, "maximum_bytes": 1048576,
                   "step_factor": 128, "warmup_iters": 1, "iterations": 20, "validation": 1,
                   "graph": 0, "blocking_collectives": "false",
                   "devices": [{"rank": r, "hostname": "gpu1"} for r in range(8)]},
        "results": [
            {"size": s, "count": s // 4, "type": "float", "redop": "sum", "root": "    -1",
             "out_of_place": {"time": t, "alg_bw": s / t / 1e3, "bus_bw": s / t / 1e3 * 1.75, "nwrong": 0.0},
             "in_place": {"time": t, "alg_bw": s / t / 1e3, "bus_bw": s / t / 1e3 * 1.75, "nwrong": 0.0},
             "actual_iterations": 20, "experiment_name": ""}
            for s, t in ((8, 20.5), (1024, 21.0), (131072, 30.25))],
        "out_of_bounds": {"count": 0, "okay": "true"},
        "average_bus_bandwidth": {"bandwidth": 1.0, "okay": "unchecked"}, "errors": [],
        "end_time": "2026-01-01 00:00:01"}
    with open(os.path.join(out, "nccl-tests.json"), "w") as f:
        json.dump(nccl_tests, f, indent=1)

    # A torn store: the last record of one launch cut in half, as a crash mid-write would.
    import shutil
    torn = os.path.join(out, "torn")
    shutil.copytree(os.path.join(out, "base"), torn)
    first = json.load(open(os.path.join(torn, "manifest.json")))["points"][0]["id"]
    path = os.path.join(torn, "points", first, "round-2.jsonl")
    text = open(path).read()
    with open(path, "w") as f:
        f.write(text[: len(text) - 200])


if __name__ == "__main__":
    main()
