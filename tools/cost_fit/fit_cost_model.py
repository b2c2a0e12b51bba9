#!/usr/bin/env python3
"""Fits the cost model's per-class efficiency curves to measured kernels (pure Python, no numpy).

    tools/cost_fit/fit_cost_model.py tests/data/cost_fit/h100 --device H100 \
        --out engine/cost/data/calibration_h100.json [--held-out-report]

Reads PREFIX_kernels.csv.gz and PREFIX_totals.csv (tools/cost_fit/extract_kernels.py; PREFIX
names the device's data set, tests/data/cost_fit/<device>). Each kernel class, each precision of
the tensor-core classes (GEMM, convolution), and within GEMMs, convolutions, attention and
reductions each prefix of the kernels' shape class (`shape`: "fwd", "fwd/cl", "fwd/cl/3x3" ...,
"r<=128", "r<=128/rows<64k/outer", "template", engine/report/kernel_shape.cpp), where it has
enough kernels, gets time = latency + max(bytes / (m x peak bandwidth), FLOPs / (c x peak
FLOP/s), issue slots / (i x issue rate)), with latency, m, c and i chosen to minimise the squared
log error over the training logs; a shape prefix's curve is held toward its parent's
(PRIOR_WEIGHT; its saturating rows, where it has them, start at the parent's but are free), except a pass's or a GEMM's kernel's (is_pass), fitted free, and a one-thread-a-row
reduction's (is_thread), fitted free with `saturating_rows`, below which its bytes take
saturating_rows / rows as long. Attention's FLOPs
are shares of the fp32 peak in any precision (CUDA_CORE_CLASSES). Training logs are every other
log of the sorted list of logs (the first, third ...); the others are held out, for
bench_cost_fit and the test to check the fit against, and for --held-out-report, which prints
where the curves miss on them.
"""
import argparse
import csv
import gzip
import json
import math
import sys
from collections import defaultdict

# The peaks the fit divides by: engine/cost/device_spec.cpp's (the NVIDIA H100 SXM and H200
# datasheets); the calibration names the device, and the engine applies its shares to it.
DEVICES = {"H100": {"bw_gbs": 3350.0, "fp32": 67.0, "tf32": 495.0, "bf16": 989.0, "l2_mb": 50.0},
           "H200": {"bw_gbs": 4800.0, "fp32": 67.0, "tf32": 495.0, "bf16": 989.0, "l2_mb": 60.0}}
# The share of peak bandwidth a streaming kernel reaches (device_spec.cpp's memory_efficiency):
# the bytes of a kernel beyond what L2 holds come from HBM no faster, whatever a curve's share.
HBM_EFFICIENCY = 0.85
H100 = DEVICES["H100"]
TENSOR_CLASSES = {"gemm", "conv", "grouped_conv", "attention"}
DENSE_CLASSES = {"gemm", "conv", "attention"}
# Tensor-core classes whose fitted curves divide FLOPs by the fp32 (CUDA-core) peak whatever the
# precision (roofline.cpp's price_calibrated): the engine's attention kernel takes as long in bf16
# as in fp32 at the same FLOPs (33.6 MFLOP forward: 40 us in fp32, bf16 and fp16 alike).
# Their curves are fitted to all precisions together.
CUDA_CORE_CLASSES = {"attention"}
# Classes whose kernels carry a shape class: the library picks its kernel by shape, a GEMM is
# cuBLAS's or a template; a reduction's block shape follows its width and rows, its coalescing
# how the reduced axis lies in memory.
SHAPED_CLASSES = {"conv", "grouped_conv", "attention", "gemm", "reduction",
                  "persistent_reduction"}
