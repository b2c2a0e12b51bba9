#!/usr/bin/env python3
"""Side by side on one GPU: PyTorch eager and torch.compile default / reduce-overhead against
fxscope's engine backend on the logs captured from the same models (sample_graphs/).

    python3 bench/side_by_side.py --cli build/app/cli/fxscope-cli [--repeat 50] [--json OUT]

Models and inputs are those of sample_graphs/capture.py (random weights, fp32, TF32 off). PyTorch
times one call with CUDA events after warm-up (median of the repeats), the way fxscope-cli run
times its own; fxscope's figures come from
`fxscope-cli run LOG --mode eager,default,reduce-overhead --json`.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(os.path.dirname(HERE), "sample_graphs")
sys.path.insert(0, SAMPLES)
import capture  # noqa: E402  (the samples' own model definitions)

MODES = ("eager", "default", "reduce-overhead")


def models(dev):
    """name -> (model, inputs as a tuple of positional args)"""
    import torchvision

    torch.manual_seed(0)
    ids = torch.randint(0, 50257, (1, 128), device=dev)
    return {
        "residual_mlp": (capture.ResidualMLP().to(dev).eval(),
                         (torch.randn(32, 1024, device=dev),)),
        "pointwise_chain": (capture.PointwiseChain().to(dev).eval(),
                            (torch.randn(64, 65536, device=dev),)),
        "resnet50": (torchvision.models.resnet50(weights=None).to(dev).eval(),
                     (torch.randn(1, 3, 224, 224, device=dev),)),
        "gpt2_12layer": (capture.gpt2(12, dev), (ids,)),
    }


def time_calls(fn, args, repeat, warmup=10):
    with torch.no_grad():
        for _ in range(warmup):
            fn(*args)
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(repeat):
            start.record()
            fn(*args)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) * 1000.0)
    return statistics.median(times)


def torch_times(name, model, args, repeat):
    out = {"eager": time_calls(model, args, repeat)}
    for mode in ("default", "reduce-overhead"):
        torch._dynamo.reset()
        compiled = torch.compile(model, mode=None if mode == "default" else mode)
        out[mode] = time_calls(compiled, args, repeat)
    print(f"side_by_side: torch {name}: " + ", ".join(f"{m} {v:.1f} us" for m, v in out.items()),
          file=sys.stderr, flush=True)
    return out


def fxscope_times(cli, name, repeat):
    r = subprocess.run([cli, "run", os.path.join(SAMPLES, name), "--backend", "engine", "--mode",
                        ",".join(MODES), "--repeat", str(repeat), "--json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        why = (r.stderr.strip().splitlines() or ["failed"])[-1]
        print(f"side_by_side: fxscope {name}: {why}", file=sys.stderr, flush=True)
        return {}, {"error": why}
    j = json.loads(r.stdout)
    times = {m["mode"]: m["total_us"] for m in j["modes"] if m.get("ran")}
    return times, j


def fmt(x):
    return f"{x / 1000.0:.3f}" if x else "-"


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--cli", required=True, help="fxscope-cli built with CUDA")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--only", default="", help="comma-separated subset of the models")
    ap.add_argument("--json", default="", help="also write every figure here")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = capture.device()
    rows = []
    dump = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "models": {}}
    for name, (model, inputs) in models(dev).items():
        if args.only and name not in args.only.split(","):
            continue
        t = torch_times(name, model, inputs, args.repeat)
        f, raw = fxscope_times(args.cli, name, args.repeat)
        dump["models"][name] = {"torch_us": t, "fxscope_us": f, "fxscope": raw}
        for mode in MODES:
            rows.append((name, mode, t.get(mode), f.get(mode)))
            print(f"side_by_side: {name} {mode}: torch {fmt(t.get(mode))} ms, fxscope "
                  f"{fmt(f.get(mode))} ms", file=sys.stderr, flush=True)
        if args.json:  # after every model, so a run cut short keeps what it measured
            with open(args.json, "w") as out:
                json.dump(dump, out, indent=1)
    print("| model | mode | PyTorch ms | fxscope ms | fxscope / PyTorch |")
    print("| --- | --- | ---: | ---: | ---: |")
    for name, mode, t, f in rows:
        print(f"| {name} | {mode} | {fmt(t)} | {fmt(f)} | {ratio(f, t)} |")
    print(f"\n{dump['device']}, torch {dump['torch']}, fp32, TF32 off, median of {args.repeat} "
          "calls after warm-up, CUDA events around each call")


if __name__ == "__main__":
    main()
