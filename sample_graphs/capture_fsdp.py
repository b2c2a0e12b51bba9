#!/usr/bin/env python3
"""Real multi-rank TORCH_TRACE logs of the common large-model set-up: FSDP2 with torch.compile.

    TORCH_TRACE=/tmp/fsdp python3 sample_graphs/capture_fsdp.py --world 2 [--whole]

Each rank trains a small Llama (transformers' LlamaForCausalLM, random weights) sharded by
FSDP2's fully_shard per decoder layer and at the root, parameters gathered in bf16 and gradients
reduced in fp32 (MixedPrecisionPolicy), AdamW, three steps. Each decoder layer is compiled on its
own as torchtitan does (--whole compiles the whole model instead). Ranks use NCCL, one GPU each,
when there are enough GPUs, else gloo on one GPU. Each rank has its own Inductor cache folder.
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "corpus")]

from rank_processes import process_group, rank_parser, spawn_ranks  # noqa: E402


def build(device):
    from hf_models import BUILDERS  # noqa: E402  (needs transformers)
    model, inputs, shapes = BUILDERS["llama"](device, True)
    return model.to(device), inputs, shapes[0]


def worker(rank, world, args):
    nccl = torch.cuda.device_count() >= world
    device = torch.device("cuda", rank if nccl else 0)
    torch.cuda.set_device(device)
    with process_group(rank, world, args, "nccl" if nccl else "gloo"):
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
        torch.manual_seed(0)
        model, inputs, shape = build(device)
        policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        layers = model.model.layers
        for i, layer in enumerate(layers):
            if not args.whole:
                layer = torch.compile(layer)
                layers[i] = layer
            fully_shard(layer, mp_policy=policy)
        fully_shard(model, mp_policy=policy)
        step_model = torch.compile(model) if args.whole else model
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        for step in range(3):
            torch.manual_seed(100 + step)
            pos, kw = inputs(shape)
            loss = step_model(*pos, **kw).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)


def main():
    parser = rank_parser(__doc__.splitlines()[0], port=29531)
    parser.add_argument("--whole", action="store_true", help="compile the whole model, not each layer")
    spawn_ranks(worker, parser, "fxscope_fsdp_cache_")


if __name__ == "__main__":
    main()
