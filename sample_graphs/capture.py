#!/usr/bin/env python3
"""Capture the TORCH_TRACE logs bundled in sample_graphs/.

Run one sample per process, with TORCH_TRACE pointing at a fresh directory:

    TORCH_TRACE=/tmp/traces/resnet18 python3 sample_graphs/capture.py resnet18

Every model uses random weights (nothing is downloaded). Beside the log the script writes
`<TORCH_TRACE>/expected.json` with what PyTorch itself counted (graph breaks, unique graphs,
recompiles), so fxscope's tests can compare the reader with PyTorch's own numbers.
"""
import argparse
import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


def device():
    if not torch.cuda.is_available():
        sys.exit("capture.py: a CUDA device is needed (the samples are CUDA graphs)")
    return torch.device("cuda")


def setup():
    """The CUDA device, with TF32 off and a fixed seed, as every capture starts."""
    dev = device()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    return dev


def enable_provenance():
    # Inductor's provenance mapping says exactly which post-grad nodes each kernel covers.
    cfg = torch._inductor.config.trace
    if hasattr(cfg, "provenance_tracking_level"):
        cfg.provenance_tracking_level = 1
    elif hasattr(cfg, "provenance_tracking"):
        cfg.provenance_tracking = True


class ResidualMLP(nn.Module):
    """x + 0.5 * gelu(linear2(dropout(linear1(x))))"""

    def __init__(self, dim=1024, hidden=4096):
        super().__init__()
        self.linear1 = nn.Linear(dim, hidden)
        self.dropout = nn.Dropout(0.1)
        self.linear2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return x + 0.5 * F.gelu(self.linear2(self.dropout(self.linear1(x))))


class PointwiseChain(nn.Module):
    """Twelve pointwise steps ending in a layer norm: the case fusion wins most."""

    def __init__(self, dim=65536):
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        y = x * 1.5
        y = y + 0.25
        y = torch.sin(y)
        y = y * x
        y = torch.relu(y)
        y = y - 0.1
        y = torch.exp(-y)
        y = y / (1.0 + y)
        y = torch.tanh(y)
        y = y * 3.0
        y = y + x
        y = torch.sigmoid(y)
        return self.norm(y)


class Breaky(nn.Module):
    """Graph breaks of the common kinds: .item(), print, a data-dependent shape."""

    def __init__(self, dim=64):
        super().__init__()
        self.lin1 = nn.Linear(dim, dim)
        self.lin2 = nn.Linear(dim, dim)

    def forward(self, x):
        h = torch.relu(self.lin1(x))
        if h.sum().item() > 0:  # .item() -> graph break
            h = h * 2
        print("breaky: hidden", tuple(h.shape))  # print -> graph break
        idx = torch.nonzero(h > 0.5)  # data-dependent output shape -> graph break
        return self.lin2(h) + idx.shape[0]


def pointwise_fn(x, act):
    y = torch.sin(x) * 2.0 + torch.cos(x)
    return torch.relu(y) if act == "relu" else F.gelu(y)


def run_breaks(dev):
    model = Breaky().to(dev).eval()
    cmodel = torch.compile(model)
    with torch.no_grad():
        cmodel(torch.randn(8, 64, device=dev))
        cmodel(torch.randn(8, 64, device=dev))  # reused: the same breaks are reached again
    fn = torch.compile(pointwise_fn)
    x = torch.randn(8, 32, device=dev)
    fn(x, "relu")
    fn(torch.randn(16, 32, device=dev), "relu")  # new batch size
    fn(x.double(), "relu")  # new dtype
    fn(torch.randn(32, 8, device=dev).t(), "relu")  # new stride
    fn(x, "gelu")  # changed Python constant


def run_resnet(dev, name):
    import torchvision

    model = getattr(torchvision.models, name)(weights=None).to(dev).eval()
    cmodel = torch.compile(model)
    with torch.no_grad():
        for _ in range(2):
            cmodel(torch.randn(1, 3, 224, 224, device=dev))


def with_attention(cls, cfg, attention):
    """Builds CLS from CFG with the given attention implementation ("sdpa" or "eager")."""
    torch.manual_seed(0)
    try:
        return cls._from_config(cfg, attn_implementation=attention)
    except (AttributeError, TypeError):
        cfg._attn_implementation = attention
        return cls(cfg)


