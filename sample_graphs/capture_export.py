#!/usr/bin/env python3
"""Real torch.export and AOTInductor TORCH_TRACE logs.

    TORCH_DTRACE=sample_graphs/export_program python3 sample_graphs/capture_export.py export
    TORCH_TRACE=sample_graphs/aoti_provenance python3 sample_graphs/capture_export.py aoti
    TORCH_DTRACE=sample_graphs/draft_export_failures python3 sample_graphs/capture_export.py draft

export (under TORCH_DTRACE: export writes its exported program and guards only to the detailed
trace): torch.export.export of a small conv + attention model with a dynamic batch (its exported
program and symbolic guards), then torch.export.draft_export of a model with a data-dependent
shape and an unbacked .item() (draft export's failures, with their stacks).
draft: torch.export.draft_export of a model that export alone refuses: a Python branch on a value
read from a tensor (a guard on a data-dependent size) and a custom operator with no fake kernel;
draft export runs it anyway and records each failure with its stack.
aoti [NAME]: the same exported program (or the real model NAME's) compiled by AOTInductor with
provenance tracking on, so the log holds the post-grad graph, the generated kernels and
Inductor's kernel-to-node mappings.
model NAME (under TORCH_DTRACE): torch.export.export of a real model in eval mode with a dynamic
batch: torchvision's resnet18, mobilenet_v3_small, vit_b_16 or fcn_resnet50 (segmentation: its
head upsamples with F.interpolate), or transformers' bert (a 2-layer BERT), so that its training
IR's composite ops are those real models use.

    TORCH_DTRACE=/tmp/export_resnet18 python3 sample_graphs/capture_export.py model resnet18
"""
import argparse
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 32, 3, padding=1)
        self.bn = nn.BatchNorm2d(32)
        self.qkv = nn.Linear(32, 96)
        self.out = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.bn(self.conv(x)))
        tokens = x.flatten(2).transpose(1, 2)
        q, k, v = self.qkv(tokens).chunk(3, dim=-1)
        y = F.scaled_dot_product_attention(q, k, v)
        return self.out(y.mean(dim=1))


class DataDependent(nn.Module):
    # A slice by a value read from a tensor: an unbacked size export cannot guard on.
    def forward(self, x, lengths):
        n = lengths.max().item()
        kept = x[:, :n]
        return kept.relu() * 2 + kept.sum()


# A custom operator without a fake (meta) kernel: export cannot trace through it; draft export runs
# the real kernel and reports the missing fake one.
@torch.library.custom_op("fxscope_capture::positive_part", mutates_args=())
def positive_part(x: torch.Tensor) -> torch.Tensor:
    return x.clamp(min=0)


class DataDependentBranch(nn.Module):
    def forward(self, x, lengths):
        n = lengths.max().item()
        if n > 4:  # a branch on a data-dependent value: a guard export cannot decide
            x = x * 2
        return positive_part(x[:, :n]).sum(dim=1)


def exported(device):
    model = Block().to(device).eval()
    x = torch.randn(4, 3, 16, 16, device=device)
    batch = torch.export.Dim("batch", min=1, max=64)
    return torch.export.export(model, (x,), dynamic_shapes={"x": {0: batch}}), x


def run_export(device):
    program, _ = exported(device)
    print(program.graph_module.code[:400], flush=True)
    args = (torch.randn(4, 12, device=device), torch.tensor([3, 7, 5, 9], device=device))
    try:
        draft = torch.export.draft_export(DataDependent().to(device), args)
        print(draft._report if hasattr(draft, "_report") else draft, flush=True)
    except Exception as error:
        print(f"draft_export failed: {type(error).__name__}: {error}", flush=True)


def run_draft(device):
    args = (torch.randn(4, 12, device=device), torch.tensor([3, 7, 5, 9], device=device))
    try:
        torch.export.export(DataDependentBranch().to(device), args)
        print("export: accepted", flush=True)
    except Exception as error:
        print(f"export refused it: {type(error).__name__}: {str(error)[:300]}", flush=True)
    draft = torch.export.draft_export(DataDependentBranch().to(device), args)
    report = getattr(draft, "_report", None)
    print(report if report is not None else draft, flush=True)


def run_aoti(device, name=None):
    import torch._inductor.config as inductor_config
    for option in ("provenance_tracking_level", "provenance_tracking"):
        if hasattr(inductor_config.trace, option):
            setattr(inductor_config.trace, option, 1)
    if name is None:
        program, x = exported(device)
    else:
        program, inputs = real_program(name, device)
        x = inputs[0]
    package = torch._inductor.aoti_compile_and_package(
        program, package_path=tempfile.mktemp(suffix=".pt2"))
    runner = torch._inductor.aoti_load_package(package)
    print("aoti output", runner(x).shape, flush=True)


def real_model(name, device):
    if name == "bert":
        import transformers
        config = transformers.BertConfig(num_hidden_layers=2, hidden_size=256,
                                         num_attention_heads=4, intermediate_size=1024)
        model = transformers.BertModel(config)
        inputs = (torch.randint(0, config.vocab_size, (2, 128), device=device),)
    elif name == "fcn_resnet50":
        import torchvision
        model = torchvision.models.segmentation.fcn_resnet50(weights=None, weights_backbone=None)
        inputs = (torch.randn(2, 3, 224, 224, device=device),)
    else:
        import torchvision
        model = getattr(torchvision.models, name)()
        inputs = (torch.randn(2, 3, 224, 224, device=device),)
    return model.to(device).eval(), inputs


def real_program(name, device):
    model, inputs = real_model(name, device)
    batch = torch.export.Dim("batch", min=1, max=64)
    return torch.export.export(model, inputs, dynamic_shapes=({0: batch},)), inputs


def run_model(name, device):
    program, _ = real_program(name, device)
    ops = sorted({str(n.target) for n in program.graph.nodes if n.op == "call_function"})
    print(name, len(program.graph.nodes), "nodes:", ", ".join(ops), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["export", "draft", "aoti", "model"])
    parser.add_argument("name", nargs="?", default=None,
                        choices=["resnet18", "mobilenet_v3_small", "vit_b_16", "fcn_resnet50", "bert"])
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    if args.what == "model":
        run_model(args.name or "resnet18", device)
        return
    if args.what == "aoti":
        with torch.no_grad():
            run_aoti(device, args.name)
        return
    {"export": run_export, "draft": run_draft}[args.what](device)


if __name__ == "__main__":
    main()
