#!/usr/bin/env python3
"""Builds the cost model's fit data set: every planned kernel of the engine runs' units, with the
features fxscope computes from the log beside the time the engine measured.

    tools/cost_fit/extract_kernels.py --cli build/app/cli/fxscope-cli \
        --runs /tmp/runs5/runs --out tests/data/cost_fit/h100

For each run JSON (`fxscope-cli run --backend engine --json` of a corpus log; the log is
sample_graphs/corpus/<file stem>), each mode it ran (forward, and backward where it has one) is
planned again by `fxscope-cli fuse --json` in that mode, and each planned group is joined to the
kernels the run timed on exactly the group's post-grad nodes (the engine runs fxscope's own plan,
so a group's kernels carry its nodes: a generated kernel, or a library's kernels for an extern
group). Writes OUT_kernels.csv.gz (one row a planned group; `measured_us` empty where no kernel ran
its nodes; gzip-compressed) and OUT_totals.csv (one row a graph and mode: the run's CUPTI kernel time).
Re-run it when new runs arrive; it reads nothing but the runs, the corpus and the CLI.
`--exclude-kernel PREFIX` (repeatable) leaves the kernels whose name starts with PREFIX out of
every group's time and every graph's total: for runs where the engine launched a helper kernel
in a way that times the engine's fault, not the work (a dense copy on one block).

    tools/cost_fit/extract_kernels.py --cli build/app/cli/fxscope-cli \
        --augment tests/data/cost_fit/h100

plans the units of an existing data set again and fills in the columns the plan gives without a
run (`shape`, the shape class of convolutions and attention; `flops`, as today's plan counts them),
joining each row to the planned group of its log, unit, mode, graph and name; a group the plan no
longer forms keeps no shape and its FLOPs.
"""
import argparse
import csv
import gzip
import io
import json
import os
import subprocess
import sys
from collections import defaultdict

MODES = ["eager", "default", "reduce-overhead", "max-autotune"]
KERNEL_FIELDS = ["log", "unit", "mode", "graph", "group", "kind", "kernel_class", "precision",
                 "bytes", "flops", "alu_slots", "numel", "rnumel", "shape", "measured_us",
                 "kernels"]
TOTAL_FIELDS = ["log", "unit", "mode", "graph", "device", "kernel_us", "matched_us", "groups",
                "matched_groups"]