def gpt2(layers, dev, attention="sdpa"):
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_layer=layers, n_positions=1024, use_cache=False)
    return with_attention(GPT2LMHeadModel, cfg, attention).to(dev).eval()


def run_llama(dev, layers):
    """A small LLaMA (RMSNorm, rotary embeddings, SwiGLU, eager softmax attention)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(hidden_size=512, intermediate_size=1376, num_hidden_layers=layers,
                      num_attention_heads=8, num_key_value_heads=8, vocab_size=32000,
                      max_position_embeddings=512, use_cache=False)
    model = with_attention(LlamaForCausalLM, cfg, "eager").to(dev).eval()
    cmodel = torch.compile(model)
    ids = torch.randint(0, 32000, (1, 128), device=dev)
    with torch.no_grad():
        for _ in range(2):
            cmodel(input_ids=ids, use_cache=False)


def run_gpt2(dev, layers, attention="sdpa"):
    model = gpt2(layers, dev, attention)
    cmodel = torch.compile(model)
    ids = torch.randint(0, 50257, (1, 128), device=dev)
    with torch.no_grad():
        for _ in range(2):
            cmodel(input_ids=ids, use_cache=False)


def run_mlp(dev, mode=None, train=False):
    model = ResidualMLP().to(dev)
    model.train(train)
    cmodel = torch.compile(model, mode=mode)
    x = torch.randn(32, 1024, device=dev, requires_grad=train)
    if train:
        for _ in range(2):
            cmodel(x).sum().backward()
    else:
        with torch.no_grad():
            for _ in range(3):
                cmodel(x)


def run_pointwise(dev):
    model = PointwiseChain().to(dev).eval()
    cmodel = torch.compile(model)
    with torch.no_grad():
        for _ in range(2):
            cmodel(torch.randn(64, 65536, device=dev))


def run_reduce_overhead_dynamic(dev):
    model = ResidualMLP(dim=256, hidden=1024).to(dev).eval()
    cmodel = torch.compile(model, mode="reduce-overhead", dynamic=True)
    with torch.no_grad():
        for batch in (4, 8, 16, 8):
            for _ in range(3):  # CUDA graphs record after warm-up runs
                cmodel(torch.randn(batch, 256, device=dev))


class StackBreak(nn.Module):
    """A graph break in a callee while tensors sit on the caller's stack: the resume function
    receives them as ___stack0, ___stack1 (Dynamo's names for stack inputs)."""

    def __init__(self, dim=64):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(dim, dim) for _ in range(2))
        self.layers[0].scale = 1.0

    def tail(self, y):
        print("guard_order: tail", tuple(y.shape))  # graph break inside the callee
        return y * self.layers[0].scale

    def forward(self, x):
        y = torch.sin(self.layers[0](x))
        z = torch.cos(y)
        out = z + self.tail(y)  # z is on the stack and a live local at the break
        return out + self.layers[1](z)


def width_fn(x):
    return torch.sin(x) * 2.0 + 1.0


def scaled_fn(x, n):
    return torch.cos(x) * n


def dtype_fn(x):
    return torch.tanh(x) + 1.0


def activation_fn(x, act):
    return act(x) * 2.0


def matmul_fn(x):
    return x @ x.t()


def branchy_fn(x):
    return x * 2.0 if x.shape[0] > 8 else x + 2.0


GUARD_TABLE = torch.ones(4, 16)


def global_fn(x):
    return x + GUARD_TABLE.to(x.device).sum()


