#!/usr/bin/env python3
"""fxscope's PyTorch driver: re-run one compile unit of a TORCH_TRACE log under real PyTorch.

It extracts the unit's `fx_graph_runnable` artifact (a standalone script that rebuilds the unit's
ATen graph as a module `Repro` and its inputs through `load_args`), then runs it eagerly and under
torch.compile in the requested modes, each after warm-up, timing repeats with CUDA events. Every
timed repeat is wrapped in an NVTX range `fxscope:<mode>:<i>`, and in eager every ATen op in a
range `fxscope-op:<k>:<node>`, so that fxscope's CUPTI injection library (which records NVTX
ranges and kernels) can slice its records by mode and attribute eager kernels to nodes. Each
range ends after a synchronize, so it holds the execution of the kernels launched in it.

It prints one JSON object on stdout. Refusals (no torch, no GPU, no runnable artifact) print one
line on stderr and exit 3. Only the standard library and torch are used.
"""

import argparse
import importlib
import json
import linecache
import os
import re
import statistics
import sys

MODES = ("eager", "default", "reduce-overhead", "max-autotune")
REFUSED = 3


def refuse(message):
    print("fxscope_torch_driver: " + message, file=sys.stderr)
    sys.exit(REFUSED)


def progress(message):
    """A line fxscope-cli relays while the driver runs: a compile can take many minutes."""
    print("fxscope-progress: " + message, file=sys.stderr, flush=True)


def compile_id_of(envelope):
    """'0/0' for frame 0 compile 0, as fxscope prints it."""
    if "frame_id" not in envelope:
        return None
    return "%s/%s" % (envelope["frame_id"], envelope.get("frame_compile_id", 0))


