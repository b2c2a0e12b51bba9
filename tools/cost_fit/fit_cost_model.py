#!/usr/bin/env python3
"""Fits the cost model's per-class efficiency curves to measured kernels (pure Python, no numpy).

    tools/cost_fit/fit_cost_model.py tests/data/cost_fit/h100 \
        --out engine/cost/data/calibration_h100.json

Reads PREFIX_kernels.csv.gz (tools/cost_fit/extract_kernels.py). Each kernel class, and each
precision of the tensor-core classes (GEMM, convolution, attention) where it has enough kernels,
gets time = latency + max(bytes / (m x peak bandwidth), FLOPs / (c x peak FLOP/s), issue slots /
(i x issue rate)), with latency, m, c and i chosen to minimise the squared log error over the
training logs. Training logs are every other log of the sorted list of logs (the first, third
...); the others are held out, for bench_cost_fit and the test to check the fit against.
"""
import argparse
import csv
import gzip
import json
import math
import sys
from collections import defaultdict

# The peaks the fit divides by: engine/cost/device_spec.cpp's H100 (NVIDIA H100 SXM datasheet).
H100 = {"bw_gbs": 3350.0, "fp32": 67.0, "tf32": 495.0, "bf16": 989.0}
TENSOR_CLASSES = {"gemm", "conv", "grouped_conv", "attention"}
DENSE_CLASSES = {"gemm", "conv", "attention"}
MIN_SAMPLES = 40
# Above 1: kernels whose bytes stay in L2 (50 MB on an H100) outrun the HBM peak.
MAX_EFFICIENCY = 2.0


def peak_us(row, spec=H100):
    """(bytes, FLOPs, issue slots) each in us at the device's peak rate, as roofline.cpp counts."""
    cls, prec = row["kernel_class"], row["precision"]
    flops_peak = spec["fp32"]
    if cls in TENSOR_CLASSES:
        if prec in ("bf16", "fp16"):
            flops_peak = spec["bf16"]
        elif prec == "tf32":
            flops_peak = spec["tf32"]
        elif prec == "fp64":
            flops_peak = spec["fp32"] / 2
    return (float(row["bytes"]) / (spec["bw_gbs"] * 1e3),
            float(row["flops"]) / (flops_peak * 1e6),
            float(row["alu_slots"]) / (spec["fp32"] * 1e6 / 2))


def predict(params, peaks, additive=False):
    lat, m, c, i = params
    mem, flop, issue = peaks
    terms = (mem / m if m > 0 else 0, flop / c if c > 0 else 0, issue / i if i > 0 else 0)
    return lat + (terms[0] + max(terms[1], terms[2]) if additive else max(terms))


def loss(params, samples, additive=False):
    total = 0.0
    for peaks, measured in samples:
        p = predict(params, peaks, additive)
        total += math.log(max(p, 1e-3) / measured) ** 2
    return total


