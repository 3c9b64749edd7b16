"""The hostile table's placeholders for the gates, readers and push (cases.tsv's second list):
run files, stores and logs made from the report fixtures, each hostile in one way."""
import json
import os
import shutil


def gate_inputs(fx, files, names, path):
    """The placeholders of the gate, reader and push cases (cases.tsv's second list)."""
    with open(os.path.join(fx, "base", "manifest.json")) as f:
        launch = next(l for l in json.load(f)["launches"] if l["status"] == "done")
    with open(os.path.join(fx, "base", launch["records"])) as f:
        records = [json.loads(line) for line in f if line.strip()]

    def run_file(name, file_name, edit, folder=None):
        target = os.path.join(folder or files, file_name)
        with open(target, "w") as f:
            for rec in records:
                rec = json.loads(json.dumps(rec))
                edit(rec)
                f.write(json.dumps(rec) + "\n")
        if name:
            names[name] = target
        return target

    def skipped(rec):
        rec.update(skipped="not supported here", samples_seconds=[], rank_samples_seconds=None)

    def scaled(factor, stamp):
        def edit(rec):
            rec["samples_seconds"] = [x * factor for x in rec["samples_seconds"]]
            rec["context"]["start_time_utc"] = stamp
        return edit

    run_file("allskipped", "allskipped.jsonl", skipped)
    # Two launches a side, the candidate 2x slower on average (1x and 3x): too noisy to decide.
    for name, factor, stamp in (("aa", 1.0, "2026-01-01T00:00:00Z"), ("ab", 1.02, "2026-01-01T01:00:00Z"),
                                ("ba", 1.0, "2026-01-01T02:00:00Z"), ("bb", 3.0, "2026-01-01T03:00:00Z")):
        run_file(name, f"side-{name}.jsonl", scaled(factor, stamp))
    for name, stamps in (("skippeddir", None), ("futuredir", "2099-01-01T00:00:00Z"),
                         ("histdir", "2026-01-04T00:00:00Z")):
        folder = path(name, name)
        os.mkdir(folder)
        for night in range(1, 4):
            stamp = f"2026-01-0{night}T00:00:00Z" if night < 3 or stamps is None else stamps
            run_file(None, f"run{night}.jsonl",
                     skipped if name == "skippeddir" else scaled(1 + night / 100, stamp), folder)
    run_file("secretrun", "secret.jsonl", lambda rec: rec["context"]["environment"].update(
        {"NCCL_IB_TOKEN": "hunter2", "MY_API_KEY": "hunter2"}))
    wrong = path("wrongstore", "wrongstore")
    shutil.copytree(os.path.join(fx, "base"), wrong)
    for directory, _, file_names in os.walk(os.path.join(wrong, "points")):
        for file_name in [n for n in file_names if n.endswith(".jsonl")]:
            lines = open(os.path.join(directory, file_name)).read().splitlines()
            with open(os.path.join(directory, file_name), "w") as f:
                for line in lines:
                    f.write(json.dumps(dict(json.loads(line), wrong=123456)) + "\n")
    with open(os.path.join(fx, "nccl-tests.json")) as f:
        nccl_tests = json.load(f)
    variants = {
        "ncclempty": dict(nccl_tests, results=[]),
        "ncclokayfalse": dict(nccl_tests, out_of_bounds={"count": 9, "okay": "false"}),
        "ncclhugesize": dict(nccl_tests, results=[dict(nccl_tests["results"][0], size=2 ** 64 - 1)]),
        "ncclthreads": dict(nccl_tests, config=dict(nccl_tests["config"], nthreads=65536,
                                                     ngpus=65536)),
    }
    for name, doc in variants.items():
        with open(path(name, f"{name}.json"), "w") as f:
            json.dump(doc, f)
    with open(path("maxnoise", "maxnoise.json"), "w") as f:
        json.dump(dict(json.load(open(names["noise"])), launch_sd_log=1.0), f)
    texts = {
        "deep": ("deep.jsonl", "[" * 100000 + "]" * 100000 + "\n"),
        "deeptuned": ("deep-tuned.json", '{"format": "colltune-nccl-tuned", "version": 1, "rows": '
                      + "[" * 100000 + "]" * 100000 + "}"),
        "dupkeys": ("dupkeys.json", '{"format": "colltune-nccl-tuned", "version": 1, "rows": [], '
                    '"rows": [{"collective": "allreduce"}]}'),
        "twonodes": ("two-nodes.json", json.dumps({
            "format": "colltune-nccl-tuned", "version": 1, "rows": [{
                "collective": "allreduce", "min_bytes": 1024, "max_bytes": 65535, "nnodes": 2,
                "nranks": 4, "algorithm": "tree", "protocol": "any", "channels": "any"}]})),
        "badenv": ("bad.env", "OMPI_MCA_coll_tuned_use_dynamic_rules=1\n"
                   "OMPI_MCA_coll_tuned_allreduce_algorithm=99\n"),
        "bigcomm": ("bigcomm.rules", "1\n2\n1\n3000000000\n1\n0 0 0 0\n"),
        "blankjsonl": ("blank.jsonl", "\n\n\n"),
        "allbad": ("allbad.jsonl", "".join(json.dumps(dict(r, dtype=5)) + "\n" for r in records)),
        "longnamespec": ("longname.yaml", "name: " + "a" * 300 + "\n"),
        "ctrlaxisspec": ("ctrlaxis.yaml", 'axes:\n  NCCL_FOO: ["a\\x1b[31mb"]\n'),
        "dashhosts": ("dash-hosts.txt", "node1\n-np\n"),
        "casehosts": ("case-hosts.txt", "node1\nNODE1\n"),
    }
    for name, (file_name, text) in texts.items():
        with open(path(name, file_name), "w") as f:
            f.write(text)
    osu = os.path.join(files, "osu_allreduce.np99999999999.log")
    with open(osu, "w") as f:
        f.write("# OSU MPI Allreduce Latency Test v7.4\n# Datatype: MPI_CHAR.\n"
                "# Size       Avg Latency(us)\n4                       1.50\n")
    names["osubignp"] = osu
    fifo = path("fifo", "fifo.jsonl")
    os.mkfifo(fifo)
    names["longname"] = os.path.join(files, "n" * 300)  # past NAME_MAX (255)
    names["crlfurl"] = "http://127.0.0.1:9/\r\nX-Injected:1"  # no space: CR LF alone refuses it
