#!/usr/bin/env python3
"""Capture the pairs of TORCH_TRACE logs in sample_graphs/pairs/: one model, one change.

Each name is one run of one process; a pair is two names that differ in exactly one thing, so a
diff of the two logs must name that thing and nothing else:

    break_before / break_after      a bf16 training step whose block calls .item() (a graph break)
                                    and the same step with the value kept as a tensor
    dynamic_off / dynamic_on        three batch sizes through torch.compile(m) (a recompile) and
                                    through torch.compile(m, dynamic=True)
    mode_default / mode_max_autotune  one bf16 inference block in the two modes
    cache_cold / cache_warm / cache_config
                                    one fp32 training step three times over one Inductor cache
                                    directory: empty, filled by the first run, and with one
                                    Inductor setting changed (the FX graph cache key differs)
    cudagraph_skip                  reduce-overhead over a step that writes into its input (a KV
                                    cache): CUDA graphs are skipped and PyTorch says why

Run each with its own TORCH_TRACE directory (sample_graphs/capture_pairs.sh runs them all):

    TORCH_TRACE=/tmp/pairs/break_before python3 sample_graphs/capture_pairs.py break_before

Random weights, nothing downloaded. Beside each log, expected.json holds PyTorch's own counters.
"""
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

from capture import command_line, pytorch_counts, setup


class Block(nn.Module):
    """A pre-norm transformer block: attention (SDPA) and an MLP, each with a residual."""

    def __init__(self, dim=256, heads=4, item_break=False):
        super().__init__()
        self.heads = heads
        self.item_break = item_break
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, d // self.heads).unbind(2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                           is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, d))
        h = self.fc2(F.gelu(self.fc1(self.ln2(x))))
        # The break users meet most: a Python number read from a tensor to scale by.
        peak = h.abs().amax()
        scale = 1.0 / max(peak.item(), 1.0) if self.item_break else 1.0 / peak.clamp(min=1.0)
        return x + h * scale


def train_steps(dev, model, dtype, steps=2, batch=8, seq=128):
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    step = torch.compile(model)
    for _ in range(steps):
        x = torch.randn(batch, seq, 256, device=dev)
        with torch.autocast("cuda", dtype=dtype, enabled=dtype != torch.float32):
            loss = step(x).float().square().mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


def run_break(dev, item_break):
    train_steps(dev, Block(item_break=item_break).to(dev), torch.bfloat16)


def run_dynamic(dev, dynamic):
    model = Block().to(dev).eval()
    step = torch.compile(model, dynamic=dynamic)
    with torch.no_grad():
        for batch in (8, 16, 24):
            step(torch.randn(batch, 128, 256, device=dev))


def run_mode(dev, mode):
    model = Block().to(dev, torch.bfloat16).eval()
    step = torch.compile(model, mode=mode)
    x = torch.randn(8, 128, 256, device=dev, dtype=torch.bfloat16)
    with torch.no_grad():
        for _ in range(3):
            step(x)


def run_cache(dev, changed_config):
    if changed_config:
        # One Inductor setting that enters the FX graph cache key and leaves the graph alone.
        torch._inductor.config.max_autotune_pointwise = True
    train_steps(dev, Block().to(dev), torch.float32)


class KVCacheStep(nn.Module):
    """One decode step that writes its key and value into caches passed in by the caller."""

    def __init__(self, dim=256):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, k_cache, v_cache, pos):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        k_cache.index_copy_(1, pos, k)
        v_cache.index_copy_(1, pos, v)
        w = torch.softmax(q @ k_cache.transpose(1, 2) / 16.0, dim=-1)
        return w @ v_cache


def run_cudagraph_skip(dev):
    model = KVCacheStep().to(dev).eval()
    step = torch.compile(model, mode="reduce-overhead")
    k_cache = torch.zeros(4, 64, 256, device=dev)
    v_cache = torch.zeros(4, 64, 256, device=dev)
    with torch.no_grad():
        for pos in range(4):
            where = torch.tensor([pos], device=dev)
            step(torch.randn(4, 1, 256, device=dev), k_cache, v_cache, where)


CAPTURES = {
    "break_before": lambda dev: run_break(dev, True),
    "break_after": lambda dev: run_break(dev, False),
    "dynamic_off": lambda dev: run_dynamic(dev, None),
    "dynamic_on": lambda dev: run_dynamic(dev, True),
    "mode_default": lambda dev: run_mode(dev, None),
    "mode_max_autotune": lambda dev: run_mode(dev, "max-autotune"),
    "cache_cold": lambda dev: run_cache(dev, False),
    "cache_warm": lambda dev: run_cache(dev, False),
    "cache_config": lambda dev: run_cache(dev, True),
    "cudagraph_skip": run_cudagraph_skip,
}


def main():
    name, trace_dir = command_line(__doc__, "capture_pairs.py", CAPTURES)
    dev = setup()
    CAPTURES[name](dev)
    torch.cuda.synchronize()
    with open(os.path.join(trace_dir, "expected.json"), "w") as f:
        json.dump(pytorch_counts(name), f, indent=1, default=str)


if __name__ == "__main__":
    main()