def nelder_mead(f, x0, steps, iters=400):
    n = len(x0)
    pts = [list(x0)]
    for k in range(n):
        p = list(x0)
        p[k] += steps[k]
        pts.append(p)
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda k: vals[k])
        pts = [pts[k] for k in order]
        vals = [vals[k] for k in order]
        centroid = [sum(p[d] for p in pts[:-1]) / n for d in range(n)]
        worst = pts[-1]
        refl = [centroid[d] + (centroid[d] - worst[d]) for d in range(n)]
        fr = f(refl)
        if fr < vals[0]:
            exp = [centroid[d] + 2 * (centroid[d] - worst[d]) for d in range(n)]
            fe = f(exp)
            pts[-1], vals[-1] = (exp, fe) if fe < fr else (refl, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = refl, fr
        else:
            con = [centroid[d] + 0.5 * (worst[d] - centroid[d]) for d in range(n)]
            fc = f(con)
            if fc < vals[-1]:
                pts[-1], vals[-1] = con, fc
            else:
                for k in range(1, n + 1):
                    pts[k] = [pts[0][d] + 0.5 * (pts[k][d] - pts[0][d]) for d in range(n)]
                    vals[k] = f(pts[k])
    best = min(range(n + 1), key=lambda k: vals[k])
    return pts[best], vals[best]


def fit_curve(samples, uses, additive):
    """Fits log(latency) and log(efficiency) of the terms USES (mem, flop, issue) names."""
    def unpack(x):
        lat = math.exp(x[0])
        effs = []
        k = 1
        for used in uses:
            if used:
                effs.append(min(MAX_EFFICIENCY, math.exp(x[k])))
                k += 1
            else:
                effs.append(0.0)
        return [lat] + effs

    med = sorted(m for _, m in samples)[len(samples) // 2]
    x0 = [math.log(max(0.5, med / 2))] + [math.log(0.5)] * sum(uses)
    best = None
    for start_lat in (x0[0], math.log(1.0), math.log(3.0)):
        x, v = nelder_mead(lambda x: loss(unpack(x), samples, additive), [start_lat] + x0[1:],
                           [0.5] * len(x0), iters=300)
        if best is None or v < best[1]:
            best = (x, v)
    x, v = nelder_mead(lambda x: loss(unpack(x), samples, additive), best[0], [0.2] * len(x0),
                       iters=300)
    return unpack(x), v


def read_rows(prefix):
    with gzip.open(prefix + "_kernels.csv.gz", "rt") as f:
        return list(csv.DictReader(f))


def split(rows):
    logs = sorted({r["log"] for r in rows})
    train = set(logs[0::2])
    return train, set(logs) - train


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("prefix", help="PREFIX of PREFIX_kernels.csv.gz")
    ap.add_argument("--out", required=True)
    ap.add_argument("--measured-on", default="NVIDIA H100 80GB HBM3")
    args = ap.parse_args()
    rows = read_rows(args.prefix)
    train, _ = split(rows)
    buckets = defaultdict(list)
    for r in rows:
        if r["log"] not in train or not r["measured_us"] or float(r["measured_us"]) <= 0:
            continue
        sample = (peak_us(r), float(r["measured_us"]))
        buckets[(r["kernel_class"], "any")].append(sample)
        if r["kernel_class"] in TENSOR_CLASSES:
            buckets[(r["kernel_class"], r["precision"])].append(sample)
    curves = []
    for (cls, prec), samples in sorted(buckets.items()):
        if len(samples) < MIN_SAMPLES:
            continue
        tensor = cls in TENSOR_CLASSES
        uses = (True, tensor, not tensor)
        # Overlapped (max) or in turn (sum): whichever fits the class better. Dense GEMMs and
        # convolutions overlap their loads with their math, and a sum would let the many tiny
        # convolutions drag the FLOP rate of the large ones down.
        combines = (False,) if cls in DENSE_CLASSES else (False, True)
        fits = [(fit_curve(samples, uses, additive), additive) for additive in combines]
        ((lat, m, c, i), _), additive = min(fits, key=lambda f: f[0][1])
        errs = sorted(max(predict((lat, m, c, i), p, additive) / t,
                          t / predict((lat, m, c, i), p, additive)) for p, t in samples)
        curves.append({"class": cls, "precision": prec, "latency_us": round(lat, 4),
                       "memory_efficiency": round(m, 4), "compute_efficiency": round(c, 4),
                       "issue_efficiency": round(i, 4),
                       "combine": "sum" if additive else "max", "samples": len(samples),
                       "train_median_error": round(errs[len(errs) // 2], 3),
                       "train_p90_error": round(errs[int(0.9 * (len(errs) - 1))], 3)})
        print(f"{cls:22} {prec:5} {'sum' if additive else 'max'} n={len(samples):6} "
              f"lat={lat:7.3f} mem={m:.3f} "
              f"flop={c:.3f} issue={i:.3f} median x{errs[len(errs)//2]:.2f} "
              f"p90 x{errs[int(0.9*(len(errs)-1))]:.2f}", file=sys.stderr)
    out = {"measured_on": args.measured_on, "device_spec": "H100",
           "source": "tools/cost_fit/fit_cost_model.py on " + args.prefix +
                     "_kernels.csv.gz (engine backend, CUPTI kernel times), training logs: every "
                     "other log by name, from the first",
           "training_logs": sorted(train), "curves": curves}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
