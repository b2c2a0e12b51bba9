#!/usr/bin/env python3
"""Capture one TORCH_TRACE log of the corpus (sample_graphs/corpus/), one capture per process:

    TORCHINDUCTOR_FX_GRAPH_CACHE=0 TORCHINDUCTOR_AUTOGRAD_CACHE=0 \\
    TORCHINDUCTOR_CACHE_DIR=/tmp/ic/NAME TORCH_TRACE=/tmp/corpus/NAME \\
        python3 sample_graphs/corpus/capture_corpus.py NAME

Models are built from their configs with random weights (nothing is downloaded). Beside the log
it writes expected.json: what PyTorch itself counted (graph breaks by reason, unique graphs,
recompiles with their reasons) and how the model was compiled. run_capture.py runs them all.
"""
import contextlib
import functools
import importlib
import json
import os
import re
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]

from corpus_table import BY_NAME  # noqa: E402


def config_of(capture):
    return {"dtype": capture.dtype, "mode": capture.mode, "training": capture.training,
            "channels_last": capture.channels_last, "dynamic": capture.dynamic,
            "shapes": [list(s) for s in capture.shapes], "optimizer": capture.optimizer,
            "grad_scaler": capture.grad_scaler,
            "dynamo_config": dict(capture.dynamo), "provenance_tracking": True}


# Dynamo's reason texts, mapped to the kind of guard that failed.
REASON_KINDS = [
    (r"GLOBAL_STATE changed: (\w+)", None),
    (r"tensor '[^']*' ([\w ]+?) mismatch", None),
    (r"___check_obj_id", "id_match"),
    (r"___check_type_id", "type"),
    (r"\blen\(", "length"),
    (r"G\['", "global"),
    (r" is None| is not None", "none"),
    (r"L\['self'\]", "module_attribute"),
    (r" == ", "constant"),
]


def reason_kind(reason):
    for pattern, kind in REASON_KINDS:
        m = re.search(pattern, reason)
        if m:
            return kind or m.group(1).replace(" ", "_")
    return "other"


def frame_compiles():
    """PyTorch's record of every frame compile so far (runtime records left out)."""
    from torch._dynamo.utils import get_compilation_metrics

    return [m for m in get_compilation_metrics() if not getattr(m, "is_runtime", False)]


def reasons_of(metrics):
    return [m.recompile_reason for m in metrics if getattr(m, "recompile_reason", None)]


def run_recompile_group(group, dev):
    """Runs one group of recompile cases; returns {kind: the reasons PyTorch recorded in it}."""
    from recompile_cases import GROUPS

    cases = {}

    @contextlib.contextmanager
    def case(kind):
        start = len(frame_compiles())
        yield
        cases[kind] = reasons_of(frame_compiles()[start:])

    GROUPS[group](dev, case)
    return cases


def scalar(out):
    """A loss from a model's output: its own loss when it has one, else a mean of squares."""
    import torch

    loss = getattr(out, "loss", None)
    if loss is not None:
        return loss
    if isinstance(out, torch.Tensor):
        return out.float().pow(2).mean()
    values = list(out.values()) if isinstance(out, dict) else list(out)
    return sum(scalar(v) for v in values
               if isinstance(v, (dict, list, tuple)) or
               (isinstance(v, torch.Tensor) and v.is_floating_point()))


def optimizer_step(capture, model, scaler=None):
    import torch

    kind = capture.optimizer or "adamw"
    params = [p for p in model.parameters() if p.requires_grad]
    if kind.startswith("sgd"):
        opt = torch.optim.SGD(params, lr=0.01, momentum=0.9)
    else:
        opt = torch.optim.AdamW(params, lr=1e-4)

    def step():
        if scaler is None:
            opt.step()
        else:  # unscales the gradients, skips the step on inf/NaN, then adjusts the scale
            scaler.step(opt)
            scaler.update()

    if kind.endswith("-compiled"):
        step = torch.compile(step)

    def run():
        step()
        opt.zero_grad(set_to_none=True)

    return run


FAMILY_MODULES = {
    "torchvision": "vision_models", "transformers": "hf_models", "hand": "hand_models"}