MIN_SAMPLES = 40
# A catch-all of unrelated kernels (sort, top-k, a histogram, a grouped GEMM's fallback): one
# curve fits none of them (Mixtral's held out 2.9x median, 47x p90), so they keep the datasheet
# roofline.
UNFITTED_CLASSES = {"other"}
# Scalars the host computes (a symbolic size, an assert of one): no kernel, priced at nothing.
HOST_CLASS = "host"
# A shape bucket has fewer free shapes than a whole class; below this it takes its parent's curve.
MIN_SHAPE_SAMPLES = 30
# A shape bucket's curve is drawn toward its parent's (the next shorter prefix with a curve): each
# parameter's squared log distance from the parent's weighs as much as this many kernels' squared
# log errors. A bucket's kernels span a narrow range of sizes; unheld, its fit would price the
# sizes it lacks (a large 3x3 convolution in a bucket of 1x1s) at any rate that fits the others.
PRIOR_WEIGHT = 5.0
# A convolution's and attention's shape starts with the pass ("fwd", "bwd", "bwd_w"), a GEMM's is
# the kernel ("template", max-autotune's; "library", cuBLAS's): another kernel, not another size,
# whose kernels a size bucket's threshold would leave to the class curve. It is fitted free, as a
# class is: held toward the forward's curve, the attention backward's (a fixed ~29 us, then an
# eighth of the forward's FLOP rate) would price its training kernels at 1.4x under their time
# and the held-out ones at 1.5x.
MIN_PASS_SAMPLES = 15
# The classes whose shape class starts with the pass or the kernel (kernel_shape.cpp).
PASS_CLASSES = {"conv", "grouped_conv", "attention", "gemm"}
# Above 1: kernels whose bytes stay in L2 (50 MB on an H100) outrun the HBM peak.
MAX_EFFICIENCY = 2.0
# The last component of a reduction's shape where the engine's kernel runs one thread a row
# (kernel_shape.cpp): each thread walks its row's elements one after another, so the kernel
# reaches its bandwidth only with enough rows in flight. Its curve fits `saturating_rows`, the
# rows at which it does (Little's law: below them the bytes take saturating_rows / rows as long),
# and is fitted free, as a pass is: the parent's kernels are another launch.
THREAD_COMPONENT = "thread"
# Classes whose kernels tile their output over the device: a convolution with few output
# elements fills few thread blocks, each walking its whole reduction (input channels x window)
# in turn, so its rate falls with its output below saturating_rows (DenseNet's 1x1 convolutions
# over 12,544 and 50,176 outputs of 800 input channels take 35 us alike).
ROWS_CLASSES = {"conv", "grouped_conv"}
# A root curve of ROWS_CLASSES (a class and precision, a pass) follows its rows only where that
# fits the training kernels this much better (loss without / loss with), and only within one
# precision: cuDNN's tensor-core kernels split a long reduction over blocks of their own, so a
# curve over all precisions that follows the rows of fp32's would price bf16's wrongly, and a
# term the data does not ask for only moves the fit into a worse minimum for the sizes it lacks.
ROWS_GAIN = 1.25
# A looped reduction (Inductor's triton_red) issues the elementwise work before its reduction as a
# pointwise kernel does, so its issue rate is held no lower than the pointwise class's. The
# training logs' looped reductions are not ALU-bound (their slots term does not bind), so fitted
# alone their issue rate follows their bytes term (0.32 of the pointwise class's), at which an
# ALU-heavy one (pointwise_chain's sin, tanh, sigmoid and exp before a var_mean, 24 us measured)
# is priced at 54 us; held, at 18.5 us, with the held-out figures unchanged. The persistent
# reductions' issue rate is left free: on their training kernels it binds (held, the held-out
# totals within 15% fall from 101 to 95 of 127).
ISSUE_FLOOR_CLASSES = {"reduction"}


def is_thread(shape):
    return shape == THREAD_COMPONENT or shape.endswith("/" + THREAD_COMPONENT)


def is_pass(cls, shape):
    """Whether SHAPE is a pass or kernel of its class (conv's and attention's "fwd", "bwd",
    "bwd_w", a GEMM's "template"): another kernel, fitted free as a class is."""
    return cls in PASS_CLASSES and bool(shape) and "/" not in shape