def fuse(cli, log_dir, unit, mode):
    out = subprocess.run([cli, "fuse", log_dir, "--unit", unit, "--mode", mode, "--json"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{log_dir}: fuse --mode {mode}: {out.stderr.strip()}")
    units = json.loads(out.stdout)["units"]
    if len(units) != 1:
        raise RuntimeError(f"{log_dir}: fuse --unit {unit}: expected one unit")
    return units[0]["groups"]


def graphs_in_order(groups):
    """The unit's post-grad graphs in plan order: the forward graph first, then the backward."""
    order = []
    for g in groups:
        if g["graph"] not in order:
            order.append(g["graph"])
    return order


def join(groups, run_mode):
    """Measured time per group: the run's kernels whose node set is exactly the group's."""
    by_nodes = defaultdict(list)
    for k in run_mode["kernels"]:
        if k.get("nodes"):
            by_nodes[tuple(sorted(k["nodes"]))].append(k)
    # Groups with equal node sets (a split reduction's two passes) share their kernels in turn.
    holders = defaultdict(list)
    for i, g in enumerate(groups):
        holders[tuple(sorted(g["nodes"]))].append(i)
    measured = [None] * len(groups)
    count = [0] * len(groups)
    for key, idxs in holders.items():
        kernels = by_nodes.get(key, [])
        if not kernels:
            continue
        if len(idxs) == 1:
            measured[idxs[0]] = sum(k["us"] for k in kernels)
            count[idxs[0]] = len(kernels)
            continue
        # A kernel names its group ("fx_<group>_g<index>" or the group label): match by name.
        for i in idxs:
            mine = [k for k in kernels if groups[i]["name"] in (k["group"],)]
            if len(mine) == 1:
                measured[i] = mine[0]["us"]
                count[i] = 1
    return measured, count


def exclude(run, prefixes, excluded):
    """Drops the kernels named by PREFIXES from each mode of RUN, and their time from its total."""
    modes = list(run.get("modes", []))
    if run.get("backward"):
        modes += run["backward"].get("modes", [])
    for m in modes:
        gone = [k for k in m.get("kernels", []) if k["name"].startswith(prefixes)]
        if not gone:
            continue
        m["kernels"] = [k for k in m["kernels"] if not k["name"].startswith(prefixes)]
        m["kernel_us"] -= sum(k["us"] for k in gone)
        excluded[0] += len(gone)
        excluded[1] += sum(k["us"] for k in gone)


def write_csv(path, fields, data):
    text = io.StringIO()
    w = csv.DictWriter(text, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows(data)
    raw = text.getvalue().encode()
    with open(path, "wb") as f:
        # mtime 0: the same rows give the same bytes, so a re-run shows no change in git.
        f.write(gzip.compress(raw, 9, mtime=0) if path.endswith(".gz") else raw)


def augment(cli, corpus, prefix, logs=None):
    """Fills the plan-only columns of PREFIX_kernels.csv.gz from today's plans of its units (of
    LOGS only, where given)."""
    with gzip.open(prefix + "_kernels.csv.gz", "rt") as f:
        rows = list(csv.DictReader(f))
    filled = 0
    plan_key, by_name, seen = None, {}, defaultdict(int)
    for r in rows:
        if logs and r["log"] not in logs:
            continue
        key = (r["log"], r["unit"], r["mode"])
        if key != plan_key:  # rows come a unit and mode at a time, in plan order
            try:
                groups = fuse(cli, os.path.join(corpus, r["log"]), r["unit"], r["mode"])
            except RuntimeError as e:
                print(e, file=sys.stderr)
                groups = []
            order = graphs_in_order(groups)
            plan_key, by_name, seen = key, defaultdict(list), defaultdict(int)
            for g in groups:
                side = "forward" if g["graph"] == order[0] else "backward"
                by_name[(side, g["name"])].append(g)
        # Eager groups share their op's name: the k-th row of a name is the k-th group of it.
        name = (r["graph"], r["group"])
        same = by_name.get(name, [])
        k = seen[name]
        seen[name] += 1
        r["shape"] = same[k].get("shape", "") if k < len(same) else ""
        if k < len(same):  # a row the plan no longer forms keeps the FLOPs it was run with
            r["flops"] = "%.0f" % same[k]["flops"]
            # Slots only from the same kernel: a group of the row's name that moves other bytes
            # is one the plan forms otherwise today, not the one that ran.
            if float(r["bytes"]) == same[k]["bytes"]:
                r["alu_slots"] = "%.0f" % same[k]["alu_slots"]
        filled += k < len(same)
    write_csv(prefix + "_kernels.csv.gz", KERNEL_FIELDS, rows)
    planned = sum(1 for r in rows if not logs or r["log"] in logs)
    print(f"{filled} of {planned} rows joined to a planned group", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cli", required=True, help="fxscope-cli")
    ap.add_argument("--runs", help="folder of engine run JSONs")
    ap.add_argument("--corpus", default="sample_graphs/corpus")
    ap.add_argument("--out", help="output prefix: PREFIX_kernels.csv.gz, PREFIX_totals.csv")
    ap.add_argument("--exclude-kernel", action="append", default=[], metavar="PREFIX",
                    help="leave out the run's kernels whose name starts with PREFIX")
    ap.add_argument("--augment", metavar="PREFIX",
                    help="fill the plan-only columns of an existing PREFIX_kernels.csv.gz")
    ap.add_argument("--log", action="append", default=[], metavar="NAME",
                    help="with --augment: plan only the rows of log NAME again")
    args = ap.parse_args()
    if args.augment:
        augment(args.cli, args.corpus, args.augment, set(args.log))
        return
    if not args.runs or not args.out:
        ap.error("--runs and --out are required unless --augment is given")
    rows, totals = [], []
    excluded = [0, 0.0]
    for name in sorted(os.listdir(args.runs)):
        if not name.endswith(".json"):
            continue
        stem = name[:-5]
        log_dir = os.path.join(args.corpus, stem)
        if not os.path.isdir(log_dir):
            print(f"{name}: no log {log_dir}, skipped", file=sys.stderr)
            continue
        with open(os.path.join(args.runs, name)) as f:
            run = json.load(f)
        if run.get("backend") != "engine":
            print(f"{name}: backend {run.get('backend')}, not engine: skipped", file=sys.stderr)
            continue
        unit = run["unit"]
        if args.exclude_kernel:
            exclude(run, tuple(args.exclude_kernel), excluded)
        sides = [("forward", run.get("modes", []))]
        if run.get("backward"):
            sides.append(("backward", run["backward"].get("modes", [])))
        for mode in MODES:
            plan = None
            for side, modes in sides:
                m = next((m for m in modes if m["mode"] == mode), None)
                if m is None or not m.get("ran"):
                    continue
                if plan is None:
                    try:
                        plan = fuse(args.cli, log_dir, unit, mode)
                    except RuntimeError as e:
                        print(e, file=sys.stderr)
                        break
                order = graphs_in_order(plan)
                index = 0 if side == "forward" else 1
                if index >= len(order):
                    print(f"{name} {mode}: the plan has no {side} graph", file=sys.stderr)
                    continue
                groups = [g for g in plan if g["graph"] == order[index]]
                measured, count = join(groups, m)
                for g, us, n in zip(groups, measured, count):
                    rows.append({
                        "log": stem, "unit": unit, "mode": mode, "graph": side,
                        "group": g["name"], "kind": g["kind"],
                        "kernel_class": g.get("kernel_class", ""),
                        "precision": g.get("precision", ""),
                        "bytes": "%.0f" % g["bytes"], "flops": "%.0f" % g["flops"],
                        "alu_slots": "%.0f" % g.get("alu_slots", 0),
                        "numel": g["numel"], "rnumel": g["rnumel"],
                        "shape": g.get("shape", ""),
                        "measured_us": "" if us is None else "%.3f" % us, "kernels": n})
                totals.append({
                    "log": stem, "unit": unit, "mode": mode, "graph": side,
                    "device": run.get("device", ""), "kernel_us": "%.3f" % m["kernel_us"],
                    "matched_us": "%.3f" % sum(u for u in measured if u is not None),
                    "groups": len(groups),
                    "matched_groups": sum(1 for u in measured if u is not None)})
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    write_csv(args.out + "_kernels.csv.gz", KERNEL_FIELDS, rows)
    write_csv(args.out + "_totals.csv", TOTAL_FIELDS, totals)
    if args.exclude_kernel:
        print(f"left out {excluded[0]} kernels, {excluded[1]:.0f} us", file=sys.stderr)
    matched = sum(1 for r in rows if r["measured_us"])
    print(f"{len(rows)} planned kernels, {matched} measured, {len(totals)} graph-modes",
          file=sys.stderr)


if __name__ == "__main__":
    main()
