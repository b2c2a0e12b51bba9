"""Prints how Inductor votes a reduction inner or outer (ir.Reduction.num_splits) for a Swin
patch merging's layer norm over a cat of four strided slices, beside a plain layer norm of the
same shape. Each num_splits call prints its sizes, every load index it votes on with that
index's strides along the reduced variables, and the (hint, split) it returns.

Run on a GPU host: python3 bench/probes/reduction_split_vote.py
"""
import torch
import torch._inductor.ir as ir
from torch._inductor.virtualized import V

_num_splits = ir.Reduction.num_splits
_depth = [0]


def num_splits(*args, **kwargs):
    _depth[0] += 1
    sizevars = V.graph.sizevars
    stride_hints = sizevars.stride_hints

    def logged(index, vars, support_vars=None):
        out = stride_hints(index, vars, support_vars)
        print(f"    vote index={index} strides={out}")
        return out

    sizevars.stride_hints = logged
    try:
        result = _num_splits(*args, **kwargs)
    finally:
        sizevars.stride_hints = stride_hints
        _depth[0] -= 1
    ranges = args[4] if len(args) > 4 else kwargs.get("ranges")
    rranges = args[5] if len(args) > 5 else kwargs.get("reduction_ranges")
    print(f"  num_splits ranges={list(ranges)} reduction={list(rranges)} -> {result}")
    return result


ir.Reduction.num_splits = staticmethod(num_splits)


class PatchMerging(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = torch.nn.LayerNorm(4 * dim)

    def forward(self, a, b, c, d, e):
        x = a + b + c + d + e  # a value of five reads, realized for its four slices
        x0 = x[..., 0::2, 0::2, :]
        x1 = x[..., 1::2, 0::2, :]
        x2 = x[..., 0::2, 1::2, :]
        x3 = x[..., 1::2, 1::2, :]
        return self.norm(torch.cat([x0, x1, x2, x3], -1))


class PlainNorm(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)

    def forward(self, x):
        return self.norm(x)


torch._dynamo.config.cache_size_limit = 64
dev = "cuda"
ins = [torch.randn(2, 56, 56, 96, device=dev) for _ in range(5)]
print("== patch merging (cat of four slices, 2x28x28 rows of 384)")
torch.compile(PatchMerging(96).to(dev))(*ins)
print("== patch merging, input a graph input")
torch._dynamo.reset()
torch.compile(lambda x, m=PatchMerging(96).to(dev): m(x, 0, 0, 0, 0))(ins[0])
print("== plain layer norm, 2x28x28 rows of 384")
torch._dynamo.reset()
torch.compile(PlainNorm(384).to(dev))(torch.randn(2, 28, 28, 384, device=dev))