def run_guard_order(dev):
    global GUARD_TABLE
    # Sizes before strides: after automatic dynamic makes dim 0 a symbol, a new width fails
    # the size check at index 1, not the stride check at index 0.
    fn = torch.compile(width_fn)
    for shape in ((8, 64), (16, 64), (16, 128)):
        fn(torch.randn(*shape, device=dev))
    # A guard manager sorts its children by failure count after a failure: once n failed,
    # n is checked before x.
    fn = torch.compile(scaled_fn)
    x8 = torch.randn(8, 32, device=dev)
    fn(x8, 1), fn(x8, 2), fn(torch.randn(16, 32, device=dev), 3)
    # Cache entries are looked up most recently used first: 0/0, hit again after 0/1 exists,
    # is listed first when f16 recompiles (a hit the log does not record).
    fn = torch.compile(dtype_fn)
    xf = torch.randn(8, 32, device=dev)
    fn(xf), fn(xf.double()), fn(xf), fn(xf.half())
    # A symbolic shape guard fails (dynamic=True, a branch on the size).
    fn = torch.compile(branchy_fn, dynamic=True)
    fn(torch.randn(16, 8, device=dev)), fn(torch.randn(4, 8, device=dev))
    # ID_MATCH on a function argument, then a float where the int was (TYPE_MATCH).
    fn = torch.compile(activation_fn)
    fn(x8, torch.tanh), fn(x8, torch.sigmoid)
    fn = torch.compile(scaled_fn)
    fn(x8, 2.5)
    # The global state: autocast on, then grad mode.
    fn = torch.compile(matmul_fn)
    with torch.no_grad():
        fn(xf)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            fn(xf)
    fn(xf)
    # A global tensor changes shape.
    fn = torch.compile(global_fn)
    fn(x8)
    GUARD_TABLE = torch.ones(8, 16)
    fn(x8)
    # Resume functions' stack inputs and a nested module's attribute.
    model = StackBreak().to(dev).eval()
    cmodel = torch.compile(model)
    with torch.no_grad():
        cmodel(torch.randn(8, 64, device=dev))
        cmodel(torch.randn(16, 64, device=dev))
        model.layers[0].scale = 2.0
        cmodel(torch.randn(16, 64, device=dev))


SAMPLES = {
    "resnet18": (lambda dev: run_resnet(dev, "resnet18"), False),
    "resnet50": (lambda dev: run_resnet(dev, "resnet50"), False),
    "gpt2_2layer": (lambda dev: run_gpt2(dev, 2), False),
    "gpt2_12layer": (lambda dev: run_gpt2(dev, 12), False),
    "gpt2_2layer_eager_attention": (lambda dev: run_gpt2(dev, 2, "eager"), False),
    "llama_48layer": (lambda dev: run_llama(dev, 48), False),
    "gpt2_48layer": (lambda dev: run_gpt2(dev, 48), False),
    "residual_mlp": (lambda dev: run_mlp(dev), True),
    "residual_mlp_train": (lambda dev: run_mlp(dev, train=True), False),
    "pointwise_chain": (run_pointwise, True),
    "graph_breaks": (run_breaks, False),
    "reduce_overhead_dynamic": (run_reduce_overhead_dynamic, False),
    "max_autotune_mlp": (lambda dev: run_mlp(dev, mode="max-autotune"), False),
    "guard_order": (run_guard_order, False),
}


def pytorch_counts(sample):
    """What PyTorch itself counted during this process (torch._dynamo.utils.counters)."""
    from torch._dynamo.utils import counters

    return {
        "sample": sample,
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(),
        "graph_break_reasons": {k: v for k, v in counters["graph_break"].items()},
        "graph_breaks_total": sum(counters["graph_break"].values()),
        "unique_graphs": counters["stats"]["unique_graphs"],
        "calls_captured": counters["stats"]["calls_captured"],
        "recompiles": sum(v for k, v in counters["recompiles"].items()) if "recompiles" in counters else None,
        "counters": {k: dict(v) for k, v in counters.items()},
    }


def command_line(doc, script, choices):
    """The one name given on the command line, and the TORCH_TRACE directory the log goes to."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("name", choices=sorted(choices))
    name = ap.parse_args().name
    trace_dir = os.environ.get("TORCH_TRACE")
    if not trace_dir:
        sys.exit(f"{script}: set TORCH_TRACE=DIR (PyTorch reads it at import time)")
    return name, trace_dir


def main():
    sample, trace_dir = command_line(__doc__, "capture.py", SAMPLES)
    dev = setup()
    run, provenance = SAMPLES[sample]
    if provenance:
        enable_provenance()
    run(dev)
    torch.cuda.synchronize()
    with open(os.path.join(trace_dir, "expected.json"), "w") as f:
        json.dump(pytorch_counts(sample), f, indent=1, default=str)


if __name__ == "__main__":
    main()
