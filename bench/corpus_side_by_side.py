#!/usr/bin/env python3
"""fxscope's engine beside real torch.compile on the corpus logs, on one GPU host, in one call.

    python3 bench/corpus_side_by_side.py --cli build/app/cli/fxscope-cli \\
        [--modes default,reduce-overhead] [--only a,b] [--budget-s 540] [--markdown OUT] [--json OUT]

For every log (sample_graphs/corpus/* unless named), the same compile unit (`run`'s default unit,
the same for both backends) runs twice: `fxscope-cli run LOG --mode M --json` (the engine: its
generated kernels, cuBLAS and CUDA graphs) and `fxscope-cli run LOG --backend pytorch ...` (the
log's fx_graph_runnable under torch.compile). Both time a call with CUDA events after warm-up and
every kernel with CUPTI, so the ratios compare like with like. Printed per model and mode: the
ops the engine ran, its largest relative error against eager with the tolerance its dtype sets,
engine kernel time / torch.compile kernel time and the same for a whole call, and per mode the
geometric mean over the models both backends ran. A model that fails in one backend is listed
with the reason, not dropped. Models are run one after another (never two on the GPU at once);
--budget-s stops starting new ones so a device call ends inside its limit.
"""
import argparse
import datetime
import glob
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(os.path.dirname(HERE), "sample_graphs", "corpus")