def build(capture, dev):
    """(model, make_inputs, default shapes) from the family's builder; transformers builders also
    take the training flag, which decides whether the inputs carry labels."""
    builder = importlib.import_module(FAMILY_MODULES[capture.family]).BUILDERS[capture.model]
    return builder(dev, capture.training) if capture.family == "transformers" else builder(dev)


def drive(capture, dev):
    """Compiles the model as CAPTURE says and runs it over its shapes."""
    import torch

    model, make_inputs, shapes = build(capture, dev)
    model = model.to(dev).train(capture.training)
    if capture.dtype == "bfloat16":
        model = model.to(torch.bfloat16)
    layout = torch.channels_last if capture.channels_last else torch.contiguous_format
    if capture.channels_last:
        model = model.to(memory_format=layout)
    autocast = contextlib.nullcontext
    if capture.dtype.endswith("-autocast"):
        dtype = torch.bfloat16 if capture.dtype.startswith("bfloat16") else torch.float16
        autocast = functools.partial(torch.autocast, "cuda", dtype=dtype)

    def prepare(t):
        if not isinstance(t, torch.Tensor) or not t.is_floating_point():
            return t
        if capture.dtype == "bfloat16":
            t = t.to(torch.bfloat16)
        return t.contiguous(memory_format=layout) if t.dim() == 4 else t

    cmodel = torch.compile(model, mode=None if capture.mode == "default" else capture.mode,
                           dynamic=True if capture.dynamic else None)
    scaler = torch.amp.GradScaler("cuda") if capture.grad_scaler else None
    step = optimizer_step(capture, model, scaler) if capture.training else None
    cuda_graphs = capture.mode in ("reduce-overhead", "max-autotune")
    repeats = capture.repeats or (3 if cuda_graphs else 2)
    for shape in capture.shapes or shapes:
        for _ in range(repeats):
            args, kwargs = make_inputs(tuple(shape))
            args = [[prepare(a) for a in arg] if isinstance(arg, list) else prepare(arg)
                    for arg in args]
            kwargs = {k: prepare(v) for k, v in kwargs.items()}
            if capture.training:
                with autocast():
                    loss = scalar(cmodel(*args, **kwargs))
                (loss if scaler is None else scaler.scale(loss)).backward()
                step()
            else:
                with torch.no_grad(), autocast():
                    cmodel(*args, **kwargs)


def versions():
    found = {}
    for name in ("torchvision", "transformers"):
        module = sys.modules.get(name)
        if module is not None:
            found[name] = module.__version__
    return found


def main():
    import torch
    from capture import command_line, enable_provenance, pytorch_counts, setup

    name, trace_dir = command_line(__doc__, "capture_corpus.py", BY_NAME)
    capture = BY_NAME[name]

    dev = setup()
    enable_provenance()
    utils = torch._dynamo.utils
    if hasattr(utils, "set_compilation_metrics_limit"):
        utils.set_compilation_metrics_limit(1 << 20)  # keep every record, not the last 64
    for name, value in capture.dynamo:
        setattr(torch._dynamo.config, name, value)
    started = time.time()
    cases, error = None, None
    try:
        if capture.model.startswith("recompiles:"):
            cases = run_recompile_group(capture.model.split(":", 1)[1], dev)
        else:
            drive(capture, dev)
        torch.cuda.synchronize()
    except Exception:  # noqa: BLE001  (recorded in expected.json; the driver reports it)
        error = traceback.format_exc()

    reasons = reasons_of(frame_compiles())
    if cases is None:
        kinds = {}
        for reason in reasons:
            kinds[reason_kind(reason)] = kinds.get(reason_kind(reason), 0) + 1
    else:
        kinds = {kind: len(found) for kind, found in cases.items() if found}
    expected = pytorch_counts(capture.name)
    expected.update({
        "family": capture.family, "model": capture.model, "about": capture.about,
        "config": config_of(capture), "versions": versions(),
        "recompiles": len(reasons), "recompile_reasons": reasons, "recompile_kinds": kinds,
        "recompile_cases": cases, "seconds": round(time.time() - started, 1), "error": error,
    })
    with open(os.path.join(trace_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, default=str)
    if error:
        sys.exit(f"capture_corpus.py: {capture.name} failed:\n{error}")


if __name__ == "__main__":
    main()
