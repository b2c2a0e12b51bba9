#!/usr/bin/env python3
"""A tiny real torch.compile program, to check `fxscope-cli capture` with PyTorch:

    fxscope-cli capture -- python3 sample_graphs/capture_smoke.py

A two-layer MLP, compiled, runs three training steps (forward and backward) on the GPU, or on
the CPU where there is none. It prints one line per step and writes no file itself: the log
comes from TORCH_TRACE, which capture sets. --fail N exits with status N after the steps;
--steps N --pause S runs N steps S seconds apart (time to press Ctrl-C while it runs).
"""
import argparse
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fail", type=int, default=0, help="exit with this status at the end")
    parser.add_argument("--steps", type=int, default=3, help="training steps to run")
    parser.add_argument("--pause", type=float, default=0.0, help="seconds to wait after each step")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64)).to(device)
    compiled = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(32, 64, device=device)
    target = torch.randn(32, 64, device=device)
    for step in range(args.steps):
        optimizer.zero_grad()
        loss = F.mse_loss(compiled(x), target)
        loss.backward()
        optimizer.step()
        print(f"step {step} loss {loss.item():.4f} on {device} (torch {torch.__version__})",
              flush=True)
        time.sleep(args.pause)
    sys.exit(args.fail)


if __name__ == "__main__":
    main()
