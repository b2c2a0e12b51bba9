"""Recompiles of distinct kinds, one small function per kind so each reason stands alone.

Each case compiles a function, calls it twice with its first arguments (the second call hits the
cache), then twice with arguments that fail one guard (one recompile, then a hit). A group runs
its cases in one process, each inside `case(kind)`, a context in which the capture collects the
recompiles PyTorch itself recorded, so every reason is attributed to the kind that caused it.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

SCALE = 2.0  # read by scaled_by_global: rebinding it fails a guard on the global


def pointwise(x):
    return torch.relu(torch.sin(x) * 2.0 + torch.cos(x))


def twice(fn, first, second):
    """Calls FN with the FIRST arguments twice, then with the SECOND twice."""
    for args in (first, first, second, second):
        fn(*args)


def tensor_cases(dev, case):
    def batch_size(x):
        return pointwise(x)

    def dtype(x):
        return pointwise(x)

    def requires_grad(x):
        return pointwise(x)

    def stride(x):
        return pointwise(x)

    def rank(x):
        return pointwise(x)

    def memory_format(x):
        return pointwise(x)

    def size_one(x):
        return pointwise(x)

    x = torch.randn(8, 32, device=dev)
    image = torch.randn(2, 16, 8, 8, device=dev)
    runs = [
        ("batch_size", batch_size, (x,), (torch.randn(16, 32, device=dev),)),
        ("dtype", dtype, (x,), (x.half(),)),
        ("requires_grad", requires_grad, (x,), (x.clone().requires_grad_(),)),
        ("stride", stride, (x,), (torch.randn(32, 8, device=dev).t(),)),
        ("rank", rank, (x,), (torch.randn(2, 8, 32, device=dev),)),
        ("memory_format", memory_format, (image,), (image.to(memory_format=torch.channels_last),)),
    ]
    for kind, fn, first, second in runs:
        with case(kind):
            twice(torch.compile(fn), first, second)
    # With dynamic=True sizes are symbols from the start, but sizes 0 and 1 are specialized.
    with case("size_one_specialization"):
        twice(torch.compile(size_one, dynamic=True), (x,), (torch.randn(1, 32, device=dev),))


def global_state_cases(dev, case):
    def grad_mode(w, x):
        return pointwise(x @ w)

    def autocast(w, x):
        return pointwise(x @ w)

    def deterministic(x):  # no matmul: cuBLAS refuses deterministic mode without a workspace
        return pointwise(x)

    w = torch.randn(32, 32, device=dev, requires_grad=True)
    x = torch.randn(8, 32, device=dev)
    with case("grad_mode"):
        fn = torch.compile(grad_mode)
        with torch.no_grad():
            fn(w, x), fn(w, x)
        fn(w, x), fn(w, x)
    with case("autocast"), torch.no_grad():
        fn = torch.compile(autocast)
        fn(w, x), fn(w, x)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            fn(w, x), fn(w, x)
    with case("deterministic_algorithms"), torch.no_grad():
        fn = torch.compile(deterministic)
        fn(x), fn(x)
        torch.use_deterministic_algorithms(True)
        try:
            fn(x), fn(x)
        finally:
            torch.use_deterministic_algorithms(False)


def scaled_by_global(x):
    return pointwise(x) * SCALE


def python_cases(dev, case):
    global SCALE

    def constant_int(x, n):
        return pointwise(x) * n

    def constant_str(x, act):
        return F.gelu(x) if act == "gelu" else torch.relu(x)

    def list_length(xs):
        return pointwise(torch.stack(xs).sum(0))

    def id_match(x, act):
        return act(pointwise(x))

    def none_or_tensor(x, bias):
        return pointwise(x) if bias is None else pointwise(x + bias)

    def dict_keys(x, cfg):
        return pointwise(x) * sum(cfg.values())

    def scalar_or_tensor(x, y):
        return pointwise(x) * y

    def make_closure(scale):
        def closure(x):
            return pointwise(x) * scale

        return closure

    x = torch.randn(8, 32, device=dev)
    runs = [
        ("constant_int", constant_int, (x, 2), (x, 3)),
        ("constant_str", constant_str, (x, "relu"), (x, "gelu")),
        ("list_length", list_length, ([x, x],), ([x, x, x],)),
        ("id_match", id_match, (x, torch.tanh), (x, torch.sigmoid)),
        ("none_to_tensor", none_or_tensor, (x, None), (x, torch.ones(32, device=dev))),
        ("dict_keys", dict_keys, (x, {"a": 1.0}), (x, {"a": 1.0, "b": 2.0})),
        ("type_change", scalar_or_tensor, (x, 2.0), (x, torch.tensor(2.0, device=dev))),
    ]
    for kind, fn, first, second in runs:
        with case(kind):
            twice(torch.compile(fn), first, second)
    # Two closures of one code object share its cache; the cell's value is guarded.
    with case("closure_cell"):
        first, second = make_closure(2.0), make_closure(3.0)
        for fn in (first, first, second, second):
            torch.compile(fn)(x)
    with case("global"):
        fn = torch.compile(scaled_by_global)
        fn(x), fn(x)
        SCALE = 3.0
        fn(x), fn(x)


class Configurable(nn.Module):
    """A module whose plain attribute, training flag and hooks its users change between calls."""

    def __init__(self, dim=32):
        super().__init__()
        self.lin, self.alpha = nn.Linear(dim, dim), 0.5

    def forward(self, x):
        return F.dropout(pointwise(self.lin(x)), 0.1, self.training) * self.alpha


def module_cases(dev, case):
    x = torch.randn(8, 32, device=dev)
    model = Configurable().to(dev).train()
    fn = torch.compile(model)
    with torch.no_grad():
        fn(x), fn(x)
        with case("module_attribute"):
            model.alpha = 0.75
            fn(x), fn(x)
        with case("module_training"):
            model.eval()
            fn(x), fn(x)
        with case("module_hook"):
            model.register_forward_hook(lambda mod, args, out: out * 2.0)
            fn(x), fn(x)


GROUPS = {
    "tensor": tensor_cases,
    "global_state": global_state_cases,
    "python": python_cases,
    "module": module_cases,
}
