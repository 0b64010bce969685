"""Joins gpu_bench.cpp's and torch_bench.py's JSON lines into one table (FreeDML / PyTorch)."""
import json
import sys


def load(path):
    rows = {}
    for line in open(path):
        line = line.strip()
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        key = (r["bench"], r.get("type", ""), str(r.get("n", r.get("layer", r.get("name", "")))))
        rows[key] = r
    return rows


ours, torch_rows = load(sys.argv[1]), load(sys.argv[2])
print(f"{'benchmark':44} {'FreeDML':>12} {'PyTorch':>12} {'ratio':>7}")
for key, r in ours.items():
    t = torch_rows.get(key, {})
    label = " ".join(k for k in key if k)
    if r["bench"] in ("gemm", "conv"):
        f, p = r["tflops"], t.get("tflops", float("nan"))
        print(f"{label:44} {f:9.1f} TF {p:9.1f} TF {f / p:7.2f}")
    elif r["bench"] == "elementwise":
        print(f"{label + ' copy GB/s':44} {r['copy_gbs']:12.0f} {t.get('copy_gbs', float('nan')):12.0f}")
        print(f"{label + ' add GB/s':44} {r['add_gbs']:12.0f} {t.get('add_gbs', float('nan')):12.0f} "
              f"{r['add_gbs'] / t.get('add_gbs', float('nan')):7.2f}")
        print(f"{label + ' add / FreeDML copy':44} {r['add_gbs'] / r['copy_gbs']:12.2f}")
        print(f"{label + ' scale-bias / FreeDML copy':44} {r['scale_bias_gbs'] / r['copy_gbs']:12.2f}")
    elif r["bench"] == "op":
        if r.get("skipped"):
            print(f"{label:44} {'not run':>12}")
            continue
        copy = ours.get(("elementwise", "f32", ""), {}).get("copy_gbs", float("nan"))
        p = t.get("gbs", float("nan"))
        print(f"{label + ' GB/s':44} {r['gbs']:12.0f} {p:12.0f} {r['gbs'] / p:7.2f}   "
              f"{r['gbs'] / copy:.2f} of copy")
    elif r["bench"] == "train":
        p = t.get("steps_per_s", float("nan"))
        print(f"{label + ' steps/s (' + r.get('optimizer', '?') + ')':44} {r['steps_per_s']:12.1f} {p:12.1f} "
              f"{r['steps_per_s'] / p:7.2f}")
    elif r["bench"] == "seq":
        # Attention, LSTM: against PyTorch's same problem; the integer matrix multiplies against
        # PyTorch's FLOAT16 matmul and FreeDML's own FLOAT16 GEMM of the same size (goal: int8 faster).
        if r.get("skipped"):
            print(f"{label:44} {'not run':>12}")
            continue
        p = t.get("ms", float("nan"))
        line = f"{label + ' ms':44} {r['ms']:12.3f} {p:12.3f} {p / r['ms']:7.2f}"
        size = r["name"].rsplit("_", 1)[-1]
        own = ours.get(("seq", "f16", "gemm_f16_" + size), {}).get("ms")
        if r["name"].startswith(("matmul_integer_", "qlinear_matmul_")) and own:
            line += f"   {own / r['ms']:.2f} of FreeDML's FLOAT16 GEMM speed"
        print(line)
    elif r["bench"] == "model":
        # Whole ONNX models (bench/onnx_models.py): dmlrun on CUDA against PyTorch on the same GPU (eager;
        # _tf32 rows with TF32 on both sides; _vs_compile rows against torch.compile).
        p = t.get("ms", float("nan"))
        print(f"{label + ' ms':44} {r['ms']:12.3f} {p:12.3f} {p / r['ms']:7.2f}")
    elif r["bench"] == "dispatch":
        print(f"{'dispatch overhead (us)':44} {r['us_per_dispatch']:12.2f} {t.get('us_per_dispatch', float('nan')):12.2f}")