def find_runnables(log_path):
    """({compile id: fx_graph_runnable text}, {compile id: the before_post_grad_graph that
    follows it}) of the log: envelope JSON after the glog prefix ('V1129 13:09:44.087000 467
    file.py:12] '), payload lines start with a TAB. The readable graph holds the classes of the
    runnable's subgraphs (a torch.cond's branches), which the runnable leaves out."""
    found = {}
    graphs = {}
    current = None
    with open(log_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("\t"):
                if current is not None:
                    current.append(line[1:])
                continue
            current = None
            brace = line.find("] {")
            if brace < 0:
                continue
            try:
                envelope = json.loads(line[brace + 2:])
            except ValueError:
                continue
            artifact = envelope.get("artifact")
            name = artifact.get("name") if isinstance(artifact, dict) else None
            cid = compile_id_of(envelope)
            if cid is None:
                continue
            if name == "fx_graph_runnable" and cid not in found:
                current = []
                found[cid] = current
            elif name == "before_post_grad_graph" and cid in found and cid not in graphs:
                current = []
                graphs[cid] = current
    return ({cid: "".join(lines) for cid, lines in found.items()},
            {cid: "".join(lines) for cid, lines in graphs.items()})


# Builds a subgraph's module with the subgraphs it holds (its nested classes) as attributes, as
# torch.fx sets a graph module's submodules.
SUBGRAPH_HELPER = """
def _fxscope_subgraph(cls):
    module = cls()
    for name, value in vars(cls).items():
        if isinstance(value, type) and issubclass(value, torch.nn.Module):
            setattr(module, name, _fxscope_subgraph(value))
    return module
"""


def subgraph_classes(graph_text, names):
    """{NAME: the source of class NAME(torch.nn.Module) nested in GRAPH_TEXT (a readable graph as
    the log prints it: the graph's class, its subgraphs' classes indented in it), moved to the
    module's level} for each of NAMES it holds."""
    lines = graph_text.split("\n")
    found = {}
    for i, line in enumerate(lines):
        m = re.match(r"^    class (\w+)\(torch\.nn\.Module\):\s*$", line)
        if not m or m.group(1) not in names or m.group(1) in found:
            continue
        block = [line[4:]]
        for more in lines[i + 1:]:
            if more.strip() and not more.startswith("     "):
                break
            block.append(more[4:])
        found[m.group(1)] = "\n".join(block).rstrip() + "\n"
    return found


def with_subgraphs(source, graph_text):
    """SOURCE with the subgraphs PyTorch wrote as `self.NAME = <lambda>()` (a torch.cond's
    branches) built from their classes in GRAPH_TEXT, the unit's readable graph; SOURCE as it is
    where it has none or GRAPH_TEXT lacks one (load_repro then names the line)."""
    names = re.findall(r"^        self\.(\w+) = <lambda>\(\)$", source, flags=re.MULTILINE)
    classes = subgraph_classes(graph_text or "", set(names))
    if not names or any(n not in classes for n in names):
        return source
    defs = SUBGRAPH_HELPER
    for n in names:
        defs += "\n\n" + re.sub(r"^class (\w+)", r"class _fxscope_sub_\1", classes[n], count=1)
        source = source.replace("self.%s = <lambda>()" % n,
                                "self.%s = _fxscope_subgraph(_fxscope_sub_%s)" % (n, n), 1)
    return source.replace("class Repro(torch.nn.Module):",
                          defs + "\n\nclass Repro(torch.nn.Module):", 1)


def marked_source(source):
    """SOURCE with each statement of Repro.forward inside an NVTX range `fxscope-op:<k>:<node>`
    that ends after a synchronize. Rewritten from the runnable's own text rather than retraced:
    tracing runs ops whose arguments are all constants (the RNG seeds) once and freezes them."""
    out = []
    in_forward = False
    k = 0
    for line in source.split("\n"):
        if line.startswith("    def forward("):
            in_forward = True
        elif in_forward and line.strip() and not line.startswith("        "):
            in_forward = False
        statement = re.match(r"^        (\w+) = ", line) if in_forward else None
        if statement:
            out.append("        _fxscope_push('fxscope-op:%d:%s')" % (k, statement.group(1)))
            out.append(line)
            out.append("        _fxscope_pop()")
            k += 1
        else:
            out.append(line)
    return "\n".join(out)


def prepared_source(source):
    """The runnable script without what would override this run's settings."""
    # The script pins TORCH_TRACE and cache dirs of the capture: drop those so ours stay in force.
    source = re.sub(r"^os\.environ\[.*$", "", source, flags=re.MULTILINE)
    # It also pins the capture's mode options; each run sets its own mode, so those go too.
    return re.sub(r"^torch\._inductor\.config\.(max_autotune\w*|coordinate_descent_tuning|"
                  r"triton\.cudagraphs) = .*$", "", source, flags=re.MULTILINE)


def compiled_source(text, filename):
    """TEXT compiled as FILENAME, its lines registered with linecache: a user's Triton kernel in
    the runnable (@triton.jit) reads its own source through inspect, which finds it there."""
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    return compile(text, filename, "exec")


# Operator namespaces PyTorch defines itself; any other in a runnable is a program's custom op.
BUILTIN_NAMESPACES = {"aten", "prims", "higher_order", "_c10d_functional", "c10d_functional",
                      "_dtensor", "inductor", "quantized", "_quantized", "profiler", "rngprims"}


def missing_custom_ops(source):
    """The custom ops (namespace.name) the runnable calls that no loaded library registers: their
    code is the user's program, which the log does not hold."""
    import torch

    missing = []
    for ns, name in sorted(set(re.findall(r"torch\.ops\.(\w+)\.(\w+)", source))):
        # An op the runnable defines itself ("ns::name" in a torch.library call) loads with it.
        if ns in BUILTIN_NAMESPACES or ("%s::%s" % (ns, name)) in source:
            continue
        try:
            getattr(getattr(torch.ops, ns), name)
        except (AttributeError, RuntimeError):
            missing.append(ns + "." + name)
    return missing


def load_repro(source, graph_text=""):
    """The module and random inputs the runnable script builds, without running its __main__;
    GRAPH_TEXT, the unit's readable graph, gives the subgraphs the runnable leaves out."""
    scope = {"__name__": "fxscope_repro"}
    try:
        code = compiled_source(with_subgraphs(prepared_source(source), graph_text),
                               "<fx_graph_runnable>")
    except SyntaxError as e:
        # PyTorch writes some units' runnable as code that is not Python: a torch.cond's
        # branches appear as `<lambda>()`, their modules left out, and without the unit's
        # readable graph (before_post_grad_graph) they cannot be rebuilt.
        refuse(f"the log's fx_graph_runnable is not valid Python (line {e.lineno}: "
               f"{(e.text or '').strip()}), as PyTorch wrote it; the PyTorch backend cannot "
               f"rebuild this unit")
    exec(code, scope)
    from torch._dynamo.debug_utils import InputReader

    reader = InputReader()
    scope["load_args"](reader)
    return scope["Repro"](), reader.args


def input_names(module):
    """The names of the runnable's inputs in order (its forward's parameters): the unit's
    placeholders, which CUDA graph trees index when they copy inputs."""
    import inspect

    return list(inspect.signature(module.forward).parameters)


def mark_cudagraph_input_copies(names):
    """Wraps CUDA graph trees' copy of non-static inputs into the graph's static buffers in an
    NVTX range `fxscope-copy:<input>,...`, so the copy kernels (launched outside the graph) are
    attributed to the inputs they copy. Private API: where it is absent, copies stay unattributed."""
    import torch

    try:
        from torch._inductor import cudagraph_trees
    except ImportError:
        return
    node_class = getattr(cudagraph_trees, "CUDAGraphNode", None)
    original = getattr(node_class, "_copy_inputs_and_remove_from_src", None)
    if original is None or getattr(original, "fxscope_marked", False):
        return

    def marked(self, dsts, srcs):
        copied = [i for i in getattr(self, "non_static_input_idx", ())
                  if i < len(srcs) and isinstance(srcs[i], torch.Tensor)]
        label = ",".join(names[i] if i < len(names) else "input%d" % i for i in copied)
        torch.cuda.nvtx.range_push("fxscope-copy:" + label)
        try:
            return original(self, dsts, srcs)
        finally:
            torch.cuda.nvtx.range_pop()

    marked.fxscope_marked = True
    node_class._copy_inputs_and_remove_from_src = marked


def nvtx_marked_module(source, graph_text=""):
    """The runnable's module with each op inside an NVTX range naming its node (marked_source),
    so that every eager kernel is attributed to the op that launched it; a subgraph's kernels
    (a torch.cond's branch) to the op that calls it."""
    import torch

    def pop():
        # The op's kernels finish inside its range (see time_repeats); these repeats attribute
        # kernels, the plain calls give the eager time.
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()

    scope = {"__name__": "fxscope_repro_marked", "_fxscope_push": torch.cuda.nvtx.range_push,
             "_fxscope_pop": pop}
    marked = with_subgraphs(marked_source(prepared_source(source)), graph_text)
    exec(compiled_source(marked, "<fx_graph_runnable marked>"), scope)
    return scope["Repro"]()


def time_repeats(fn, args, mode, warmup, repeats, mark):
    """CUDA-event microseconds of REPEATS calls after WARMUP calls; each in an NVTX range."""
    import torch

    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    progress("%s: timing %d calls%s" % (mode, repeats, ", each op marked" if mark and
                                          mode == "eager" else ""))
    times = []
    for i in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        if mark:
            torch.cuda.nvtx.range_push("fxscope:%s:%d" % (mode, i))
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        if mark:
            # Ended after the synchronize, the range holds its kernels' execution: fxscope slices
            # kernels by their own start then, with no launch records (the costly part of CUPTI).
            torch.cuda.nvtx.range_pop()
        times.append(start.elapsed_time(end) * 1000.0)
    return times


def stats(times):
    return {"median": statistics.median(times), "min": min(times), "max": max(times)}


def run_mode(module, marked, args, mode, warmup, repeats, static_inputs):
    import torch

    torch._dynamo.reset()
    entry = {"mode": mode, "repeats": repeats}
    progress("%s: %s%d warm-up calls" % (
        mode, "" if mode == "eager" else "torch.compile (the first call compiles), ", warmup))
    if mode == "eager":
        # Plain calls give the time; the marked module's repeats give the attribution, since
        # they synchronize after every op.
        entry["total_us"] = stats(time_repeats(module, args, mode, warmup, repeats, False))
        entry["attributed_total_us"] = stats(
            time_repeats(marked, args, mode, 1, repeats, True))
    else:
        if static_inputs:
            # In the captured model most inputs were parameters, whose addresses CUDA graphs
            # keep; plain inputs would be copied into the graph's buffers on every call.
            for arg in args:
                if isinstance(arg, torch.Tensor):
                    torch._dynamo.mark_static_address(arg)
        compiled = torch.compile(module, mode=None if mode == "default" else mode)
        entry["total_us"] = stats(time_repeats(compiled, args, mode, warmup, repeats, True))
    entry["range"] = "fxscope:%s:" % mode
    return entry


def profiled_kernel_us(module, args, mode, warmup, repeats, static_inputs):
    """torch.profiler's kernel time per repeat, for comparison (no CUPTI injection then: two
    CUPTI activity clients in one process would steal each other's records)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    torch._dynamo.reset()
    if static_inputs and mode != "eager":
        for arg in args:
            if isinstance(arg, torch.Tensor):
                torch._dynamo.mark_static_address(arg)
    fn = module if mode == "eager" else torch.compile(
        module, mode=None if mode == "default" else mode)
    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(repeats):
            fn(*args)
        torch.cuda.synchronize()
    total = 0.0
    kernels = 0
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            # Kernels only: copies and sets are not kernel time in fxscope's totals either.
            if "Memcpy" in event.name or "Memset" in event.name:
                continue
            total += event.device_time
            kernels += 1
    return {"mode": mode, "kernel_us": total / repeats, "launches": kernels / repeats}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", help="a TORCH_TRACE log file")
    parser.add_argument("--unit", default="", help="compile id such as 0/0 (default: the first)")
    parser.add_argument("--runnable", default="",
                        help="the unit's fx_graph_runnable, already taken out of the log (how "
                        "fxscope-cli calls it: it reads compressed logs, which this script does not)")
    parser.add_argument("--graph", default="",
                        help="with --runnable: the unit's before_post_grad_graph, whose classes "
                        "give the subgraphs (a torch.cond's branches) the runnable leaves out")
    parser.add_argument("--mode", default="all", help="eager, default, reduce-overhead, "
                        "max-autotune, a comma-separated list, or all")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--profile", action="store_true",
                        help="report torch.profiler kernel totals instead of CUDA-event times")
    parser.add_argument("--allow-tf32", action="store_true",
                        help="let cuDNN convolutions and matmuls use TF32 (default: full FP32, as "
                        "fxscope's engine runs and as the bundled samples were captured)")
    parser.add_argument("--import", dest="imports", action="append", default=[],
                        metavar="MODULE", help="import MODULE first (repeatable): the module of "
                        "your program that registers the custom ops the graph calls")
    parser.add_argument("--copy-inputs", action="store_true",
                        help="compiled modes: leave inputs non-static, so CUDA graphs copy them "
                        "on every call (default: static, as parameters are)")
    opts = parser.parse_args()

    modes = MODES if opts.mode == "all" else tuple(opts.mode.split(","))
    for mode in modes:
        if mode not in MODES:
            refuse("--mode %s: expected eager, default, reduce-overhead, max-autotune or all" % mode)
    if opts.runnable:
        if not opts.unit:
            refuse("--runnable %s: --unit must name the unit it is of" % opts.runnable)
        try:
            with open(opts.runnable, encoding="utf-8", errors="replace") as f:
                runnables = {opts.unit: f.read()}
            graphs = {}
            if opts.graph:
                with open(opts.graph, encoding="utf-8", errors="replace") as f:
                    graphs[opts.unit] = f.read()
        except OSError as e:
            refuse("%s: cannot read it (%s)" % (e.filename, e.strerror))
    elif not os.path.isfile(opts.log):
        refuse("%s: no such log file" % opts.log)
    elif opts.log.endswith((".zst", ".gz")):
        refuse("%s: a compressed log; fxscope-cli run --backend pytorch reads it" % opts.log)
    else:
        runnables, graphs = find_runnables(opts.log)
    if not runnables:
        refuse("%s: no fx_graph_runnable artifact in the log (capture with TORCH_TRACE on "
               "PyTorch 2.6 or newer)" % opts.log)
    # fxscope-cli passes the unit it chose (the engine's default too); alone, the driver takes the
    # first in compile order: "2/0" before "10/0", which a sort of the strings would reverse.
    unit = opts.unit or min(runnables, key=lambda u: tuple(int(p) for p in u.split("/")))
    if unit not in runnables:
        refuse("%s: compile unit %s has no fx_graph_runnable (units that have one: %s)"
               % (opts.log, unit, ", ".join(sorted(runnables))))
    try:
        import torch
    except ImportError:
        refuse("PyTorch is not installed for %s" % sys.executable)
    for module_name in opts.imports:
        try:
            importlib.import_module(module_name)
        except Exception as e:  # the user's module: any error it raises is theirs to see
            refuse("--import %s: %s: %s" % (module_name, type(e).__name__, e))
    missing = missing_custom_ops(runnables[unit])
    if missing:
        refuse("unit %s calls the custom op%s %s, which your program registers (torch.library) "
               "and the log does not hold: pass the module that registers %s with --import MODULE"
               % (unit, "s" if len(missing) > 1 else "", ", ".join(missing),
                  "them" if len(missing) > 1 else "it"))
    if not torch.cuda.is_available():
        refuse("no CUDA GPU is visible to PyTorch %s" % torch.__version__)

    # The log does not say how the captured process set TF32, and PyTorch's own default differs
    # between convolutions (cuDNN: TF32 on) and matmuls (off): left alone, ResNet's convolutions
    # ran TF32 kernels here while fxscope's engine ran FP32. Both are set, before anything compiles.
    torch.backends.cudnn.allow_tf32 = opts.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = opts.allow_tf32
    source = runnables[unit]
    progress("PyTorch %s on %s, unit %s" % (torch.__version__, torch.cuda.get_device_name(0), unit))
    graph_text = graphs.get(unit, "")
    module, args = load_repro(source, graph_text)
    marked = (nvtx_marked_module(source, graph_text) if "eager" in modes and not opts.profile
              else None)
    if not opts.profile:
        mark_cudagraph_input_copies(input_names(module))
    result = {"torch_version": torch.__version__, "device": torch.cuda.get_device_name(0),
              "unit": unit, "allow_tf32": opts.allow_tf32, "modes": []}
    with torch.no_grad():
        for mode in modes:
            if opts.profile:
                result["modes"].append(profiled_kernel_us(module, args, mode, opts.warmup,
                                                          opts.repeats, not opts.copy_inputs))
            else:
                result["modes"].append(run_mode(module, marked, args, mode, opts.warmup,
                                                opts.repeats, not opts.copy_inputs))
    torch.cuda.synchronize()
    print(json.dumps(result))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
