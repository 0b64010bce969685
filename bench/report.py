#!/usr/bin/env python3
"""Turns the raw outputs of bench/run.sh into docs/PERFORMANCE.md, docs/performance/results.csv and
the PNG plots beside it.

  report.py RAW_DIR DOCS_DIR

RAW_DIR holds what run.sh collected: *.txt files of RESULT lines (dispatch_bench, dense_bench,
references.py), elementwise.txt (elementwise_bench's table), binding.json and binding_rules.json
(Google Benchmark JSON), commands.tsv (file, command) and machine.txt (key: value lines).
Every ratio is FreeDML's speed over the reference's speed from the same run: above 1 FreeDML is
faster, below 1 it is behind (0.5 = twice as slow).
"""
import csv
import json
import math
import os
import re
import statistics
import sys

raw, docs = sys.argv[1], sys.argv[2]
plots = os.path.join(docs, "performance")
os.makedirs(plots, exist_ok=True)

commands = {}
if os.path.exists(os.path.join(raw, "commands.tsv")):
    with open(os.path.join(raw, "commands.tsv")) as f:
        for line in f:
            if "\t" in line:
                name, command = line.rstrip("\n").split("\t", 1)
                commands[name] = command

machine = {}
if os.path.exists(os.path.join(raw, "machine.txt")):
    with open(os.path.join(raw, "machine.txt")) as f:
        for line in f:
            if ":" in line:
                key, value = line.split(":", 1)
                machine[key.strip()] = value.strip()


def read_spin_count():
    """The GOMP_SPINCOUNT dense_bench ran under (FreeDML's build setting), from its header line."""
    for name in ("gemm.txt.err", "conv.txt.err", "peak.txt.err"):
        path = os.path.join(raw, name)
        if os.path.exists(path):
            with open(path) as f:
                match = re.search(r"GOMP_SPINCOUNT=(\d+)", f.read())
            if match:
                return match.group(1)
    return "FREEDML_OMP_SPIN_COUNT"


spin_count = read_spin_count()

rows = []  # dicts: group, case, dtype, impl, value, unit, note, source


def add(group, case, dtype, impl, value, unit, note, source):
    rows.append(dict(group=group, case=case, dtype=dtype, impl=impl, value=float(value), unit=unit, note=note,
                     source=source))


for name in sorted(os.listdir(raw)):
    path = os.path.join(raw, name)
    if name.endswith(".txt") and name not in ("elementwise.txt", "machine.txt"):
        with open(path) as f:
            for line in f:
                if line.startswith("RESULT,"):
                    parts = line.rstrip("\n").split(",", 7)
                    if len(parts) == 8:
                        # Sections of their own: "threading", "competing" or "turns", case "gemm 256".
                        for section in ("threading", "competing", "turns"):
                            if name.startswith(section):
                                parts[1:3] = [section, f"{parts[1]} {parts[2]}"]
                        add(*parts[1:], source=name)

# elementwise_bench prints a table: operator type API kernel memcpy torch API/copy API/torch.
if os.path.exists(os.path.join(raw, "elementwise.txt")):
    with open(os.path.join(raw, "elementwise.txt")) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 3 and fields[0] == "memcpy" and fields[1] in ("FLOAT32", "FLOAT16"):
                add("elementwise", "memcpy", fields[1], "memcpy", fields[2], "GB/s",
                    "copy bandwidth: best of 1; 2 and every-core memcpy", "elementwise.txt")
            elif len(fields) >= 6 and fields[1] in ("FLOAT32", "FLOAT16") and re.match(r"^[A-Z]+$", fields[0]):
                op, dtype = fields[0], fields[1]
                add("elementwise", op, dtype, "FreeDML", fields[2], "GB/s", "public API; re-executed list",
                    "elementwise.txt")
                if fields[3] != "n/a":
                    add("elementwise", op, dtype, "FreeDML kernel", fields[3], "GB/s", "CPU kernel called directly",
                        "elementwise.txt")
                if fields[5] != "n/a":
                    add("elementwise", op, dtype, "PyTorch", fields[5], "GB/s", "bench/elementwise_torch.py",
                        "elementwise.txt")


def google_benchmark(file, impl):
    path = os.path.join(raw, file)
    source = file.replace(".json", ".out")  # the name run.sh gave the command
    if not os.path.exists(path):
        return
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return
    for b in data.get("benchmarks", []):
        name = b.get("name", "")
        if b.get("run_type") == "aggregate" and name.endswith("_BigO"):
            add("binding", "fit " + name.split("/")[0].replace("_BigO", ""), "-", impl,
                b.get("real_coefficient", 0), "coefficient", f"complexity {b.get('big_o', '?')}", source)
        elif b.get("run_type") == "aggregate" and name.endswith("_RMS"):
            add("binding", "rms " + name.split("/")[0].replace("_RMS", ""), "-", impl, b.get("rms", 0), "fraction",
                "RMS error of the fit", source)
        elif "/" in name and b.get("run_type", "iteration") == "iteration" and not b.get("error_occurred"):
            bench, n = name.split("/")[0], int(name.split("/")[1])
            scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
            add("binding", f"{bench} N={n}", "-", impl, b["real_time"] * scale / n, "ns/input",
                f"{b['real_time'] * scale / 1e3:.1f} us for {n} inputs", source)


google_benchmark("binding.json", "FreeDML API")
google_benchmark("binding_rules.json", "FreeDML validation only")


# dense_bench's FLOAT32 twin of a FLOAT16 case (kSameRounds there): the FLOAT32 operator timed in the
# FLOAT16 case's own interleaved rounds, reported under FLOAT16.
SAME_ROUNDS = "FreeDML FLOAT32 twin"


def value(group, case, dtype, impl):
    for r in rows:
        if r["group"] == group and r["case"] == case and r["dtype"] == dtype and r["impl"] == impl and r["value"] > 0:
            return r["value"]
    return None


def ratio(a, b, time_like=False):
    """FreeDML speed over reference speed."""
    if not a or not b:
        return None
    return b / a if time_like else a / b


def fmt(x, digits=2):
    if x is None:
        return "n/a"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x < 0.1:
        return f"{x:.2g}"  # keep two significant digits of a tiny ratio
    return f"{x:.{digits}f}"


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


# ---- results.csv -----------------------------------------------------------------------------------

with open(os.path.join(plots, "results.csv"), "w", newline="") as f:
    writer = csv.writer(f)
    writer.writerow(["group", "case", "dtype", "implementation", "value", "unit", "note", "command"])
    for r in rows:
        writer.writerow([r["group"], r["case"], r["dtype"], r["impl"], f"{r['value']:.6g}", r["unit"], r["note"],
                         commands.get(r["source"], r["source"])])

# ---- plots -----------------------------------------------------------------------------------------

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({"font.size": 9, "figure.dpi": 80})
written_plots = []


def save(fig, name):
    fig.tight_layout()
    fig.savefig(os.path.join(plots, name), dpi=80)
    plt.close(fig)
    written_plots.append(name)


peak_every = max([r["value"] for r in rows if r["group"] == "peak" and "threads" in r["case"]] or [0]) or None
peak_one = value("peak", "FMA loop 1 thread", "FLOAT32", "machine")
# The ceiling: the best the FMA loop reached, on one thread or on every core, or the best raw oneDNN
# GEMM of the run if that went higher (on a loaded machine the loop's short rounds can all be unlucky).
best = max([r for r in rows if r["group"] in ("gemm", "conv") and r["unit"] == "GFLOP/s"] or [None],
           key=lambda r: r["value"] if r else 0)
peak_gemm = best["value"] if best else None
peak_all = max(peak_every or 0, peak_one or 0, peak_gemm or 0) or None
peak_source = (f"{best['impl']} {best['group']} {best['case']}" if best and peak_all == peak_gemm else "FMA loop")

