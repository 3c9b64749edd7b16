#!/usr/bin/env python3
"""colltune push against the real Prometheus Pushgateway and Prometheus (Debian's packages) on
loopback ports: a fixture store is pushed, Prometheus scrapes the gateway, and a PromQL query
over the HTTP API returns the pushed busbw of a known point, as computed here from the store's
own samples (median time, bytes x bus factor over it). Bad URL, refused connection and timeout
exit 2, 3 and 3, the store untouched. Skipped (77) where the packages are not installed."""
import glob
import hashlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import report_harness as h
from report_harness import check

args = h.parse_args()
gateway_bin = shutil.which("prometheus-pushgateway")
prometheus_bin = shutil.which("prometheus")
if not gateway_bin or not prometheus_bin:
    print("pushgateway: skipped, prometheus and prometheus-pushgateway not installed "
          "(apt-get install prometheus prometheus-pushgateway)")
    raise SystemExit(77)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


root = h.fixtures()
work = tempfile.mkdtemp(prefix="colltune-push-")
gw_port, prom_port = free_port(), free_port()
config = os.path.join(work, "prometheus.yml")
with open(config, "w") as f:
    f.write(f"""global: {{scrape_interval: 1s}}
scrape_configs:
  - job_name: pushgateway
    honor_labels: true
    static_configs: [{{targets: ['127.0.0.1:{gw_port}']}}]
""")
procs = [subprocess.Popen([gateway_bin, f"--web.listen-address=127.0.0.1:{gw_port}"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
         subprocess.Popen([prometheus_bin, f"--config.file={config}",
                           f"--storage.tsdb.path={os.path.join(work, 'tsdb')}",
                           f"--web.listen-address=127.0.0.1:{prom_port}"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
try:
    for port in (gw_port, prom_port):
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
    store = os.path.join(root, "base")
    before = {p: hashlib.sha256(open(p, "rb").read()).hexdigest()
              for p in glob.glob(os.path.join(store, "**", "*"), recursive=True)
              if os.path.isfile(p)}
    gateway = f"http://127.0.0.1:{gw_port}"
    code, out, err = h.colltune(args, "push", store, "--gateway", gateway, "--job", "nightly")
    check(code == 0 and "push:" in out, f"push: exit {code}: {out}{err}")

    # The oracle: one point at 1 MiB, from the store's records.
    manifest = json.load(open(os.path.join(store, "manifest.json")))
    point = manifest["points"][0]["id"]
    samples, bus = [], None
    for path in glob.glob(os.path.join(store, "points", point, "round-*.jsonl")):
        for line in open(path):
            rec = json.loads(line)
            if rec["collective"] == "allreduce" and rec["bytes"] == 1 << 20 and not rec["in_place"]:
                samples += rec["samples_seconds"]
                bus = rec["bus_factor"]
    expected = (1 << 20) * bus / median(samples)
    query = (f'colltune_busbw_bytes_per_second{{job="nightly",point="{point}",'
             f'collective="allreduce",bytes="1048576",in_place="false"}}')
    url = f"http://127.0.0.1:{prom_port}/api/v1/query?" + urllib.parse.urlencode({"query": query})
    result = []
    for _ in range(60):
        answer = json.load(urllib.request.urlopen(url, timeout=5))
        result = answer.get("data", {}).get("result", [])
        if result:
            break
        time.sleep(0.5)
    check(len(result) == 1, f"PromQL {query}: {result}")
    if result:
        value = float(result[0]["value"][1])
        check(abs(value - expected) <= 1e-4 * expected,
              f"busbw from Prometheus {value} against {expected} from the store's samples")
        check(result[0]["metric"].get("host"), f"no host label: {result[0]['metric']}")
    start = json.load(urllib.request.urlopen(
        f"http://127.0.0.1:{prom_port}/api/v1/query?" +
        urllib.parse.urlencode({"query": 'colltune_run_start_time_seconds{job="nightly"}'}),
        timeout=5))["data"]["result"]
    check(len(start) == 1, f"run start time: {start}")

    # nccl-tests' -J file: its start_time is its host's local time without a zone, read in this
    # machine's (TZ). Under TZ=EST5 (UTC-5 all year) "2026-01-01 00:00:00" is 05:00 UTC.
    import calendar
    nccl_json = os.path.join(root, "nccl-tests.json")
    local = json.load(open(nccl_json))["start_time"]
    want = calendar.timegm(time.strptime(local, "%Y-%m-%d %H:%M:%S")) + 5 * 3600
    proc = subprocess.run([args.colltune, "push", nccl_json, "--gateway", gateway, "--job",
                           "nccltests"], env=dict(h.mpi_env(), TZ="EST5"), capture_output=True,
                          text=True, timeout=60)
    check(proc.returncode == 0, f"push of nccl-tests -J: exit {proc.returncode}: {proc.stderr}")
    metrics = urllib.request.urlopen(f"{gateway}/metrics", timeout=5).read().decode()
    pushed = [line for line in metrics.splitlines()
              if line.startswith("colltune_run_start_time_seconds") and 'job="nccltests"' in line]
    check(len(pushed) == 1 and abs(float(pushed[0].split()[-1]) - want) < 1,
          f"nccl-tests start time: {pushed}, want {want}")

    # The Grafana dashboard's queries, its variables set to the pushed run, answer from
    # Prometheus (every panel finds the pushed figures).
    dashboard = json.load(open(os.path.join(h.HERE, "..", "..", "configs",
                                            "grafana-colltune.json")))
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            expr = (target["expr"].replace("$job", "nightly").replace("$collective", "allreduce")
                    .replace("$host", ".*"))
            found = json.load(urllib.request.urlopen(
                f"http://127.0.0.1:{prom_port}/api/v1/query?" +
                urllib.parse.urlencode({"query": expr}), timeout=5))["data"]["result"]
            check(found, f"dashboard panel '{panel['title']}': {expr} finds nothing")

    # A health store: its verdicts as a gauge per node, beside the figures. The file is health's
    # schema (docs/health.md); the expected values are the file's own, read back by PromQL.
    health_store = os.path.join(work, "health-store")
    shutil.copytree(store, health_store)
    health_doc = {"schema_version": 1, "exit_code": 1, "nodes": [
        {"node": "n1", "verdict": "ok", "evidence": {"ratio": 1.02, "median_seconds": 0.0021}},
        {"node": "n2", "verdict": "slow", "evidence": {"ratio": 0.62, "median_seconds": 0.0034},
         "network_path": True},
        {"node": "n3", "verdict": "not judged", "evidence": None}],
        "uplinks": [{"switch": "leaf7", "slow_crossing": 6, "crossing": 93}]}
    json.dump(health_doc, open(os.path.join(health_store, "health.json"), "w"))
    code, out, err = h.colltune(args, "push", health_store, "--gateway", gateway, "--job", "health")
    check(code == 0 and "health verdicts" in out, f"push of a health store: exit {code}: {out}{err}")

    def promql(query):
        for _ in range(60):
            found = json.load(urllib.request.urlopen(
                f"http://127.0.0.1:{prom_port}/api/v1/query?" +
                urllib.parse.urlencode({"query": query}), timeout=5))["data"]["result"]
            if found:
                return found
            time.sleep(0.5)
        return []

    named = promql('colltune_health_node_named{job="health"} == 1')
    check([r["metric"]["node"] for r in named] == ["n2"], f"nodes named: {named}")
    ratio = promql('colltune_health_node_speed_ratio{job="health",node="n2"}')
    check(len(ratio) == 1 and float(ratio[0]["value"][1]) == 0.62, f"n2's ratio: {ratio}")
    verdicts = promql('colltune_health_node_verdict{job="health"}')
    check(sorted((r["metric"]["node"], r["metric"]["verdict"]) for r in verdicts) ==
          [("n1", "ok"), ("n2", "slow"), ("n3", "not judged")], f"verdicts: {verdicts}")
    pushed = urllib.request.urlopen(f"{gateway}/metrics", timeout=5).read().decode()
    figures = [line for line in pushed.splitlines() if line.startswith("colltune_health_node_seconds")]
    check(len(figures) == 2 and not any('node="n3"' in line for line in figures),
          f"a node not judged has no figure: {figures}")
    network = promql('colltune_health_node_network_path{job="health"} == 1')
    check([r["metric"]["node"] for r in network] == ["n2"], f"network paths named: {network}")
    uplink = promql('colltune_health_switch_uplink_slow_links{job="health"}')
    check([(r["metric"]["switch"], r["value"][1]) for r in uplink] == [("leaf7", "6")],
          f"uplinks named: {uplink}")
    exit_code = promql('colltune_health_exit_code{job="health"}')
    check(len(exit_code) == 1 and exit_code[0]["value"][1] == "1", f"exit code: {exit_code}")
    health_doc["nodes"][1]["evidence"]["ratio"] = "fast"
    json.dump(health_doc, open(os.path.join(health_store, "health.json"), "w"))
    code, _, err = h.colltune(args, "push", health_store, "--gateway", gateway, "--job", "health")
    check(code == 2 and "health.json: nodes[1].evidence.ratio: not readable; allowed: a finite "
          "number or null" in err, f"a bad health.json: exit {code}: {err}")

    # Bad URL, refused connection, timeout: clear errors, exit codes, nothing written.
    code, _, err = h.colltune(args, "push", store, "--gateway", "pushgateway:9091")
    check(code == 2 and "--gateway" in err, f"bad URL: exit {code}: {err}")
    closed = free_port()
    code, _, err = h.colltune(args, "push", store, "--gateway", f"http://127.0.0.1:{closed}")
    check(code == 3 and "nothing was pushed" in err, f"refused: exit {code}: {err}")
    # A gateway that accepts and never answers: a timeout, also below libcurl's millisecond
    # (1e-9 s rounded down to 0 ms would have meant no timeout, for ever).
    for timeout in ("1", "1e-9"):
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        start_s = time.monotonic()
        code, _, err = h.colltune(args, "push", store, "--gateway",
                                  f"http://127.0.0.1:{silent.getsockname()[1]}", "--timeout",
                                  timeout)
        took = time.monotonic() - start_s
        silent.close()
        check(code == 3 and "timeout" in err.lower() and took < 10,
              f"--timeout {timeout}: exit {code} after {took:.1f} s: {err}")
    # A hostile gateway: an escape sequence and a bell in a 1 MB answer. Printed as \xNN text,
    # at most 300 characters of it, never raw.
    hostile = socket.socket()
    hostile.bind(("127.0.0.1", 0))
    hostile.listen(1)

    def answer():
        conn, _ = hostile.accept()
        with conn:
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                request += chunk
            head, _, got = request.partition(b"\r\n\r\n")
            headers = head.decode(errors="replace").lower()
            length = int(headers.split("content-length:")[1].split()[0]) \
                if "content-length:" in headers else 0
            if "expect: 100-continue" in headers:
                conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            while len(got) < length:  # the whole PUT read, so that the answer is what curl sees
                chunk = conn.recv(65536)
                if not chunk:
                    break
                got += chunk
            body = b"\x1b[31mred\x07" + b"x" * 1_000_000
            conn.sendall(b"HTTP/1.1 500 Oops\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                         % len(body) + body)

    server = threading.Thread(target=answer, daemon=True)
    server.start()
    code, _, err = h.colltune(args, "push", store, "--gateway",
                              f"http://user:hunter2@127.0.0.1:{hostile.getsockname()[1]}",
                              "--timeout", "10")
    server.join(timeout=10)
    hostile.close()
    check(code == 3 and "HTTP 500" in err and "\\x1b[31mred\\x07" in err and "\x1b" not in err
          and "\x07" not in err and len(err) < 1000 and "hunter2" not in err and "***@" in err,
          f"hostile answer: exit {code}: {err[:600]!r}")
    after = {p: hashlib.sha256(open(p, "rb").read()).hexdigest()
             for p in glob.glob(os.path.join(store, "**", "*"), recursive=True)
             if os.path.isfile(p)}
    check(before == after, "push changed the store")
finally:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
    shutil.rmtree(work, ignore_errors=True)
h.finish("pushgateway")
