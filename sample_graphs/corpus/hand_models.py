"""Hand-written blocks of the kinds users write: MoE routing, recurrent loops, a UNet block,
attention, data-dependent control flow, and what Inductor does not lower itself: torch.cond,
a user's Triton kernel, a custom op, flex attention.

Every builder returns (model, make_inputs, default_shapes) like the torchvision and transformers
builders beside it.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from capture import ResidualMLP  # sample_graphs/capture.py, on the path capture_corpus.py sets


class TopKMoE(nn.Module):
    """Top-k routed experts with a fixed capacity: top-k, one-hot positions, scatter, gather.

    Tokens are dispatched into per-expert buffers by index_add and read back by gather, so
    every shape is static (the way capacity-based MoE layers are written for compilation)."""

    def __init__(self, dim=256, hidden=512, experts=8, k=2, capacity_factor=1.25):
        super().__init__()
        self.k, self.experts, self.capacity_factor = k, experts, capacity_factor
        self.gate = nn.Linear(dim, experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(experts, dim, hidden) / math.sqrt(dim))
        self.w2 = nn.Parameter(torch.randn(experts, hidden, dim) / math.sqrt(hidden))

    def forward(self, x):
        tokens, dim = x.shape
        capacity = int(self.capacity_factor * tokens * self.k / self.experts)
        weights, expert = F.softmax(self.gate(x), dim=-1).topk(self.k, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        expert = expert.reshape(-1)
        onehot = F.one_hot(expert, self.experts)
        position = ((onehot.cumsum(0) - 1) * onehot).sum(-1)
        kept = position < capacity
        dropped_row = self.experts * capacity
        slot = torch.where(kept, expert * capacity + position, dropped_row)
        routed = x.repeat_interleave(self.k, dim=0)
        buffer = x.new_zeros(dropped_row + 1, dim).index_add(0, slot, routed)
        h = buffer[:-1].view(self.experts, capacity, dim)
        h = torch.bmm(F.gelu(torch.bmm(h, self.w1)), self.w2).reshape(-1, dim)
        out = torch.cat([h, h.new_zeros(1, dim)])[slot]
        out = out * (weights.reshape(-1, 1) * kept.unsqueeze(1)).to(out.dtype)
        return x + out.view(tokens, self.k, dim).sum(1)


class SparseMoE(nn.Module):
    """Experts looped over with the tokens routed to each (torch.where: data-dependent sizes)."""

    def __init__(self, dim=256, hidden=512, experts=4, k=2):
        super().__init__()
        self.k = k
        self.gate = nn.Linear(dim, experts, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(dim, hidden), nn.SiLU(), nn.Linear(hidden, dim))
            for _ in range(experts))

    def forward(self, x):
        weights, expert = F.softmax(self.gate(x), dim=-1).topk(self.k, dim=-1)
        out = torch.zeros_like(x)
        for e, layer in enumerate(self.experts):
            token, slot = torch.where(expert == e)
            out = out.index_add(0, token, layer(x[token]) * weights[token, slot, None])
        return x + out


class Recurrent(nn.Module):
    """An nn.LSTM encoder (or, with CELLS, an LSTMCell loop over the time steps), then a decoder
    unrolled by a Python loop over LSTMCell steps. Dynamo skips a frame that calls nn.LSTM
    unless torch._dynamo.config.allow_rnn is set."""

    def __init__(self, dim=128, hidden=256, steps=12, cells=False):
        super().__init__()
        self.steps, self.hidden = steps, hidden
        self.encoder = nn.LSTMCell(dim, hidden) if cells else nn.LSTM(dim, hidden, num_layers=2,
                                                                       batch_first=True)
        self.cell = nn.LSTMCell(hidden, hidden)
        self.head = nn.Linear(hidden, dim)

    def encode(self, x):
        if isinstance(self.encoder, nn.LSTM):
            out, (h, c) = self.encoder(x)
            return h[-1], c[-1], out[:, -1]
        h = c = x.new_zeros(x.shape[0], self.hidden)
        for t in range(x.shape[1]):
            h, c = self.encoder(x[:, t], (h, c))
        return h, c, h

    def forward(self, x):
        h, c, step_in = self.encode(x)
        outputs = []
        for _ in range(self.steps):
            h, c = self.cell(step_in, (h, c))
            step_in = torch.tanh(h)
            outputs.append(self.head(h))
        return torch.stack(outputs, dim=1)


class ResBlock(nn.Module):
    """Group norm, SiLU, conv, twice, with the time embedding added between: a diffusion
    UNet's residual block."""

    def __init__(self, cin, cout, tdim):
        super().__init__()
        self.norm1, self.conv1 = nn.GroupNorm(8, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.time = nn.Linear(tdim, cout)
        self.norm2, self.conv2 = nn.GroupNorm(8, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, t):
        h = self.conv1(F.silu(self.norm1(x)))
        h = h + self.time(F.silu(t))[:, :, None, None]
        h = self.conv2(F.silu(self.norm2(h)))
        return h + self.skip(x)


class UNetBlock(nn.Module):
    """One UNet level: down block, strided downsample, middle, nearest upsample, skip concat."""

    def __init__(self, channels=64, tdim=128):
        super().__init__()
        self.tdim = tdim
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        self.down = ResBlock(channels, channels, tdim)
        self.downsample = nn.Conv2d(channels, channels, 3, stride=2, padding=1)
        self.mid = ResBlock(channels, 2 * channels, tdim)
        self.up = ResBlock(3 * channels, channels, tdim)
        self.out = nn.Conv2d(channels, 3, 3, padding=1)

    def timestep_embedding(self, t):
        half = self.tdim // 2
        freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=t.device) / half)
        args = t[:, None].float() * freqs[None]
        return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)

    def forward(self, x, t):
        temb = self.timestep_embedding(t)
        skip = self.down(self.stem(x), temb)
        h = self.mid(self.downsample(skip), temb)
        h = F.interpolate(h, scale_factor=2.0, mode="nearest")
        return self.out(self.up(torch.cat([h, skip], dim=1), temb))


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps, self.weight = eps, nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class AttentionBlock(nn.Module):
    """Pre-norm block: RMSNorm, rotary embeddings, causal SDPA, SwiGLU MLP."""

    def __init__(self, dim=256, heads=4):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = RMSNorm(dim), RMSNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.proj = nn.Linear(dim, dim, bias=False)
        self.gate_up = nn.Linear(dim, 4 * dim, bias=False)
        self.down = nn.Linear(2 * dim, dim, bias=False)

    def rotate(self, x):
        seq, half = x.shape[-2], x.shape[-1] // 2
        freqs = 1.0 / (10000.0 ** (torch.arange(half, device=x.device) / half))
        angles = torch.arange(seq, device=x.device)[:, None] * freqs[None]
        cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
        x1, x2 = x[..., :half], x[..., half:]
        return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)

    def forward(self, x):
        batch, seq, dim = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(batch, seq, 3, self.heads, -1).unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        a = F.scaled_dot_product_attention(self.rotate(q), self.rotate(k), v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(batch, seq, dim))
        gate, up = self.gate_up(self.norm2(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class ConvBN(nn.Module):
    """Three conv + batch norm + ReLU layers and a pooled linear head."""

    def __init__(self, channels=(3, 32, 64, 128)):
        super().__init__()
        layers = []
        for cin, cout in zip(channels, channels[1:]):
            layers += [nn.Conv2d(cin, cout, 3, stride=2, padding=1, bias=False),
                       nn.BatchNorm2d(cout), nn.ReLU()]
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(channels[-1], 10)

    def forward(self, x):
        return self.head(self.features(x).mean((2, 3)))


class DataDependent(nn.Module):
    """Control flow on tensor values: .item() in a branch, .tolist(), torch.nonzero."""

    def __init__(self, dim=128):
        super().__init__()
        self.lin1, self.lin2 = nn.Linear(dim, dim), nn.Linear(dim, dim)

    def forward(self, x):
        h = torch.relu(self.lin1(x))
        if h.mean().item() > 0.2:  # .item() in a branch -> graph break
            h = h * 0.5
        counts = (h > 0.5).sum(0).tolist()  # .tolist() -> graph break
        rows = torch.nonzero(h[:, 0] > 0.1).squeeze(1)  # data-dependent size -> graph break
        picked = self.lin2(h[rows]).sum(0)
        return picked * max(counts)


class CondBlock(nn.Module):
    """torch.cond on a tensor predicate: each branch is a subgraph the graph calls as one op."""

    def __init__(self, dim=256):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.wide, self.narrow = nn.Linear(dim, dim), nn.Linear(dim, dim)

    def forward(self, x):
        h = F.gelu(self.proj(x))

        def wide(h):
            return torch.relu(self.wide(h)) * 2.0 + h

        def narrow(h):
            return torch.sigmoid(self.narrow(h)) - h

        y = torch.cond(h.mean() > 0, wide, narrow, (h,))
        return F.layer_norm(y, y.shape[-1:])


def _triton_silu():
    """A user's Triton kernel (scaled SiLU) and its launcher; Triton ships with PyTorch's CUDA
    builds, imported here so that the other builders need no Triton."""
    import triton
    import triton.language as tl

    @triton.jit
    def scaled_silu_kernel(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
        y = x * tl.sigmoid(x) * scale
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)

    def scaled_silu(x, scale):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        scaled_silu_kernel[(triton.cdiv(n, 1024),)](x, y, n, scale, BLOCK=1024)
        return y

    return scaled_silu


class UserTritonBlock(nn.Module):
    """A pre-norm MLP whose activation is a user's Triton kernel, called inside the compiled
    region (Dynamo traces it as triton_kernel_wrapper_functional)."""

    def __init__(self, dim=256, hidden=1024):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up, self.down = nn.Linear(dim, hidden), nn.Linear(hidden, dim)
        self.silu = _triton_silu()

    def forward(self, x):
        return x + self.down(self.silu(self.up(self.norm(x)), 1.5))


@torch.library.custom_op("fxscope_corpus::rms_scale", mutates_args=())
def rms_scale(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """RMS normalisation as an opaque custom op: Inductor calls it as an extern kernel."""
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6)).to(x.dtype) * weight


@rms_scale.register_fake
def _rms_scale_fake(x, weight):
    return torch.empty_like(x)


class CustomOpBlock(nn.Module):
    """An MLP block normalised by a custom op, with pointwise work on both sides of it."""

    def __init__(self, dim=256, hidden=1024):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.up, self.down = nn.Linear(dim, hidden), nn.Linear(hidden, dim)

    def forward(self, x):
        h = rms_scale(x * 0.5 + 1.0, self.weight)
        return x + self.down(F.gelu(self.up(h)))


class FlexAttentionBlock(nn.Module):
    """Causal self-attention through flex_attention with an ALiBi-style score_mod: Inductor
    generates the attention (and its backward) from its flex templates."""

    def __init__(self, dim=256, heads=4):
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(dim)
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x):
        from torch.nn.attention.flex_attention import flex_attention

        b, s, d = x.shape
        q, k, v = self.qkv(self.norm(x)).view(b, s, 3, self.heads, d // self.heads).unbind(2)

        def alibi_causal(score, batch, head, q_idx, kv_idx):
            biased = score - (q_idx - kv_idx) * (head + 1) * 0.125
            return torch.where(q_idx >= kv_idx, biased, -float("inf"))

        y = flex_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                           score_mod=alibi_causal)
        return x + self.out(y.transpose(1, 2).reshape(b, s, d))