gemm_sizes = sorted({int(r["case"]) for r in rows if r["group"] == "gemm"})
gemm_impls = [("FreeDML owned B", "FLOAT32", "C0", "-o"), ("FreeDML B input", "FLOAT32", "C0", ":o"),
              ("oneDNN packed B", "FLOAT32", "C1", "-s"), ("ONNX Runtime", "FLOAT32", "C2", "-^"),
              ("PyTorch", "FLOAT32", "C3", "-v"), ("FreeDML owned B", "FLOAT16", "C0", "--x"),
              ("ONNX Runtime", "FLOAT16", "C2", "--x")]
if gemm_sizes:
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for impl, dtype, color, style in gemm_impls:
        points = [(n, value("gemm", str(n), dtype, impl)) for n in gemm_sizes]
        points = [(n, v) for n, v in points if v]
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], style, color=color, label=f"{impl} {dtype}",
                    markersize=4)
    if peak_all:
        ax.axhline(peak_all, color="k", linestyle="--", linewidth=1, label=f"ceiling ({peak_source})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(gemm_sizes)
    ax.set_xticklabels([str(n) for n in gemm_sizes])
    ax.set_xlabel("M = N = K")
    ax.set_ylabel("GFLOP/s (log)")
    ax.set_title("Square GEMM on the CPU: FreeDML public API vs references, same run")
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(True, which="both", alpha=0.3)
    save(fig, "gemm.png")

conv_layers = []
for r in rows:
    if r["group"] == "conv" and r["case"] not in conv_layers:
        conv_layers.append(r["case"])
layer_info = {}
layers_file = os.path.join(os.path.dirname(os.path.abspath(__file__)), "resnet50_convs.csv")
with open(layers_file) as f:
    for row in csv.DictReader(f):
        layer_info[row["name"]] = row


def layer_flops(name):
    row = layer_info[name]
    k, s, p = int(row["kernel"]), int(row["stride"]), int(row["padding"])
    oh = (int(row["height"]) + 2 * p - k) // s + 1
    ow = (int(row["width"]) + 2 * p - k) // s + 1
    return 2.0 * int(row["out_channels"]) * oh * ow * int(row["in_channels"]) * k * k


conv_refs = ["oneDNN blocked", "oneDNN NCHW", "ONNX Runtime", "PyTorch", "PyTorch oneDNN"]
if conv_layers:
    fig, ax = plt.subplots(figsize=(8, 4.6))
    impls = [("FreeDML owned filter", "C0"), ("oneDNN blocked", "C1"), ("oneDNN NCHW", "C4"),
             ("ONNX Runtime", "C2"), ("PyTorch", "C3")]
    width = 0.8 / len(impls)
    for i, (impl, color) in enumerate(impls):
        xs, ys = [], []
        for j, layer in enumerate(conv_layers):
            v = value("conv", layer, "FLOAT32", impl)
            if v:
                xs.append(j + (i - len(impls) / 2 + 0.5) * width)
                ys.append(v)
        if xs:
            ax.bar(xs, ys, width, color=color, label=impl)
    if peak_all:
        ax.axhline(peak_all, color="k", linestyle="--", linewidth=1, label=f"ceiling ({peak_source})")
    ax.set_xticks(range(len(conv_layers)))
    ax.set_xticklabels(conv_layers, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("GFLOP/s")
    ax.set_title("ResNet-50 convolutions, batch 1, FLOAT32: FreeDML public API vs references")
    ax.legend(fontsize=7, ncol=3)
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, "conv.png")

ew_ops = []
for r in rows:
    if r["group"] == "elementwise" and r["case"] != "memcpy" and r["case"] not in ew_ops:
        ew_ops.append(r["case"])
if ew_ops:
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, dtype in zip(axes, ["FLOAT32", "FLOAT16"]):
        impls = [("FreeDML", "C0"), ("PyTorch", "C3"), ("ONNX Runtime", "C2")]
        width = 0.8 / len(impls)
        for i, (impl, color) in enumerate(impls):
            xs, ys = [], []
            for j, op in enumerate(ew_ops):
                v = value("elementwise", op, dtype, impl)
                if v:
                    xs.append(j + (i - len(impls) / 2 + 0.5) * width)
                    ys.append(v)
            if xs:
                ax.bar(xs, ys, width, color=color, label=impl)
        copy = value("elementwise", "memcpy", dtype, "memcpy")
        if copy:
            ax.axhline(copy, color="k", linestyle="--", linewidth=1, label="memcpy bandwidth")
        ax.set_xticks(range(len(ew_ops)))
        ax.set_xticklabels(ew_ops, rotation=30, fontsize=7)
        ax.set_title(f"{dtype}, packed, large tensors")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("GB/s moved (read + written)")
    axes[0].legend(fontsize=7)
    save(fig, "elementwise.png")

dispatch_rows = [r for r in rows if r["group"] == "dispatch"]
if dispatch_rows:
    fig, ax = plt.subplots(figsize=(7, 3))
    labels = [f"{r['impl']}: {r['case']}" for r in dispatch_rows]
    colors = ["C0" if r["impl"] == "FreeDML" else "0.5" if r["impl"] == "machine" else "C2"
              if r["impl"] == "ONNX Runtime" else "C3" for r in dispatch_rows]
    ax.barh(range(len(dispatch_rows)), [r["value"] for r in dispatch_rows], color=colors)
    ax.set_yticks(range(len(dispatch_rows)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("microseconds (median)")
    ax.set_title("Dispatch overhead of a tiny operator")
    ax.grid(True, axis="x", alpha=0.3)
    save(fig, "dispatch.png")

binding_rows = [r for r in rows if r["group"] == "binding" and r["unit"] == "ns/input"]
if binding_rows:
    fig, ax = plt.subplots(figsize=(6, 3.4))
    series = {}
    for r in binding_rows:
        bench, n = r["case"].split(" N=")
        series.setdefault(f"{r['impl']}: {bench}", []).append((int(n), r["value"]))
    for label, points in series.items():
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], "-o", markersize=4, label=label)
    ax.set_xscale("log")
    ax.set_xlabel("inputs bound (JOIN of N inputs)")
    ax.set_ylabel("ns per input")
    ax.set_title("BindInputs + validation: cost per input (flat = linear)")
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    save(fig, "binding.png")

# ---- PERFORMANCE.md ----------------------------------------------------------------------------------

out = []
w = out.append
w("# FreeDML performance")
w("")
w("Written by `bench/run.sh` (the command that reproduces every figure below); do not edit by hand. Every")
w("figure compares FreeDML with a reference **measured in the same run** on the same machine, as a ratio:")
w("**FreeDML's speed over the reference's speed** (above 1: FreeDML is faster; 0.50: FreeDML takes twice as")
w("long). Times are medians over rounds; within one process the implementations of a case run in")
w("interleaved rounds, so the noise of a shared machine falls on all of them alike. Raw numbers, with the")
w("spread of the rounds and the command of each, are in [performance/results.csv](performance/results.csv).")
w("")
w("## Machine")
w("")
for key in ["date", "cpu", "cores", "memory", "load before", "load after", "kernel", "compiler", "oneDNN", "PyTorch",
            "ONNX Runtime", "device", "threads", "run"]:
    if key in machine:
        w(f"- {key}: {machine[key]}")
if peak_all:
    w(f"- measured peak: {fmt(peak_one)} GFLOP/s on one thread, {fmt(peak_every)} GFLOP/s on every core "
      f"(FLOAT32 FMA loop, `dense_bench --peak`); best figure of any implementation in the run: "
      f"{fmt(peak_gemm)} GFLOP/s; the ceiling used below (\"of peak\"): {fmt(peak_all)} GFLOP/s, from {peak_source}. "
      "On a loaded machine the loop's short rounds rarely all get both cores, so the ceiling is a lower bound")
w("")
w("The machine is shared: the load average above counts other people's compilers. Multi-threaded figures of")
w("every library suffer from it (a parallel region waits for its slowest thread, and a descheduled thread")
w("can take milliseconds to come back), which is why only ratios from one run are reported as results.")
w("")


def json_lines(name):
    """The JSON objects of one raw file of JSON lines (none where the file is missing)."""
    path = os.path.join(raw, name)
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.startswith("{"):
                    yield json.loads(line)


def type_name(r):
    return {"f32": "FLOAT32", "f16": "FLOAT16"}.get(r.get("type"), r.get("type", ""))


# operator_bench.cpp and operator_torch.py: one JSON object per line, GB/s of the same byte counts.
for name, impl in (("ops-freedml.jsonl", "FreeDML"), ("ops-torch.jsonl", "PyTorch")):
    for r in json_lines(name):
        if r.get("bench") == "op" and "gbs" in r:
            add("operators", r["name"], type_name(r), impl, r["gbs"], "GB/s", "", name)

# sequence_bench.cpp, sequence_torch.py and sequence_ort.py: one JSON object per line, GFLOP/s of
# the same FLOP counts (so a ratio of two is the ratio of times); the references name themselves.
seq_ms = {}  # (case, impl): milliseconds per call
for name, impl in (("seq-freedml.jsonl", "FreeDML"), ("seq-freedml-passive.jsonl", "FreeDML passive"),
                   ("seq-torch.jsonl", "PyTorch"), ("seq-ort.jsonl", "ONNX Runtime")):
    for r in json_lines(name):
        if r.get("bench") == "seq" and "gflops" in r:
            add("sequence", r["name"], type_name(r), impl, r["gflops"], "GFLOP/s", r.get("reference", ""), name)
            seq_ms[(r["name"], impl)] = r["ms"]


# onnx_models.py: real models through dmlrun model.onnx and ONNX Runtime's CPU provider, one JSON
# object per case with both times (ms) and the largest output difference.
model_rows = {}  # case: the JSON object
for r in json_lines("onnx-models.jsonl"):
    if r.get("bench") == "model":
        model_rows[r["name"]] = r
        if not r.get("skipped"):
            add("onnx models", r["name"], "FLOAT32", "FreeDML", r["ms"], "ms", "", "onnx-models.jsonl")
            add("onnx models", r["name"], "FLOAT32", "ONNX Runtime", r["reference_ms"], "ms", "", "onnx-models.jsonl")


# training_bench.cpp and training_torch.py: one JSON object per line, steps/s of the same CNN step;
# training_bench's train_op lines are its per-operator profile (each operator alone, ms).
# The -passive files are the same pair under OMP_WAIT_POLICY=passive.
for name in sorted(os.listdir(raw)):
    if not (name.startswith("train-") and name.endswith(".jsonl")):
        continue
    impl = "FreeDML" if name.startswith("train-freedml") else "PyTorch"
    suffix = " (OMP_WAIT_POLICY=passive)" if "passive" in name else ""
    with open(os.path.join(raw, name)) as f:
        for line in f:
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if r.get("bench") == "train" and "steps_per_s" in r:
                add("training", r["name"] + suffix, r.get("optimizer", "?"), impl, r["steps_per_s"], "steps/s",
                    f"{r['ms']:.2f} ms per step; {r.get('dispatches', '')} dispatches", name)
            elif r.get("bench") == "train_op":
                add("training profile", r["name"], "FLOAT32", impl, r["ms"], "ms", "", name)


def command_of(source):
    return commands.get(source, source)


def sources(group):
    return sorted({r["source"] for r in rows if r["group"] == group})


def commands_block(group):
    srcs = sources(group)
    if srcs:
        w("Produced by:")
        w("")
        w("```sh")
        for s in srcs:
            w(command_of(s))
        w("```")
        w("")


behind = []  # (what, ratio, reference) where FreeDML is behind

# Dispatch
if dispatch_rows:
    w("## Dispatch overhead")
    w("")
    w("An `ELEMENT_WISE_IDENTITY` of 4 FLOAT32 values through the public API (`bench/dispatch_bench.cpp`). The")
    w("thread round trip (a mutex + condition-variable ping-pong between two threads, measured in the same rounds)")
    w("is what handing each submission to a queue worker thread would cost; an idle FreeDML CPU queue runs the")
    w("submission on the calling thread instead (`src/d3d12/command_queue.h`), and a re-executed dispatch reuses")
    w("its last validation while its descriptors are unchanged. PyTorch and ONNX Runtime run the tiny op")
    w("synchronously on the calling thread (from Python).")
    w("")
    w("| what | µs (median) | ratio vs thread round trip | ratio vs PyTorch tiny op | ratio vs ONNX Runtime tiny op |")
    w("| --- | ---: | ---: | ---: | ---: |")
    floor = value("dispatch", "thread round trip", "-", "machine")
    torch_tiny = value("dispatch", "tiny op (4 floats)", "FLOAT32", "PyTorch")
    ort_tiny = value("dispatch", "tiny op (4 floats)", "FLOAT32", "ONNX Runtime")
    for r in dispatch_rows:
        if r["impl"] == "FreeDML":
            rf = ratio(r["value"], floor, True) if "per dispatch" not in r["case"] else None
            w(f"| FreeDML: {r['case']} | {fmt(r['value'])} | {fmt(rf)} | {fmt(ratio(r['value'], torch_tiny, True))} | "
              f"{fmt(ratio(r['value'], ort_tiny, True))} |")
        else:
            w(f"| {r['impl']}: {r['case']} | {fmt(r['value'])} | | | |")
    reexec = value("dispatch", "re-execute+wait", "FLOAT32", "FreeDML")
    if reexec and ort_tiny and reexec > ort_tiny:
        behind.append(("dispatch: re-execute + fence wait of one tiny op", ratio(reexec, ort_tiny, True),
                       "ONNX Runtime session run"))
    if reexec and torch_tiny and reexec > torch_tiny:
        behind.append(("dispatch: re-execute + fence wait of one tiny op", ratio(reexec, torch_tiny, True),
                       "PyTorch tiny op"))
    w("")
    w("![dispatch](performance/dispatch.png)")
    w("")
    commands_block("dispatch")

# Graphs
graph_rows = [r for r in rows if r["group"] == "graph"]
compile_rows = [r for r in rows if r["group"] == "graph compile"]
if graph_rows:
    w("## Compiled graphs")
    w("")
    w("`IDMLDevice1::CompileGraph` against the same operators recorded as separate dispatches in one command")
    w("list with UAV barriers between them, re-executed and waited for (`bench/graph_bench.cpp`). The graph")
    w("runs what the optimizer made of it: the 20-node chain as one fused element-wise pass, each perceptron")
    w("layer as one GEMM with the bias as C and RELU as its FusedActivation (`src/dml/graph/fusion.h`); the")
    w("bench checks its output against the separate dispatches' (within 1e-4), and times the same graph")
    w("compiled with `FREEDML_GRAPH_FUSION=0` (node by node, what the graph saves without fusing).")
    w("")
    w("| case | separate dispatches µs | compiled graph µs | speed-up | graph, fusion off µs | speed-up |")
    w("| --- | ---: | ---: | ---: | ---: | ---: |")
    cases = [r["case"] for r in graph_rows if r["impl"] == "separate dispatches"]
    for case in cases:
        separate = value("graph", case, "FLOAT32", "separate dispatches")
        graph = value("graph", case, "FLOAT32", "compiled graph")
        plain = value("graph", case, "FLOAT32", "compiled graph fusion off")
        w(f"| {case} | {fmt(separate)} | {fmt(graph)} | {fmt(ratio(separate, graph))} | {fmt(plain)} | "
          f"{fmt(ratio(separate, plain))} |")
    w("")
    w("| graph | temporary resource bytes | its intermediates, unpacked |")
    w("| --- | ---: | ---: |")
    for r in graph_rows:
        if r["unit"] == "bytes":
            w(f"| {r['case'].replace(' temporary', '')} | {int(r['value'])} | {r['note'].split()[-1]} |")
    if compile_rows:
        w("")
        w("CompileGraph of an n-node chain, per node (flat means linear growth):")
        w("")
        w("| nodes | µs per node |")
        w("| ---: | ---: |")
        for r in compile_rows:
            w(f"| {r['case'].split()[0]} | {fmt(r['value'])} |")
    w("")
    commands_block("graph")

# Pooling
pooling_rows = [r for r in rows if r["group"] == "pooling"]
if pooling_rows:
    w("## Pooling: ResNet-50's max pool and global average pool")
    w("")
    w("MAX_POOLING of {N, 64, 112, 112} (3x3, stride 2, padding 1) and AVERAGE_POOLING of {N, 2048, 7, 7} to")
    w("{N, 2048, 1, 1}, FLOAT32, through the public API (re-executed and waited for), against oneDNN's pooling")
    w("primitive on the same plain tensors in the same run (`bench/pooling_bench.cpp`; it checks they agree).")
    w("FreeDML's CPU average runs oneDNN's primitive itself; its max runs FreeDML's own loop, which")
    w("propagates NaN as PyTorch does (oneDNN's max passes over NaNs).")
    w("")
    w("| case | FreeDML ms | oneDNN ms | FreeDML speed / oneDNN's |")
    w("| --- | ---: | ---: | ---: |")
    for case in [r["case"] for r in pooling_rows if r["impl"] == "FreeDML"]:
        ours = value("pooling", case, "FLOAT32", "FreeDML")
        theirs = value("pooling", case, "FLOAT32", "oneDNN")
        speed = ratio(ours, theirs, True)
        w(f"| {case} | {fmt(ours)} | {fmt(theirs)} | {fmt(speed)} |")
        if speed is not None and speed < 1:
            behind.append((f"pooling: {case}", speed, "oneDNN pooling"))
    w("")
    commands_block("pooling")

# Resampling
resample_rows = [r for r in rows if r["group"] == "resample"]
if resample_rows:
    w("## Resampling")
    w("")
    w("`DML_OPERATOR_RESAMPLE`, 2x bilinear (half-pixel) of a FLOAT32 image through the public API, GB/s moved")
    w("(input read + output written), against an `ELEMENT_WISE_IDENTITY` copy of the output's bytes on the same")
    w("device in the same run (`bench/resample_bench.cpp`). Issue 18 asks at least 0.8 of the copy bandwidth.")
    w("")
    w("| case | FreeDML GB/s | copy GB/s | FreeDML / copy |")
    w("| --- | ---: | ---: | ---: |")
    for case in dict.fromkeys(r["case"] for r in resample_rows):
        f = value("resample", case, "FLOAT32", "freedml")
        c = value("resample", case, "FLOAT32", "copy")
        q = value("resample", case, "FLOAT32", "freedml/copy")
        w(f"| {case} | {fmt(f)} | {fmt(c)} | {fmt(q)} |")
        if q is not None and q < 0.8:
            behind.append((f"resample {case}", q, "copy bandwidth"))
    w("")
    commands_block("resample")

# Data movement (issue 18)
movement_rows = [r for r in rows if r["group"] == "data_movement"]
if movement_rows:
    w("## Data movement")
    w("")
    w("GATHER of embedding rows (a 32000 x 4096 FLOAT16 table, 512 indices), SLICE and PADDING of a 64 MiB")
    w("FLOAT32 tensor through the API (`bench/data_movement_bench.cpp`), each interleaved with")
    w("ELEMENT_WISE_IDENTITY over the same bytes on the same adapter: GB/s of bytes read plus written.")
    w("Issue 18's goal: at least 0.8 of the copy.")
    w("")
    w("| case | type | FreeDML GB/s | copy GB/s | FreeDML / copy |")
    w("| --- | --- | ---: | ---: | ---: |")
    for r in movement_rows:
        if r["impl"] != "freedml":
            continue
        copy = value("data_movement", r["case"], r["dtype"], "copy")
        w(f"| {r['case']} | {r['dtype']} | {fmt(r['value'])} | {fmt(copy)} | {fmt(ratio(r['value'], copy))} |")
    w("")
    commands_block("data_movement")

# Binding
if binding_rows:
    w("## Binding")
    w("")
    w("`IDMLBindingTable::BindInputs` (and `BindOutputs`) with every rule checked, for a JOIN of N FLOAT32")
    w("inputs (`bench/binding_bench.cpp`, Google Benchmark), against the validation functions alone on the same")
    w("bindings (`bench/binding_rules_bench.cpp`). Issue 4 asks for growth no faster than N log N: a flat")
    w("ns-per-input curve is linear.")
    w("")
    w("| benchmark | N | ns per input | µs in all |")
    w("| --- | ---: | ---: | ---: |")
    for r in binding_rows:
        bench, n = r["case"].split(" N=")
        w(f"| {r['impl']}: {bench} | {n} | {fmt(r['value'])} | {r['note'].split(' us')[0]} |")
    fits = [r for r in rows if r["group"] == "binding" and r["unit"] == "coefficient"]
    for r in fits:
        rms = value("binding", r["case"].replace("fit ", "rms "), "-", r["impl"])
        w(f"\nFitted ({r['impl']}, {r['case'][4:]}): {r['note']}, coefficient {fmt(r['value'])}"
          + (f", RMS {fmt(rms * 100 if rms else None)} %" if rms is not None else ""))
    api_points = {int(r["case"].split("N=")[1]): r["value"] for r in binding_rows
                  if r["impl"] == "FreeDML API" and r["case"].startswith("BM_BindInputs N=")}
    core_points = {int(r["case"].split("N=")[1]): r["value"] for r in binding_rows
                   if r["impl"] == "FreeDML validation only"}
    common = sorted(set(api_points) & set(core_points))
    if common:
        w("")
        w("| N | API BindInputs over validation alone (time ratio) |")
        w("| ---: | ---: |")
        for n in common:
            w(f"| {n} | {fmt(api_points[n] / core_points[n])} |")
    w("")
    w("![binding](performance/binding.png)")
    w("")
    commands_block("binding")

# Element-wise
if ew_ops:
    w("## Element-wise")
    w("")
    w("Large packed tensors (elementwise_bench's size), GB/s moved (bytes read + written). FreeDML through the")
    w("public API (one recorded list re-executed); the copy bandwidth (memcpy) is the machine's limit; PyTorch")
    w("and ONNX Runtime on the same sizes and thread count. Issue 5 asks packed binary FLOAT32 for at least 0.80")
    w("of the copy bandwidth and no slower than PyTorch.")
    w("")
    w("\"FLOAT16 vs FLOAT32\": FreeDML's FLOAT16 GB/s over its FLOAT32 GB/s (issue 22 asks at least 0.7 for the")
    w("transcendental operators).")
    w("")
    w("| operator | type | FreeDML GB/s | vs memcpy | vs PyTorch | vs ONNX Runtime | FLOAT16 vs FLOAT32 |")
    w("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for dtype in ["FLOAT32", "FLOAT16"]:
        copy = value("elementwise", "memcpy", dtype, "memcpy")
        for op in ew_ops:
            f = value("elementwise", op, dtype, "FreeDML")
            if f is None:
                continue
            rt, ro = ratio(f, value("elementwise", op, dtype, "PyTorch")), ratio(f, value("elementwise", op, dtype,
                                                                                             "ONNX Runtime"))
            rh = ratio(f, value("elementwise", op, "FLOAT32", "FreeDML")) if dtype == "FLOAT16" else None
            w(f"| {op} | {dtype} | {fmt(f)} | {fmt(ratio(f, copy))} | {fmt(rt)} | {fmt(ro)} | {fmt(rh)} |")
            if rh is not None and rh < 0.7 and op in ("EXP", "SIGMOID", "TANH", "ERF", "GELU", "SOFTMAX"):
                behind.append((f"element-wise {op} FLOAT16", rh, "FreeDML FLOAT32"))
            for reference, rr in (("PyTorch", rt), ("ONNX Runtime", ro)):
                if rr is not None and rr < 0.9:
                    behind.append((f"element-wise {op} {dtype}", rr, reference))
    w("")
    w("![element-wise](performance/elementwise.png)")
    w("")
    commands_block("elementwise")

# Memory-bound operators
op_cases = []
for r in rows:
    if r["group"] == "operators" and r["impl"] == "FreeDML" and (r["case"], r["dtype"]) not in op_cases:
        op_cases.append((r["case"], r["dtype"]))
if op_cases:
    w("## Memory-bound operators")
    w("")
    w("The reductions, TOP_K, data movement, pooling and normalization problems the operator issues name")
    w("(operator_bench.cpp; PyTorch runs the same problems in operator_torch.py), GB/s of the bytes each")
    w("must read and write, so the PyTorch ratio is the ratio of times. The copy bandwidth is elementwise_bench's")
    w("memcpy of FLOAT32. Goals: at least 0.8 of the copy bandwidth where an operator is a pass over memory,")
    w("and at least PyTorch's speed.")
    w("")
    w("| operator | type | FreeDML GB/s | vs memcpy | vs PyTorch |")
    w("| --- | --- | ---: | ---: | ---: |")
    copy = value("elementwise", "memcpy", "FLOAT32", "memcpy")
    for case, dtype in op_cases:
        f = value("operators", case, dtype, "FreeDML")
        rt = ratio(f, value("operators", case, dtype, "PyTorch"))
        w(f"| {case} | {dtype} | {fmt(f)} | {fmt(ratio(f, copy))} | {fmt(rt)} |")
        if rt is not None and rt < 0.9:
            behind.append((f"operator {case} {dtype}", rt, "PyTorch"))
    w("")
    commands_block("operators")

# Training step (issue 24)
train_rows = sorted((r for r in rows if r["group"] == "training" and r["impl"] == "FreeDML"),
                    key=lambda r: "passive" in r["case"])
if train_rows:
    on_cuda = machine.get("device", "cpu").startswith("cuda")
    goal = 0.8 if on_cuda else 1.0
    w("## Training step")
    w("")
    w("One training step of a small CNN (batch 32, 3x32x32 input; conv 3->32 3x3, batch normalization,")
    w("ReLU, 2x2 max pool, conv 32->64 3x3, batch normalization, ReLU, 2x2 max pool, fully connected")
    w("4096->10, softmax cross-entropy, Adam on all 8 parameter tensors) composed from DirectML operators")
    dispatches = train_rows[0]["note"].split("; ")[-1]
    w(f"through the public API (`bench/training_step.h` documents the composition): {dispatches} recorded")
    w("in one command list with UAV barriers, re-executed for every step. PyTorch runs the same step with")
    w("torch.nn and torch.optim.Adam (`bench/training_torch.py`) on the same device and thread count.")
    w("The optimizer column says which ran: `sgd` (plain SGD from element-wise operators, and torch.optim.SGD")
    w(f"on the PyTorch side) where this FreeDML has no ADAM_OPTIMIZER. Goal: at least {goal:g}x PyTorch.")
    if any("passive" in r["case"] for r in train_rows):
        w("The passive row runs both sides again under `OMP_WAIT_POLICY=passive`: FreeDML's step alternates")
        w("oneDNN's OpenMP regions (convolutions, GEMMs) with its own thread pool (normalization, pooling,")
        w("element-wise), and PyTorch's step is OpenMP regions too, so on a busy machine spinning teams decide")
        w("much of both figures.")
    w("")
    w("| case | optimizer | FreeDML steps/s | PyTorch steps/s | FreeDML / PyTorch |")
    w("| --- | --- | ---: | ---: | ---: |")
    for r in train_rows:
        theirs = value("training", r["case"], r["dtype"], "PyTorch")
        speed = ratio(r["value"], theirs)
        w(f"| {r['case']} | {r['dtype']} | {fmt(r['value'])} | {fmt(theirs)} | {fmt(speed)} |")
        if speed is not None and speed < goal:
            behind.append((f"training step {r['case']} ({r['dtype']})", speed, "PyTorch"))
    profile = [r for r in rows if r["group"] == "training profile" and r["impl"] == "FreeDML"]
    total = next((r["value"] for r in profile if r["case"] == "sum of operators alone"), None)
    ops = sorted((r for r in profile if r["case"] != "sum of operators alone"), key=lambda r: -r["value"])
    if ops and total:
        w("")
        w("Where FreeDML's step spends its time: each operator alone (its dispatch repeated in a list), the ten")
        w(f"largest of {len(ops)}; together the operators take {fmt(total)} ms (under the default wait policy).")
        w("")
        w("| operator | ms | share |")
        w("| --- | ---: | ---: |")
        for r in ops[:10]:
            w(f"| {r['case']} | {fmt(r['value'])} | {r['value'] / total * 100:.0f} % |")
    w("")
    commands_block("training")

# GEMM
if gemm_sizes:
    w("## GEMM")
    w("")
    w("Square `DML_OPERATOR_GEMM` (M = N = K, no C) through the public API, B `OWNED_BY_DML` (packed into the")
    w("persistent resource at initialization: the inference case), against oneDNN matmul with pre-packed weights")
    w("called directly (FreeDML's own best case), ONNX Runtime's MatMul with B an initializer, and PyTorch's")
    w("`torch.matmul` (Debian's PyTorch goes through Debian's BLAS, far slower: larger sizes are skipped when")
    w("predicted to take over 10 s). \"of peak\" is over the ceiling given under Machine. `dense_bench` links")
    w(f"oneDNN itself for its references, so it runs under `GOMP_SPINCOUNT={spin_count}`, the short spin FreeDML chooses")
    w("in a process without OpenMP of its own (what a user's process gets); the references run under it too.")
    w("")
    w("\"FLOAT16 vs FLOAT32\" is FreeDML's FLOAT16 figure over its FLOAT32 one at the same size (issue 22 asks")
    w("at least 0.8), the FLOAT32 operator timed in the same interleaved rounds as the FLOAT16 one where")
    w("dense_bench ran it (its FLOAT32 twin), the FLOAT32 row otherwise.")
    w("")
    w("| type | size | FreeDML GFLOP/s | of peak | vs oneDNN packed | vs ONNX Runtime | vs PyTorch | B input: vs oneDNN plain B | FLOAT16 vs FLOAT32 |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for dtype in ["FLOAT32", "FLOAT16"]:
        for n in gemm_sizes:
            c = str(n)
            f = value("gemm", c, dtype, "FreeDML owned B")
            if f is None:
                continue
            ro = ratio(f, value("gemm", c, dtype, "oneDNN packed B"))
            rx = ratio(f, value("gemm", c, dtype, "ONNX Runtime"))
            rp = ratio(f, value("gemm", c, dtype, "PyTorch"))
            rb = ratio(value("gemm", c, dtype, "FreeDML B input"), value("gemm", c, dtype, "oneDNN plain B"))
            rh = None
            if dtype == "FLOAT16":
                rh = ratio(f, value("gemm", c, "FLOAT16", SAME_ROUNDS + " owned B") or
                           value("gemm", c, "FLOAT32", "FreeDML owned B"))
            w(f"| {dtype} | {n} | {fmt(f)} | {fmt(f / peak_all if peak_all else None)} | {fmt(ro)} | {fmt(rx)} | "
              f"{fmt(rp)} | {fmt(rb)} | {fmt(rh)} |")
            if rh is not None and rh < 0.8:
                behind.append((f"GEMM {n} FLOAT16", rh, "FreeDML FLOAT32"))
            for reference, rr in (("oneDNN packed", ro), ("ONNX Runtime", rx), ("PyTorch", rp)):
                if rr is not None and rr < 0.8:
                    behind.append((f"GEMM {n} {dtype}", rr, reference))
    fp16_notes = sorted({r["note"].split(";")[0] for r in rows if r["group"] == "gemm" and r["dtype"] == "FLOAT16"
                         and r["value"] == 0})
    if fp16_notes:
        w("")
        w("FLOAT16 references that did not run: " + "; ".join(f"`{n}`" for n in fp16_notes) + ".")
    w("")
    w("![GEMM](performance/gemm.png)")
    w("")
    commands_block("gemm")

# GEMM against ONNX Runtime, the two processes taking turns (run.sh says why).
turns = [r for r in rows if r["group"] == "turns" and r["value"] > 0]
if turns:
    def turn_of(r):
        return int(r["source"].split("-")[1])

    def by_turn(size, impl):
        return {turn_of(r): r["value"] for r in turns if r["case"] == f"gemm {size}" and r["impl"] == impl}

    numbers = sorted({turn_of(r) for r in turns})
    w("## GEMM against ONNX Runtime, in turns")
    w("")
    w("The FLOAT32 rows of the GEMM table again, `dense_bench` (FreeDML owned B) and ONNX Runtime's MatMul")
    w("taking turns, three processes each, after the rest of the run: each turn's ratio, then each side's")
    w("median over the turns and their ratio. The GEMM table's own column compares one process of each,")
    w("run minutes apart, and a burst of other load on a shared machine can fall on one side only.")
    w("")
    w("| size | " + " | ".join(f"turn {t}" for t in numbers) +
      " | FreeDML GFLOP/s (median) | ONNX Runtime GFLOP/s (median) | median vs median |")
    w("| ---: | " + " | ".join("---:" for _ in numbers) + " | ---: | ---: | ---: |")
    for n in sorted({int(r["case"].split()[1]) for r in turns}):
        mine, theirs = by_turn(n, "FreeDML owned B"), by_turn(n, "ONNX Runtime")
        if not mine or not theirs:
            continue
        per_turn = [fmt(ratio(mine.get(t), theirs.get(t))) for t in numbers]
        median_mine, median_theirs = statistics.median(mine.values()), statistics.median(theirs.values())
        overall = ratio(median_mine, median_theirs)
        w(f"| {n} | " + " | ".join(per_turn) + f" | {fmt(median_mine)} | {fmt(median_theirs)} | {fmt(overall)} |")
        if overall is not None and overall < 0.8:
            behind.append((f"GEMM {n} FLOAT32 (in turns)", overall, "ONNX Runtime"))
    w("")
    commands_block("turns")

# Convolution
if conv_layers:
    w("## Convolution: ResNet-50 at batch 1")
    w("")
    w("Every distinct convolution layer of ResNet-50 (v1.5: stride on the 3x3) at batch 1, 224x224 input, with")
    w("bias, no activation (`bench/resnet50_convs.csv`; `count` is how often the layer occurs in the network).")
    w("FreeDML through the public API with filter and bias `OWNED_BY_DML`; references: oneDNN")
    w("convolution_forward called directly with the blocked layouts it prefers (its best case) and with plain")
    w("NCHW input and output (the layout of a DirectML tensor, which FreeDML passes to oneDNN), ONNX Runtime's")
    w("Conv with initializers, PyTorch's `F.conv2d` (its own kernel choice) and `torch.mkldnn_convolution`.")
    w("")
    w("| layer | count | input | out ch | kernel / stride / pad | MFLOP | FreeDML GFLOP/s | of peak | vs oneDNN blocked | vs oneDNN NCHW | vs ONNX Runtime | vs PyTorch | vs PyTorch oneDNN | FLOAT16 vs FLOAT32 |")
    w("| --- | ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    totals = {}  # impl/dtype -> [network seconds, network flops]
    for layer in conv_layers:
        info = layer_info.get(layer, {})
        count = int(info.get("count", 1))
        flops = layer_flops(layer)
        for impl in ["FreeDML owned filter", "FreeDML filter input", SAME_ROUNDS + " owned filter"] + conv_refs:
            for dtype in ["FLOAT32", "FLOAT16"]:
                v = value("conv", layer, dtype, impl)
                key = (impl, dtype)
                entry = totals.setdefault(key, [0.0, 0.0, 0])
                if v:
                    entry[0] += count * flops / (v * 1e9)
                    entry[1] += count * flops
                    entry[2] += 1
        f = value("conv", layer, "FLOAT32", "FreeDML owned filter")
        refs = [ratio(f, value("conv", layer, "FLOAT32", ref)) for ref in conv_refs]
        half = ratio(value("conv", layer, "FLOAT16", "FreeDML owned filter"),
                     value("conv", layer, "FLOAT16", SAME_ROUNDS + " owned filter") or f)
        shape = f"{info.get('in_channels')}x{info.get('height')}x{info.get('width')}"
        kernel = f"{info.get('kernel')}x{info.get('kernel')} / {info.get('stride')} / {info.get('padding')}"
        w(f"| {layer} | {count} | {shape} | {info.get('out_channels')} | {kernel} | {flops / 1e6:.0f} | {fmt(f)} | "
          f"{fmt(f / peak_all if f and peak_all else None)} | " + " | ".join(fmt(x) for x in refs) + f" | {fmt(half)} |")
    w("")
    w("Whole network (the 53 convolutions, each layer's time times its count):")
    w("")
    w("| implementation | type | layers measured | ms per network | GFLOP/s | FreeDML owned filter vs it |")
    w("| --- | --- | ---: | ---: | ---: | ---: |")
    for (impl, dtype), (seconds, flops, measured) in totals.items():
        if not measured or impl.startswith(SAME_ROUNDS):
            continue
        base = totals.get(("FreeDML owned filter", dtype))
        full = measured == len(conv_layers)
        speed = flops / seconds / 1e9
        versus = None
        if base and base[2] == len(conv_layers) and full:
            versus = seconds / base[0]
        w(f"| {impl} | {dtype} | {measured} of {len(conv_layers)} | {seconds * 1e3:.1f}{'' if full else ' (partial)'} | "
          f"{fmt(speed)} | {fmt(versus)} |")
        if versus is not None and versus < 0.8 and not impl.startswith("FreeDML"):
            behind.append((f"ResNet-50 convolutions, whole network, {dtype}", versus, impl))
    half = totals.get(("FreeDML owned filter", "FLOAT16"))
    twin = totals.get((SAME_ROUNDS + " owned filter", "FLOAT16"))
    same_rounds = bool(twin and twin[2] == len(conv_layers))
    single = twin if same_rounds else totals.get(("FreeDML owned filter", "FLOAT32"))
    if half and single and half[2] == single[2] == len(conv_layers):
        versus = single[0] / half[0]
        w("")
        against = ("its FLOAT32 network timed in the same rounds (the FLOAT32 twin of each layer)" if same_rounds
                   else "its FLOAT32 network")
        w(f"FreeDML's FLOAT16 network over {against} (issue 22 asks at least 0.8): {fmt(versus)}.")
        if versus < 0.8:
            behind.append(("ResNet-50 convolutions, whole network, FLOAT16", versus, "FreeDML FLOAT32"))
    w("")
    w("![convolution](performance/conv.png)")
    w("")
    commands_block("conv")
    paths = sorted({r["note"].split(";")[0] for r in rows if r["group"] == "conv" and r["impl"].startswith("FreeDML")
                    and not r["impl"].startswith(SAME_ROUNDS)})
    if paths:
        w("What FreeDML ran (oneDNN's verbose log during one execution through the API):")
        w("")
        for p in paths:
            w(f"- {p}")
        w("")

# FreeDML alone in its process (dense_bench_alone): no variable set, and OpenMP's default spinning asked for
alone = [r for r in rows if "(alone" in r["impl"] and r["group"] == "threading"]
competing = [r for r in rows if r["group"] == "competing"]
# Sequence models and attention
seq_cases = []
for r in rows:
    if r["group"] == "sequence" and r["impl"] == "FreeDML" and (r["case"], r["dtype"]) not in seq_cases:
        seq_cases.append((r["case"], r["dtype"]))
if seq_cases:
    w("## Sequence models and attention")
    w("")
    w("`MULTIHEAD_ATTENTION` (Query, Key and Value {batch, sequence, 32 heads x 128}, scale 1/sqrt(128); `_causal`:")
    w("a BOOLEAN {1, 1, sequence, sequence} lower-triangular mask, filter value -10000) and an `LSTM` layer")
    w("(forward, hidden 512, input 512, batch 16, with bias, every output) through the public API")
    w("(sequence_bench.cpp), against ONNX Runtime's CPU provider (sequence_ort.py: the contrib `MultiHeadAttention`,")
    w("which ONNX Runtime's DirectML provider maps to this operator, and the ONNX `LSTM`) and PyTorch")
    w("(sequence_torch.py: `torch.nn.LSTM`, and `scaled_dot_product_attention` where the PyTorch has it, else the")
    w("same matmul, softmax, matmul written out, as Debian's PyTorch 1.13 needs; its matmuls go through Debian's")
    w("generic BLAS, so it is a weak reference here). GFLOP/s count Q.K^T and P.V over every (query, key) pair,")
    w("masked or not, and the LSTM's input and recurrent products. Goal: at least 1.0x.")
    w("")
    w("Both run oneDNN matmuls (OpenMP regions) between passes on FreeDML's own pool or the calling thread:")
    w("attention per block of query rows, the LSTM once per time step. Under OpenMP's default wait policy a thread")
    w("that reaches a barrier spins, which on a loaded machine takes the core from the thread it waits for; the")
    w("passive columns are the same runs with `OMP_WAIT_POLICY=passive` (threads that wait sleep).")
    w("")
    w("| case | type | FreeDML ms | FreeDML GFLOP/s | vs ONNX Runtime | vs PyTorch | passive ms | passive vs ONNX Runtime |")
    w("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for case, dtype in seq_cases:
        f = value("sequence", case, dtype, "FreeDML")
        fp = value("sequence", case, dtype, "FreeDML passive")
        cells = []
        for reference in ("ONNX Runtime", "PyTorch"):
            rr = ratio(f, value("sequence", case, dtype, reference))
            cells.append(fmt(rr))
            if rr is not None and rr < 0.8:
                behind.append((f"{case} {dtype}", rr, reference))
        passive = ratio(fp, value("sequence", case, dtype, "ONNX Runtime"))
        w(f"| {case} | {dtype} | {fmt(seq_ms.get((case, 'FreeDML')))} | {fmt(f)} | {cells[0]} | {cells[1]} | "
          f"{fmt(seq_ms.get((case, 'FreeDML passive')))} | {fmt(passive)} |")
    references = sorted({r["note"] for r in rows if r["group"] == "sequence" and r["note"]
                         and not r["impl"].startswith("FreeDML")})
    if references:
        w("")
        w("References that ran: " + "; ".join(references) + ".")
    w("")
    commands_block("sequence")

# Real models (issue 21)
if model_rows:
    w("## ONNX models")
    w("")
    w("Whole models through `dmlrun model.onnx` (the ONNX lowering, one DirectML graph) against ONNX Runtime's CPU")
    w("provider running the same .onnx file on the same inputs with as many intra-op threads (`bench/onnx_models.py`):")
    w("ResNet-50 and MobileNetV2 from torchvision's definitions, BERT-base (sequence 128) and GPT-2 small (a prompt")
    w("of 128) from the transformers package's model classes, random weights, exported once at opset 14. Times are")
    w("medians of whole-model runs (FreeDML's first run excluded, ONNX Runtime's first untimed); the ratio is ONNX")
    w("Runtime's time over FreeDML's (above 1: FreeDML faster). Goal: at least 1.0x.")
    w("")
    w("| model | FreeDML ms | ONNX Runtime ms | FreeDML speed vs ONNX Runtime | largest difference (largest output magnitude) |")
    w("| --- | ---: | ---: | ---: | ---: |")
    for case, r in model_rows.items():
        if r.get("skipped"):
            w(f"| {case} | not run: {r.get('reason', '')} | | | |")
            continue
        rr = ratio(r["reference_ms"], r["ms"])
        if rr is not None and rr < 0.8:
            behind.append((f"{case} (ONNX model)", rr, "ONNX Runtime"))
        w(f"| {case} | {fmt(r['ms'])} | {fmt(r['reference_ms'])} | {fmt(rr)} | "
          f"{r['max_abs_diff']:.2g} ({fmt(r['scale'])}) |")
    w("")
    commands_block("onnx models")

# Integer matrix multiplies
int8_sizes = sorted({int(r["case"]) for r in rows if r["group"] == "int8"})
if int8_sizes:
    w("## Integer matrix multiplies")
    w("")
    w("Square `MATRIX_MULTIPLY_INTEGER` (UINT8 A, INT8 B, per-tensor zero points, INT32 out) and")
    w("`QUANTIZED_LINEAR_MATRIX_MULTIPLY` (the same, UINT8 out, per-tensor scales) through the public API, every")
    w("tensor an input, against ONNX Runtime's `MatMulInteger` and `QLinearMatMul` on the same shapes and types.")
    w("FreeDML runs oneDNN's integer GEMM (an OpenMP region) and then its own zero-point and requantization pass")
    w("on its thread pool, so OpenMP's spinning threads compete with that pass under the default wait policy;")
    w("the passive rows are the same kernels with `OMP_WAIT_POLICY=passive`. Value: GOP/s (2 M N K).")
    w("")
    w("| operator | size | FreeDML GOP/s | vs ONNX Runtime | FreeDML passive GOP/s | passive vs ONNX Runtime |")
    w("| --- | ---: | ---: | ---: | ---: | ---: |")
    for op, reference in (("MATRIX_MULTIPLY_INTEGER", "MatMulInteger"), ("QUANTIZED_LINEAR_MATRIX_MULTIPLY", "QLinearMatMul")):
        for n in int8_sizes:
            c = str(n)
            f = value("int8", c, "UINT8xINT8", f"FreeDML {op}")
            fp = value("int8", c, "UINT8xINT8", f"FreeDML {op} (OMP_WAIT_POLICY=passive)")
            x = value("int8", c, "UINT8xINT8", f"ONNX Runtime {reference}")
            w(f"| {op} | {n} | {fmt(f)} | {fmt(ratio(f, x))} | {fmt(fp)} | {fmt(ratio(fp, x))} |")
            rr = ratio(f, x)
            if rr is not None and rr < 0.8:
                behind.append((f"{op} {n}", rr, f"ONNX Runtime {reference}"))
    w("")
    commands_block("int8")

if alone:
    w("## FreeDML alone in a process: OpenMP's wait policy")
    w("")
    w("The tables above run raw oneDNN in the same process as FreeDML (interleaved rounds), so OpenMP is loaded")
    w("with the benchmark and keeps its default wait policy: an idle OpenMP thread spins for milliseconds. These")
    w("rows run FreeDML's GEMM and convolutions in a program that links no oneDNN of its own (`dense_bench_alone`),")
    w("as an application has it: libdirectml loads oneDNN, and with it OpenMP, on first use, and asks for")
    w(f"a short spin (`GOMP_SPINCOUNT={spin_count}`: an idle thread polls for tens of microseconds, then sleeps) unless the")
    w("user set `OMP_WAIT_POLICY` or `GOMP_SPINCOUNT` (`src/dml/kernels/cpu/dnnl_lazy.cpp`). The other variants ask")
    w("for OpenMP's default spinning (`GOMP_SPINCOUNT=300000`, milliseconds) and for the passive policy (sleep at")
    w("once), in the same run:")
    w("")
    w("| case | type | FreeDML variant | GFLOP/s | vs the same with no variable set |")
    w("| --- | --- | --- | ---: | ---: |")
    for r in alone:
        base = r["impl"].split(" (")[0]
        reference = value(r["group"], r["case"], r["dtype"], f"{base} (alone; no variable set)")
        rr = ratio(r["value"], reference)
        w(f"| {r['case']} | {r['dtype']} | {r['impl']} | {fmt(r['value'])} | {fmt(rr)} |")
    w("")
    commands_block("threading")

if competing:
    w("## Beside a competing process")
    w("")
    w("The rows of the section above again, while another process spins on one core (`taskset -c N bash -c")
    w("'while :; do :; done'`, started by `bench/run.sh` around these two commands), each divided by its idle")
    w("figure above (same variant, same run). On two cores FreeDML then has the other core and a share of the")
    w("busy one: about half the idle speed is its fair share, and issue 22 asks for at least 0.45 with no")
    w("environment variable set.")
    w("")
    w("| case | type | FreeDML variant | idle GFLOP/s | with the spinner GFLOP/s | ratio |")
    w("| --- | --- | --- | ---: | ---: | ---: |")
    for r in competing:
        idle = value("threading", r["case"], r["dtype"], r["impl"].replace("; spinner)", ")"))
        rr = ratio(r["value"], idle)
        w(f"| {r['case']} | {r['dtype']} | {r['impl']} | {fmt(idle)} | {fmt(r['value'])} | {fmt(rr)} |")
        if rr is not None and rr < 0.45 and "no variable set" in r["impl"]:
            behind.append((f"{r['case']}: {r['impl']}", rr, "the same without the spinner (goal: 0.45)"))
    w("")
    commands_block("competing")

# The CUDA adapter: the last GPU run of bench/run_gpu.sh, kept in docs/performance/cuda/ (this machine
# may have no GPU; that run has its own date and device).
gpu_dir = os.path.join(plots, "cuda")
gpu_table = os.path.join(gpu_dir, "bench_table.txt")
if os.path.exists(gpu_table):
    gpu = {}
    if os.path.exists(os.path.join(gpu_dir, "gpu.txt")):
        with open(os.path.join(gpu_dir, "gpu.txt")) as f:
            for line in f:
                if ":" in line:
                    key, value_ = line.split(":", 1)
                    gpu[key.strip()] = value_.strip()
    w("## On an NVIDIA GPU: the CUDA adapter against PyTorch")
    w("")
    w("From the last run of `bench/run_gpu.sh` on a GPU machine (`tests/cuda/run_on_device.sh bench` builds and")
    w("runs it there), kept in [performance/cuda/](performance/cuda/) with its raw JSON lines: FreeDML's CUDA")
    w("adapter through the DirectML API against PyTorch (eager, cuBLAS/cuDNN) on the same GPU in the same run.")
    w("GB/s counts the bytes each operator must move; \"of copy\" is FreeDML's figure over its own")
    w("device-to-device copy. The memory-bound operators are small enough (8 to 320 MB) that PyTorch's own")
    w("figures move by up to a third between runs; ratios near 1 are not verdicts. The `model` rows are whole")
    w("ONNX models through `dmlrun` against the same torch models in eager mode (`bench/onnx_models.py --adapter")
    w("cuda --reference torch`): PyTorch with TF32 off, the full FLOAT32 arithmetic FreeDML computes by default;")
    w("rows ending `_tf32` run `dmlrun --allow-half-precision` against PyTorch with TF32 on (its default for")
    w("convolutions); rows ending `_vs_compile` compare with the same model through `torch.compile`.")
    w("")
    for key in ["date", "gpu", "driver", "command", "rerun"]:
        if key in gpu:
            w(f"- {key}: {gpu[key]}")
    w("")
    w("| benchmark | FreeDML | PyTorch | ratio | note |")
    w("| --- | ---: | ---: | ---: | --- |")
    with open(gpu_table) as f:
        for line in f:
            parts = re.split(r"\s{2,}", line.strip())
            if len(parts) < 2 or parts[0] == "benchmark":
                continue
            cells = (parts + ["", "", "", ""])[:5]
            w("| " + " | ".join(cells) + " |")
            try:
                gpu_ratio = float(parts[3]) if len(parts) >= 4 else None
            except ValueError:
                gpu_ratio = None
            if gpu_ratio is not None and gpu_ratio < 0.9:
                behind.append((f"CUDA: {parts[0]}", gpu_ratio, "PyTorch on the same GPU"))
    w("")
    w("Attention (`seq f16 attention_*`, goal 0.9x): FreeDML runs a FlashAttention-2 scheme on `mma.sync`")
    w("(src/dml/ops/attention/cuda/flash_attention_sm80.cu); on Hopper PyTorch's `scaled_dot_product_attention`")
    w("runs a kernel built on the Hopper instructions (`wgmma`, TMA). Reaching the goal there takes such a kernel")
    w("(FlashAttention-3 scheme, sm_90a) or cuDNN's fused attention through the cuDNN frontend.")
    w("")
    # graph_bench on CUDA: RESULT lines, times per execution of each way to run the same work.
    gpu_graph = os.path.join(gpu_dir, "graph_cuda.txt")
    if os.path.exists(gpu_graph):
        graph_cases, graph_times = [], {}
        with open(gpu_graph) as f:
            for line in f:
                parts = line.rstrip("\n").split(",", 7)
                if len(parts) == 8 and parts[0] == "RESULT" and parts[1] == "graph" and parts[6] == "us":
                    if parts[2] not in graph_times:
                        graph_cases.append(parts[2])
                        graph_times[parts[2]] = {}
                    graph_times[parts[2]].setdefault(parts[4], float(parts[5]))  # the first run's
        ways = ["separate dispatches", "compiled graph", "compiled graph without CUDA graph", "compiled graph fusion off"]
        w("Compiled graphs on CUDA (`graph_bench`, µs per execution; speed-up: separate dispatches over the")
        w("compiled graph; goal 2x for the small sizes, never slower for the large):")
        w("")
        w("| case | " + " | ".join(ways) + " | speed-up |")
        w("| --- |" + " ---: |" * (len(ways) + 1))
        for case in graph_cases:
            t = graph_times[case]
            speedup = ratio(t.get("separate dispatches"), t.get("compiled graph"))
            w(f"| {case} | " + " | ".join(fmt(t.get(way)) for way in ways) + f" | {fmt(speedup)} |")
        w("")

# Where FreeDML is behind
w("## Where FreeDML is behind")
w("")
if behind:
    w("Every figure above where FreeDML reaches less than 0.8 of a reference (0.9 for element-wise), worst first:")
    w("")
    w("| what | ratio | reference |")
    w("| --- | ---: | --- |")
    for what_, r, reference in sorted(behind, key=lambda t: t[1]):
        w(f"| {what_} | {fmt(r)} | {reference} |")
else:
    w("Nowhere in this run.")
w("")
notes_file = os.path.join(os.path.dirname(os.path.abspath(__file__)), "analysis.md")
if os.path.exists(notes_file):
    with open(notes_file) as f:
        w(f.read().rstrip())
    w("")

with open(os.path.join(docs, "PERFORMANCE.md"), "w") as f:
    f.write("\n".join(out) + "\n")
print(f"report.py: {len(rows)} results; wrote {os.path.join(docs, 'PERFORMANCE.md')}, "
      f"{os.path.join(plots, 'results.csv')} and {', '.join(written_plots)}")
