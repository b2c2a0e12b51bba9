#!/usr/bin/env python3
"""Capture the whole corpus on one GPU machine, several captures at a time, within a deadline.

    PYTHONUNBUFFERED=1 python3 sample_graphs/corpus/run_capture.py --out DIR [--only A,B]

Each capture runs capture_corpus.py in its own process (and process group) with its own
TORCH_TRACE directory and Inductor cache, the FX graph and AOT autograd caches off, and a time
limit. The driver stops itself at --deadline seconds, packs every capture that wrote a log as
a .tar.xz (Python's lzma: the machine may lack the zstd tool), bundles them into at most
--bundles tar files of under 15 MiB directly in --out, and writes summary.json there with each
capture's outcome and, for failures, the end of its error output.
"""
import argparse
import concurrent.futures
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from corpus_table import BY_NAME, CAPTURES  # noqa: E402

BUNDLE_LIMIT = 15 << 20


def capture_env(name, work):
    env = dict(os.environ)
    env.update({
        "TORCH_TRACE": os.path.join(work, name, "trace"),
        "TORCHINDUCTOR_CACHE_DIR": os.path.join(work, name, "inductor_cache"),
        "TORCHINDUCTOR_FX_GRAPH_CACHE": "0",
        "TORCHINDUCTOR_AUTOGRAD_CACHE": "0",
        "TORCHINDUCTOR_COMPILE_THREADS": env.get("TORCHINDUCTOR_COMPILE_THREADS", "2"),
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false",
        "PYTHONUNBUFFERED": "1",
    })
    return env


def tail(path, limit=4000):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - limit))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def pack(name, work, packed):
    """NAME's trace directory (log and expected.json) and its error output's end, as .tar.xz."""
    target = os.path.join(packed, name + ".tar.xz")
    with tarfile.open(target, "w:xz", preset=6) as tar:
        trace = os.path.join(work, name, "trace")
        for entry in sorted(os.listdir(trace)):
            tar.add(os.path.join(trace, entry), arcname=f"{name}/{entry}")
        err = tail(os.path.join(work, name, "stderr.txt"), 200_000).encode()
        info = tarfile.TarInfo(f"{name}/capture.stderr.txt")
        info.size = len(err)
        tar.addfile(info, io.BytesIO(err))
    return target


def trace_logs(work, name):
    trace = os.path.join(work, name, "trace")
    if not os.path.isdir(trace):
        return []
    return [e for e in os.listdir(trace) if e.endswith(".log")]


def bundle(files, out, count):
    """First-fit of FILES (largest first) into COUNT tars under OUT; returns what did not fit."""
    bins = [[] for _ in range(count)]
    sizes = [0] * count
    left = []
    for path in sorted(files, key=os.path.getsize, reverse=True):
        size = os.path.getsize(path)
        slot = next((i for i in range(count) if sizes[i] + size + 10240 <= BUNDLE_LIMIT), None)
        if slot is None:
            left.append(os.path.basename(path))
            continue
        bins[slot].append(path)
        sizes[slot] += size + 1024
    for i, paths in enumerate(b for b in bins if b):
        with tarfile.open(os.path.join(out, f"corpus_{i}.tar"), "w") as tar:
            for path in paths:
                tar.add(path, arcname=os.path.basename(path))
    return left


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", default=os.environ.get("OUT", "/tmp/corpus_out"))
    ap.add_argument("--work", default="/tmp/corpus_work")
    ap.add_argument("--only", default="", help="comma-separated capture names (default: all)")
    ap.add_argument("--workers", type=int, default=10)
    ap.add_argument("--deadline", type=float, default=510.0, help="seconds until the driver stops")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds one capture may take")
    ap.add_argument("--bundles", type=int, default=7)
    args = ap.parse_args()
    t0 = time.time()
    names = [n for n in args.only.split(",") if n] or [c.name for c in CAPTURES]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        sys.exit(f"run_capture.py: unknown captures {unknown}")
    queue = sorted(names, key=lambda n: -BY_NAME[n].seconds)
    packed = os.path.join(args.work, "packed")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(packed)
    os.makedirs(args.out, exist_ok=True)
    script = os.path.join(HERE, "capture_corpus.py")
    running, results, packing = {}, {}, {}
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=4)

    def finish(name, outcome, proc=None):
        started = running.pop(name)[1] if name in running else t0
        err = os.path.join(args.work, name, "stderr.txt")
        logs = trace_logs(args.work, name)
        result = {"outcome": outcome, "seconds": round(time.time() - started, 1), "logs": logs}
        if proc is not None:
            result["rc"] = proc.returncode
        if logs:  # a failed capture's log comes back too, to see how far it got
            packing[name] = pool.submit(pack, name, args.work, packed)
        if outcome != "ok":
            result["stderr_tail"] = tail(err)
        results[name] = result
        print(f"[{time.time() - t0:6.1f}s] {name}: {outcome} in {result['seconds']}s", flush=True)

    while queue or running:
        now = time.time() - t0
        while queue and len(running) < args.workers and now < args.deadline - 20:
            name = queue.pop(0)
            os.makedirs(os.path.join(args.work, name, "trace"))
            err = open(os.path.join(args.work, name, "stderr.txt"), "w")
            proc = subprocess.Popen([sys.executable, script, name],
                                    env=capture_env(name, args.work), stdout=err,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            running[name] = (proc, time.time())
            print(f"[{now:6.1f}s] {name}: started", flush=True)
        if now >= args.deadline - 20 and queue:
            for name in queue:
                results[name] = {"outcome": "not started (deadline)"}
            queue = []
        for name, (proc, started) in list(running.items()):
            if proc.poll() is not None:
                ok = proc.returncode == 0 and trace_logs(args.work, name)
                finish(name, "ok" if ok else "failed", proc)
            elif time.time() - started > args.timeout or time.time() - t0 > args.deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                late = time.time() - t0 > args.deadline
                finish(name, "killed at the deadline" if late else "timed out", proc)
        time.sleep(0.5)

    for name, future in packing.items():
        try:
            future.result(timeout=max(5.0, args.deadline + 45 - (time.time() - t0)))
        except Exception as e:  # noqa: BLE001  (reported in the summary)
            results[name]["outcome"] = f"packing failed: {e}"
    files = [os.path.join(packed, f) for f in os.listdir(packed)]
    left = bundle(files, args.out, args.bundles)
    summary = {"seconds": round(time.time() - t0, 1), "captures": results, "not_returned": left,
               "ok": sorted(n for n, r in results.items() if r["outcome"] == "ok")}
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    failed = {n: r["outcome"] for n, r in results.items() if r["outcome"] != "ok"}
    print(f"done in {summary['seconds']}s: {len(summary['ok'])} ok, failed: {failed}", flush=True)


if __name__ == "__main__":
    main()