def module(cls, make_shape_inputs, shapes, **kwargs):
    def build(dev):
        torch.manual_seed(0)
        return cls(**kwargs), lambda shape: make_shape_inputs(dev, shape), shapes

    return build


def randn(dev, shape):
    return (torch.randn(*shape, device=dev),), {}


def unet_inputs(dev, shape):
    batch, res = shape
    return (torch.randn(batch, 3, res, res, device=dev),
            torch.randint(0, 1000, (batch,), device=dev)), {}


BUILDERS = {
    "residual_mlp": module(ResidualMLP, randn, [(64, 512)], dim=512, hidden=2048),
    "topk_moe": module(TopKMoE, randn, [(512, 256)]),
    "sparse_moe": module(SparseMoE, randn, [(256, 256)]),
    "recurrent": module(Recurrent, randn, [(8, 32, 128)]),
    "recurrent_cells": module(Recurrent, randn, [(8, 16, 128)], cells=True),
    "unet_block": module(UNetBlock, unet_inputs, [(4, 64)]),
    "attention_block": module(AttentionBlock, randn, [(2, 128, 256)]),
    "conv_bn": module(ConvBN, randn, [(8, 3, 64, 64)]),
    "data_dependent": module(DataDependent, randn, [(64, 128)]),
    "cond_block": module(CondBlock, randn, [(64, 256)]),
    "user_triton_block": module(UserTritonBlock, randn, [(8, 128, 256)]),
    "custom_op_block": module(CustomOpBlock, randn, [(8, 128, 256)]),
    "flex_attention_block": module(FlexAttentionBlock, randn, [(2, 256, 256)]),
}
