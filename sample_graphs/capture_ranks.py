#!/usr/bin/env python3
"""Real multi-rank TORCH_TRACE logs: DDP with torch.compile, one process per rank over gloo.

    TORCH_TRACE=sample_graphs/ranks_ddp python3 sample_graphs/capture_ranks.py --world 4 --diverge
    TORCH_TRACE=/tmp/same python3 sample_graphs/capture_ranks.py --world 2

Each rank trains a small MLP under DistributedDataParallel with a small bucket, so Dynamo's
DDPOptimizer splits the forward graph at the bucket boundaries (its graph breaks), then runs a
compiled function whose graph holds an all_reduce (a collective Inductor schedules). With
--diverge the last rank sees another batch size on its third step and recompiles, and takes a
rank-dependent branch inside the compiled collective function, so its graph differs from the
others' under the same compile id. Without it every rank compiles the same graphs. All ranks may
share one GPU: gloo copes with several processes on one device. Each rank uses its own Inductor
cache folder, so cache hits and misses do not depend on which rank compiled first.
"""
import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torch.nn as nn

from rank_processes import process_group, rank_parser, spawn_ranks


class Mlp(nn.Module):
    def __init__(self, width=512, depth=4):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        for layer in self.layers:
            x = torch.nn.functional.gelu(layer(x)) + x
        return self.norm(x)


def ddp_steps(rank, world, args, device):
    torch.manual_seed(0)
    model = Mlp().to(device)
    # 1 MB buckets: each 512x512 fp32 layer is its own bucket, so DDPOptimizer splits the graph.
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=1)
    compiled = torch.compile(ddp)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for step in range(3):
        batch = 48 if (args.diverge and rank == world - 1 and step == 2) else 32
        x = torch.randn(batch, 512, device=device)
        loss = compiled(x).square().mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print(f"rank {rank} ddp step {step} batch {batch} loss {loss.item():.4f}", flush=True)


def collective_steps(rank, world, args, device):
    scale = 3.0 if (args.diverge and rank == world - 1) else 2.0

    @torch.compile
    def reduce_block(x, w):
        y = torch.relu(x @ w)
        y = funcol.all_reduce(y, "sum", dist.group.WORLD)
        if scale > 2.5:
            y = torch.tanh(y)
        return y * scale + 1.0

    torch.manual_seed(1)
    x = torch.randn(64, 256, device=device)
    w = torch.randn(256, 256, device=device)
    try:
        for step in range(2):
            out = reduce_block(x, w)
            print(f"rank {rank} collective step {step} sum {out.sum().item():.3e}", flush=True)
    except Exception as error:  # gloo may not reduce CUDA tensors in a compiled graph everywhere
        print(f"rank {rank} compiled all_reduce failed: {type(error).__name__}: {error}", flush=True)


def worker(rank, world, args):
    device = torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")
    with process_group(rank, world, args, "gloo"):
        ddp_steps(rank, world, args, device)
        collective_steps(rank, world, args, device)


def main():
    parser = rank_parser(__doc__.splitlines()[0], port=29511)
    parser.add_argument("--diverge", action="store_true", help="make the last rank compile differently")
    spawn_ranks(worker, parser, "fxscope_ranks_cache_")


if __name__ == "__main__":
    main()