def run_json(cmd, timeout):
    """The run's JSON, or a dict with 'error' saying why there is none."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout} s"}
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"error": f"exit {done.returncode}: {tail[0][:200]}"}


def load_run(folder, name):
    """NAME's saved `run --json` output in FOLDER, or a dict with 'error' saying why there is
    none ("not run" where FOLDER has no file of that name)."""
    path = os.path.join(folder, name + ".json")
    if not os.path.exists(path):
        return {"error": "not run"}
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        return {"error": f"no saved run: {e}"}


def mode_figures(result, mode):
    """MODE's figures in one backend's result: kernel and whole-call times, the ops it ran, its
    largest relative error against the eager run with the tolerance it was held to, and a note
    (why it did not run, or that it was flagged)."""
    out = {"kernel_us": None, "total_us": None, "ops": None, "err": None, "tol": None, "note": ""}
    if "error" in result:
        out["note"] = result["error"]
        return out
    for m in result.get("modes", []):
        if m.get("mode") != mode:
            continue
        out["ops"] = (m.get("coverage") or result.get("coverage") or {}).get("text")
        out["err"], out["tol"] = m.get("max_rel_err"), m.get("tolerance")
        if m.get("error") or m.get("ran") is False:
            out["note"] = m.get("error") or "did not run"
            return out
        notes = []
        if m.get("flagged"):
            notes.append("flagged: outside tolerance")
        cleared = m.get("near_f32_reference") or 0
        if cleared and m.get("max_rel_err") is not None and m.get("tolerance"):
            # Outputs beyond the dtype's tolerance that pass torch._dynamo.utils.same's rule
            # against an f32 run of the graph are not flagged (f32_reference.h).
            notes.append(f"{cleared} outputs beyond {m['tolerance']:.2g} pass PyTorch's rule "
                         f"against the f32 run (RMS distance "
                         f"{m.get('f32_reference_distance', 0):.2g} <= 2-3 x eager's "
                         f"{m.get('eager_f32_reference_distance', 0):.2g} + "
                         f"{m['tolerance'] / 10:.2g})")
        out["note"] = "; ".join(notes)
        out["kernel_us"], out["total_us"] = m.get("kernel_us"), m.get("total_us")
        return out
    out["note"] = "mode absent"
    return out


def ratio(a, b):
    return a / b if a and b else None


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def fmt(v):
    return f"{v:.2f}" if v is not None else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--modes", default="default,reduce-overhead")
    parser.add_argument("--only", default="", help="comma-separated model names")
    parser.add_argument("--logs", nargs="*", help="log folders (default: the corpus)")
    parser.add_argument("--timeout", type=int, default=240, help="seconds per backend per model")
    parser.add_argument("--budget-s", type=float, default=0, help="start no model after this")
    parser.add_argument("--markdown", help="also write the table here")
    parser.add_argument("--json", help="also write every figure here")
    parser.add_argument("--engine-runs", help="build the table from engine runs saved here "
                        "(MODEL.json, `run --json` output) instead of running; the PyTorch "
                        "columns then say they were not run")
    parser.add_argument("--torch-runs", help="with --engine-runs: the PyTorch backend's runs "
                        "saved here (MODEL.json, `run --backend pytorch --json` output)")
    args = parser.parse_args()

    modes = args.modes.split(",")
    logs = args.logs or sorted(glob.glob(os.path.join(CORPUS, "*", "")))
    only = set(filter(None, args.only.split(",")))
    logs = [p for p in logs if not only or os.path.basename(os.path.normpath(p)) in only]
    start = time.monotonic()
    rows, skipped, torch_version = [], [], None
    for path in logs:
        name = os.path.basename(os.path.normpath(path))
        if args.budget_s and time.monotonic() - start > args.budget_s:
            skipped.append(name)
            continue
        base = [args.cli, "run", path, "--mode", ",".join(modes), "--json"]
        if args.engine_runs:
            engine = load_run(args.engine_runs, name)
            torch_run = load_run(args.torch_runs, name) if args.torch_runs else {"error": "not run"}
        else:
            engine = run_json(base, args.timeout)
            torch_run = run_json(base + ["--backend", "pytorch"], args.timeout)
        torch_version = torch_version or torch_run.get("torch_version")
        graphs = [("", engine, torch_run)]
        if engine.get("backward"):  # a training unit: its backward graph, fed the forward's saved
            graphs.append((" backward", engine["backward"], torch_run.get("backward") or {}))
        for (suffix, eng, tor), mode in [(g, m) for g in graphs for m in modes]:
            e, p = mode_figures(eng, mode), mode_figures(tor, mode)
            if e["err"] is None and not e["note"]:
                # Why there is no error: eager is the reference, or the run says why it compared
                # nothing ("default backward: not compared (eager did not run completely)").
                why = [n.split(": ", 1)[1] for n in engine.get("notes", [])
                       if n.startswith(f"{mode}{suffix}: not compared")]
                e["note"] = "the reference" if mode == "eager" else (why[0] if why else "")
            if suffix and not tor:
                p["note"] = torch_run.get("error") or "no backward"
            rows.append({"model": name, "mode": mode + suffix, "unit": engine.get("unit"),
                         "engine_kernel_us": e["kernel_us"], "engine_total_us": e["total_us"],
                         "engine_ops": e["ops"], "engine_max_rel_err": e["err"],
                         "engine_tolerance": e["tol"], "engine_note": e["note"],
                         "pytorch_kernel_us": p["kernel_us"], "pytorch_total_us": p["total_us"],
                         "pytorch_note": p["note"],
                         "kernel_ratio": ratio(e["kernel_us"], p["kernel_us"]),
                         "total_ratio": ratio(e["total_us"], p["total_us"])})
        print(f"{name}: {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)

    lines = [f"PyTorch {torch_version or '?'}, {datetime.date.today().isoformat()}, "
             f"{len({r['model'] for r in rows})} models",
             "",
             "| model | mode | engine ops run | largest error / tolerance | "
             "engine / torch.compile, kernels | whole call | notes |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        notes = "; ".join(filter(None, [r["engine_note"] and "engine: " + r["engine_note"],
                                        r["pytorch_note"] and "pytorch: " + r["pytorch_note"]]))
        err = (f"{r['engine_max_rel_err']:.2g} / {r['engine_tolerance']:.2g}"
               if r["engine_max_rel_err"] is not None and r["engine_tolerance"] else "-")
        lines.append(f"| {r['model']} | {r['mode']} | {r['engine_ops'] or '-'} | {err} | "
                     f"{fmt(r['kernel_ratio'])} | {fmt(r['total_ratio'])} | {notes} |")
    lines.append("")
    for mode in modes:
        of_mode = [r for r in rows if r["mode"] == mode]
        kr = [r["kernel_ratio"] for r in of_mode if r["kernel_ratio"]]
        tr = [r["total_ratio"] for r in of_mode if r["total_ratio"]]
        worst = max(of_mode, key=lambda r: r["kernel_ratio"] or 0, default=None)
        lines.append(f"- {mode}: geometric mean {fmt(geomean(kr))} (kernels), "
                     f"{fmt(geomean(tr))} (whole call) over {len(kr)} of {len(of_mode)} models; "
                     f"highest {fmt(worst and worst['kernel_ratio'])} ({worst and worst['model']})")
    if skipped:
        lines.append(f"- not started (time budget): {', '.join(skipped)}")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"torch_version": torch_version, "rows": rows, "skipped": skipped}, f,
                      indent=1)


if __name__ == "__main__":
    main()
