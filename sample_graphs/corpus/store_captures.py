#!/usr/bin/env python3
"""Store what run_capture.py brought back in sample_graphs/corpus/, and write manifest.json.

    python3 sample_graphs/corpus/store_captures.py RESULTS_DIR [RESULTS_DIR ...]

RESULTS_DIR holds run_capture.py's corpus_N.tar bundles and summary.json. Every capture that
summary.json calls ok and that compiled at least one graph is stored as
<name>/<log name>.zst (zstd -19) beside its expected.json, replacing an earlier capture of the
same name. manifest.json is then written from every expected.json in the corpus.
"""
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile

CORPUS = os.path.dirname(os.path.abspath(__file__))


def store(name, members):
    """Writes NAME's log (compressed) and expected.json from MEMBERS {file name: bytes}."""
    logs = [f for f in members if f.endswith(".log")]
    if len(logs) != 1:
        return f"{len(logs)} logs"
    expected = json.loads(members["expected.json"])
    if expected.get("error") or not expected.get("unique_graphs"):
        return "failed or compiled no graph"
    folder = os.path.join(CORPUS, name)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    with open(os.path.join(folder, logs[0] + ".zst"), "wb") as out:
        subprocess.run(["zstd", "-19", "-q", "-c"], input=members[logs[0]], stdout=out, check=True)
    with open(os.path.join(folder, "expected.json"), "wb") as out:
        out.write(members["expected.json"])
    return None


def unpack(results):
    with open(os.path.join(results, "summary.json")) as f:
        ok = set(json.load(f)["ok"])
    skipped = {}
    for bundle in sorted(f for f in os.listdir(results) if f.endswith(".tar")):
        with tarfile.open(os.path.join(results, bundle)) as outer:
            for packed in outer.getmembers():
                name = packed.name.removesuffix(".tar.xz")
                if name not in ok:
                    skipped[name] = "not ok in summary.json"
                    continue
                data = io.BytesIO(outer.extractfile(packed).read())
                with tarfile.open(fileobj=data, mode="r:xz") as inner:
                    members = {os.path.basename(m.name): inner.extractfile(m).read()
                               for m in inner.getmembers() if m.isfile()}
                why = store(name, members)
                if why:
                    skipped[name] = why
    return skipped


def entry(name):
    folder = os.path.join(CORPUS, name)
    with open(os.path.join(folder, "expected.json")) as f:
        expected = json.load(f)
    log = next(f for f in os.listdir(folder) if f.endswith(".log.zst"))
    config = expected["config"]
    return {
        "name": name, "family": expected["family"], "model": expected["model"],
        "about": expected["about"], "dtype": config["dtype"], "mode": config["mode"],
        "training": config["training"], "channels_last": config["channels_last"],
        "dynamic": config["dynamic"], "graph_breaks": expected["graph_breaks_total"],
        "unique_graphs": expected["unique_graphs"], "recompiles": expected["recompiles"],
        "recompile_kinds": sorted(expected["recompile_kinds"]), "log": log,
        "bytes": os.path.getsize(os.path.join(folder, log)),
    }


def write_manifest():
    names = sorted(d for d in os.listdir(CORPUS)
                   if os.path.isfile(os.path.join(CORPUS, d, "expected.json")))
    with open(os.path.join(CORPUS, "manifest.json"), "w") as f:
        json.dump({"logs": [entry(n) for n in names]}, f, indent=1)
        f.write("\n")
    return names


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for results in sys.argv[1:]:
        for name, why in sorted(unpack(results).items()):
            print(f"{name}: not stored ({why})")
    print(f"manifest.json: {len(write_manifest())} logs")


if __name__ == "__main__":
    main()
