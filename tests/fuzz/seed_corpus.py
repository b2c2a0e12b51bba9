#!/usr/bin/env python3
"""Cuts seed inputs for the fuzz targets out of the real logs in sample_graphs/ and tests/data/.

Writes SEED_DIR/<target>/<sample>_<what>: small pieces (a few KB) of each log, so that the fuzzer
starts from inputs the parsers understand. The kept corpus (corpus/<target>/) is what libFuzzer
made of these seeds after fuzzing and `-merge=1`; see README.md. Run from anywhere:

    tests/fuzz/seed_corpus.py /tmp/fxscope_seeds
"""

import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAX_SEED = 8 * 1024  # bytes; small inputs mutate faster and keep the corpus small
GRAPH_KINDS = ("dynamo_output_graph", "aot_inference_graph", "aot_forward_graph",
               "aot_backward_graph", "aot_joint_graph", "inductor_post_grad_graph")
PREFIX = re.compile(r"^[VIWEC]\d{4} [\d:.]+ +\d+ [^\]]*\] ")


def records(log):
    """(kind, envelope line, payload text) for each record of LOG, payload TABs stripped."""
    current = None
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("\t"):
            if current is not None:
                current[2].append(line[1:])
            continue
        if current is not None:
            yield current[0], current[1], "\n".join(current[2])
        match = PREFIX.match(line)
        current = None
        if match is None:
            continue
        try:
            envelope = json.loads(line[match.end():])
        except json.JSONDecodeError:
            continue
        kind = next((k for k in envelope if k not in ("frame_id", "frame_compile_id", "attempt",
                                                       "has_payload", "rank")), "")
        if kind == "artifact":
            kind = envelope["artifact"].get("name", "artifact")
        current = (kind, line, [])
    if current is not None:
        yield current[0], current[1], "\n".join(current[2])


def head(text, limit=MAX_SEED):
    """TEXT cut to whole lines within LIMIT bytes."""
    data = text.encode()
    if len(data) <= limit:
        return data
    return data[:limit].rsplit(b"\n", 1)[0] + b"\n"


def fragments(output_code):
    """Each `# Graph fragment:` block of OUTPUT_CODE, with its `#   %...` lines."""
    blocks, block = [], None
    for line in output_code.splitlines():
        if line.strip() == "# Graph fragment:":
            block = [line]
            blocks.append(block)
        elif block is not None and line.lstrip().startswith("#   "):
            block.append(line)
        else:
            block = None
    return ["\n".join(b) + "\n" for b in blocks]


def main():
    out = pathlib.Path(sys.argv[1])
    seeds = {}

    def add(target, name, data):
        seeds.setdefault(target, {})[name] = data

    for log in sorted(ROOT.glob("sample_graphs/*/dedicated_log_torch_trace_*.log")):
        sample = log.parent.name
        text = log.read_text(errors="replace")
        add("trace_reader", f"{sample}_head", head(text))
        kinds_seen = set()
        for index, (kind, envelope, payload) in enumerate(records(log)):
            # Each record kind once per log, as a one-record log with its payload cut short
            # (a cut payload also trips the md5 check of the last record).
            if kind not in kinds_seen:
                kinds_seen.add(kind)
                record = envelope + "\n" + "".join("\t" + l + "\n" for l in payload.splitlines())
                add("trace_reader", f"{sample}_{kind}", head(record))
            if kind in GRAPH_KINDS and len(seeds.get("fx_readable", {})) < 60:
                add("fx_readable", f"{sample}_{kind}_{index}", head(payload))
            if kind == "inductor_output_code":
                add("output_code", f"{sample}_head_{index}", head(payload, 12 * 1024))
                call = payload.find("\ndef call(")
                if call >= 0:
                    add("output_code", f"{sample}_call_{index}", head(payload[call + 1:]))
                for n, block in enumerate(fragments(payload)[:4]):
                    add("graph_fragment", f"{sample}_{index}_{n}", head(block))
                add("graph_fragment", f"{sample}_code_{index}", head(payload, 12 * 1024))
            if kind in ("dynamo_graph_break_reason", "recompile_reasons"):
                add("trace_payloads", f"{sample}_{kind}_{index}", head(payload))

    # The hand-made edge cases of the unit tests (broken lines, truncated payloads, ...).
    for path in sorted(ROOT.glob("tests/data/trace/**/*.log")):
        add("trace_reader", f"testdata_{path.stem}", head(path.read_text(errors="replace")))
    tricky = ROOT / "tests/data/inductor/tricky_output_code.py"
    add("output_code", "testdata_tricky", head(tricky.read_text(), 12 * 1024))

    for target, files in seeds.items():
        (out / target).mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (out / target / name).write_bytes(data)
        print(f"{target}: {len(files)} seeds")


if __name__ == "__main__":
    main()