def shape_prefixes(shape):
    """"fwd/cl/3x3" -> ["", "fwd", "fwd/cl", "fwd/cl/3x3"]: every curve that may price it."""
    parts = shape.split("/") if shape else []
    return ["/".join(parts[:k]) for k in range(len(parts) + 1)]


def peak_us(row, spec=H100):
    """(bytes, FLOPs, issue slots) each in us at the device's peak rate, as roofline.cpp counts,
    and the kernel's rows (its output elements)."""
    cls, prec = row["kernel_class"], row["precision"]
    flops_peak = spec["fp32"]
    if cls in TENSOR_CLASSES and cls not in CUDA_CORE_CLASSES:
        if prec in ("bf16", "fp16"):
            flops_peak = spec["bf16"]
        elif prec == "tf32":
            flops_peak = spec["tf32"]
        elif prec == "fp64":
            flops_peak = spec["fp32"] / 2
    return (float(row["bytes"]) / (spec["bw_gbs"] * 1e3),
            float(row["flops"]) / (flops_peak * 1e6),
            float(row["alu_slots"]) / (spec["fp32"] * 1e6 / 2),
            max(1.0, float(row.get("numel") or 1)),
            max(0.0, float(row["bytes"]) - spec["l2_mb"] * 1e6) / (spec["bw_gbs"] * 1e3))


def predict(params, peaks, additive=False):
    lat, m, c, i = params[:4]
    saturating = params[4] if len(params) > 4 else 0.0
    mem, flop, issue, rows, beyond_l2 = peaks
    # Below the saturating rows the device is not full: every rate falls with the rows.
    under = max(1.0, saturating / rows)
    # A share above 1 (bytes that stayed in L2) does not speed up the bytes L2 cannot hold.
    terms = (max(mem * under / m if m > 0 else 0, beyond_l2 / HBM_EFFICIENCY),
             flop * under / c if c > 0 else 0,
             issue * under / i if i > 0 else 0)
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


def fit_curve(samples, uses, additive, prior=None, rows=False, issue_floor=0.0):
    """Fits log(latency) and log(efficiency) of the terms USES (mem, flop, issue) names, and
    where ROWS log(saturating rows); PRIOR, the parent's (latency, m, c, i), holds each toward
    its own (PRIOR_WEIGHT); the issue efficiency is at least ISSUE_FLOOR."""
    def unpack(x):
        lat = math.exp(x[0])
        effs = []
        k = 1
        for term, used in enumerate(uses):
            if used:
                eff = min(MAX_EFFICIENCY, math.exp(x[k]))
                effs.append(max(issue_floor, eff) if term == 2 else eff)
                k += 1
            else:
                effs.append(0.0)
        return [lat] + effs + ([math.exp(x[k])] if rows else [])

    med = sorted(m for _, m in samples)[len(samples) // 2]
    x0 = [math.log(max(0.5, med / 2))] + [math.log(0.5)] * sum(uses)
    if rows:
        x0.append(math.log(4096.0))
    anchor = None
    if prior:
        anchor = [math.log(max(prior[0], 1e-3))] + [
            math.log(max(min(p, MAX_EFFICIENCY), 1e-4)) for p, used in zip(prior[1:4], uses) if used]
        if rows:
            anchor.append(math.log(max(prior[4] if len(prior) > 4 else 4096.0, 1.0)))
        x0 = list(anchor)

    def objective(x):
        if anchor is None:
            return loss(unpack(x), samples, additive)
        # The saturating rows start at the parent's but are free: how many outputs fill the
        # device follows the bucket's own kernel (its tile, its window), which is what a shape
        # bucket tells apart; held, a 3x3 bucket would keep the rows of its parent's 1x1s.
        rates = 1 + sum(uses)
        held = PRIOR_WEIGHT * sum((a - b) ** 2 for a, b in zip(x[:rates], anchor[:rates]))
        return loss(unpack(x), samples, additive) + held

    best = None
    for start_lat in (x0[0], math.log(1.0), math.log(3.0)):
        x, v = nelder_mead(objective, [start_lat] + x0[1:], [0.5] * len(x0), iters=300)
        if best is None or v < best[1]:
            best = (x, v)
    x, v = nelder_mead(objective, best[0], [0.2] * len(x0), iters=300)
    return unpack(x), loss(unpack(x), samples, additive)


def read_rows(prefix):
    with gzip.open(prefix + "_kernels.csv.gz", "rt") as f:
        return list(csv.DictReader(f))


def split(rows):
    logs = sorted({r["log"] for r in rows})
    train = set(logs[0::2])
    return train, set(logs) - train



def training_buckets(rows, train, spec=H100):
    """The training kernels of each curve that may price them: (class, precision, shape) ->
    [(peaks, measured us)]."""
    buckets = defaultdict(list)
    for r in rows:
        if r["log"] not in train or not r["measured_us"] or float(r["measured_us"]) <= 0:
            continue
        cls = r["kernel_class"]
        if cls in UNFITTED_CLASSES or cls == HOST_CLASS:
            continue
        sample = (peak_us(r, spec), float(r["measured_us"]))
        shapes = shape_prefixes(r.get("shape", "")) if cls in SHAPED_CLASSES else [""]
        precs = (["any", r["precision"]]
                 if cls in TENSOR_CLASSES and cls not in CUDA_CORE_CLASSES else ["any"])
        for prec in precs:
            for shape in shapes:
                buckets[(cls, prec, shape)].append(sample)
    return buckets


def fit_buckets(buckets):
    """A curve for each bucket with enough kernels, parents (shorter shapes) first."""
    curves = []
    fitted = {}  # (class, precision, shape) -> ((latency, m, c, i), additive), parents first
    # The pointwise class first: the reductions' issue rate is held no lower than its.
    issue_floor = 0.0
    for (cls, prec, shape), samples in sorted(buckets.items(),
                                              key=lambda b: (b[0][0] != "pointwise", b[0])):
        floor = issue_floor if cls in ISSUE_FLOOR_CLASSES else 0.0
        free = is_pass(cls, shape) or is_thread(shape)
        least = MIN_PASS_SAMPLES if is_pass(cls, shape) else MIN_SHAPE_SAMPLES
        if len(samples) < (least if shape else MIN_SAMPLES):
            continue
        parent = (cls, prec, shape.rpartition("/")[0]) if shape else None
        tensor = cls in TENSOR_CLASSES
        uses = (True, tensor, not tensor)
        prior = None
        while parent and not prior and not free:  # the nearest shorter curve
            prior = fitted.get(parent)
            parent = (cls, prec, parent[2].rpartition("/")[0]) if parent[2] else None
        if prior and len(buckets[(cls, prec, shape.rpartition("/")[0])]) == len(samples):
            # The same kernels as its parent's: the parent's curve, kept so that the engine's
            # lookup (the longest shape, then the precision) still finds this precision's.
            params, additive = prior
        elif prior:
            # The parent's curve, refitted to the bucket's kernels, with its way of combining.
            # A parent that follows its rows passes the term on.
            rows = is_thread(shape) or len(prior[0]) > 4
            params, additive = (fit_curve(samples, uses, prior[1], prior[0], rows, floor)[0],
                                prior[1])
        else:
            # Overlapped (max) or in turn (sum): whichever fits the class better. Dense GEMMs and
            # convolutions overlap their loads with their math, and a sum would let the many tiny
            # convolutions drag the FLOP rate of the large ones down.
            combines = (False,) if cls in DENSE_CLASSES else (False, True)
            # A one-thread-a-row reduction always follows its rows; a class of ROWS_CLASSES
            # where that cuts the training loss by ROWS_GAIN.
            with_rows = ((True,) if is_thread(shape) else
                         (False, True) if cls in ROWS_CLASSES and prec != "any" else (False,))
            fits = [(fit_curve(samples, uses, additive, rows=rows, issue_floor=floor), additive,
                     rows) for additive in combines for rows in with_rows]
            (params, _), additive, _ = min(
                fits, key=lambda f: f[0][1] * (ROWS_GAIN if f[2] and not is_thread(shape) else 1))
        fitted[(cls, prec, shape)] = (params, additive)
        lat, m, c, i = params[:4]
        if (cls, prec, shape) == ("pointwise", "any", ""):
            issue_floor = i
        errs = sorted(max(predict(params, p, additive) / t, t / predict(params, p, additive))
                      for p, t in samples)
        curve = {"class": cls, "precision": prec, "shape": shape,
                 "latency_us": round(lat, 4),
                 "memory_efficiency": round(m, 4), "compute_efficiency": round(c, 4),
                 "issue_efficiency": round(i, 4)}
        if len(params) > 4:
            curve["saturating_rows"] = round(params[4])
        curve.update({"combine": "sum" if additive else "max", "samples": len(samples),
                      "train_median_error": round(errs[len(errs) // 2], 3),
                      "train_p90_error": round(errs[int(0.9 * (len(errs) - 1))], 3)})
        curves.append(curve)
        print(f"{cls:12} {prec:4} {shape:24} {'sum' if additive else 'max'} n={len(samples):5} "
              f"lat={lat:7.3f} mem={m:.3f} "
              f"flop={c:.3f} issue={i:.3f} rows={params[4] if len(params) > 4 else 0:.0f} "
              f"median x{errs[len(errs)//2]:.2f} "
              f"p90 x{errs[int(0.9*(len(errs)-1))]:.2f}", file=sys.stderr)
    return sorted(curves, key=lambda c: (c["class"], c["precision"], c["shape"]))


def find_curve(curves, cls, prec, shape):
    """The curve the engine prices a kernel by (calibration.cpp's Calibration::find): the longest
    shape prefix, then its own precision over `any`; None for the datasheet roofline."""
    best = None
    for c in curves:
        prefix = c["shape"]
        covers = not prefix or shape == prefix or shape.startswith(prefix + "/")
        if c["class"] != cls or not covers or c["precision"] not in (prec, "any"):
            continue
        if (best is None or len(prefix) > len(best["shape"]) or
                (len(prefix) == len(best["shape"]) and c["precision"] == prec)):
            best = c
    return best


def price(curves, row, spec=H100):
    """The engine's predicted kernel time of ROW (roofline.cpp's predict_kernel, device time)."""
    if row["kernel_class"] == HOST_CLASS:
        return 0.0
    curve = find_curve(curves, row["kernel_class"], row["precision"], row.get("shape", "") or "")
    peaks = peak_us(row, spec)
    if curve is None:  # the datasheet roofline: 0.85 of the peaks, a 2 us floor
        return max(peaks[0] / HBM_EFFICIENCY, peaks[1] / 0.85, peaks[2], 2.0)
    return predict((curve["latency_us"], curve["memory_efficiency"], curve["compute_efficiency"],
                    curve["issue_efficiency"], curve.get("saturating_rows", 0)), peaks,
                   curve["combine"] == "sum")


def held_out_report(curves, rows, totals_path, held_out, spec=H100, out=sys.stderr):
    """Where the held-out error sits: per class, precision and shape's first component the
    kernels, how many are off by over 1.25x and 2x, and the sum of predicted minus measured us
    (what moves graphs' totals); then each held-out graph that misses a target (median <= 1.25,
    p90 <= 2, total within 15%) with the classes that move its total most. bench_cost_fit's
    figures, from the same pricing."""
    graphs = defaultdict(lambda: [0.0, [], defaultdict(float)])  # predicted, factors, by class
    classes = defaultdict(lambda: [0, 0, 0, 0.0])
    for r in rows:
        if r["log"] not in held_out:
            continue
        p = price(curves, r, spec)
        g = graphs[(r["log"], r["mode"], r["graph"])]
        g[0] += p
        if not r["measured_us"] or float(r["measured_us"]) <= 0:
            continue
        m = float(r["measured_us"])
        f = max(p / m, m / p)
        g[1].append(f)
        prec = r["precision"] if r["kernel_class"] in TENSOR_CLASSES else "any"
        g[2][r["kernel_class"] + ":" + prec] += p - m
        c = classes[(r["kernel_class"], prec, (r.get("shape") or "").split("/")[0])]
        c[0] += 1
        c[1] += f > 1.25
        c[2] += f > 2
        c[3] += p - m
    print("held out: class precision shape: kernels, over 1.25x, over 2x, predicted - measured",
          file=out)
    for (cls, prec, shape), (n, over125, over2, diff) in sorted(
            classes.items(), key=lambda kv: -abs(kv[1][3])):
        print(f"  {cls:20} {prec:4} {shape:6} {n:6} {over125:6} {over2:6} {diff:+10.0f} us",
              file=out)
    with open(totals_path) as f:
        totals = {(t["log"], t["mode"], t["graph"]): float(t["kernel_us"])
                  for t in csv.DictReader(f)}
    met = [0, 0, 0, 0]
    for key, (predicted, factors, by_class) in sorted(graphs.items()):
        if key not in totals or not factors:
            continue
        factors.sort()
        med, p90 = factors[len(factors) // 2], factors[(len(factors) - 1) * 9 // 10]
        total = predicted / totals[key]
        ok = (med <= 1.25, p90 <= 2, abs(total - 1) <= 0.15)
        met = [a + b for a, b in zip(met, ok + (all(ok),))]
        if not all(ok):
            worst = sorted(by_class.items(), key=lambda kv: -abs(kv[1]))[:3]
            print(f"  {' '.join(key):60} median {med:.2f} p90 {p90:.2f} total {total:.2f}  " +
                  " ".join(f"{c} {d:+.0f}" for c, d in worst), file=out)
    print(f"held out: median <= 1.25 in {met[0]}, p90 <= 2 in {met[1]}, total within 15% in "
          f"{met[2]}, all three in {met[3]}", file=out)

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("prefix", help="PREFIX of PREFIX_kernels.csv.gz")
    ap.add_argument("--out", required=True)
    ap.add_argument("--device", default="H100", choices=sorted(DEVICES),
                    help="the device_spec.cpp entry whose peaks the shares are of")
    ap.add_argument("--held-out-report", action="store_true",
                    help="print where the fitted curves miss on the held-out logs")
    args = ap.parse_args()
    spec = DEVICES[args.device]
    rows = read_rows(args.prefix)
    train, held_out = split(rows)
    curves = fit_buckets(training_buckets(rows, train, spec))
    if args.held_out_report:
        held_out_report(curves, rows, args.prefix + "_totals.csv", held_out, spec)
    # The device the kernels were timed on, as the runs name it (PREFIX_totals.csv's column).
    with open(args.prefix + "_totals.csv") as f:
        devices = sorted({t["device"] for t in csv.DictReader(f)})
    logs = sorted({r["log"] for r in rows})
    out = {"measured_on": " + ".join(devices), "device_spec": args.device,
           "source": f"tools/cost_fit/fit_cost_model.py on {args.prefix}_kernels.csv.gz "
                     f"({len(rows)} kernels of {len(logs)} corpus logs, every mode, run by the "
                     f"engine backend on {' + '.join(devices)}, CUPTI kernel times; peaks of "
                     f"device_spec.cpp's {args.device}); training logs: every other log by name, "
                     f"from the first ({len(train)})",
           "curves": curves}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
