"""Merge the trace records of one harness run into results.json and a
Markdown table.

    python3 summarize.py WORK_DIR OUT_DIR

WORK_DIR holds manifest.tsv (tag, script, seq_len, rep, exit code, seconds),
runs/<tag>.json from trace.py and env.json. Each run is compared with the
original script's run at the same length and repetition.
"""
import json
import math
import os
import sys

GIB = 1024 ** 3


def number(x):
    """The trace writes non-finite floats as text."""
    if isinstance(x, str):
        return float(x)
    return x


def finite(x):
    return x is not None and math.isfinite(number(x))


def first_step(logs, key, test):
    for entry in logs:
        if key in entry and test(number(entry[key])):
            return entry["step"]
    return None


def summarize_run(row, record):
    s = {k: row[k] for k in ("tag", "script", "seq_len", "rep", "exit_code", "seconds")}
    if record is None:
        s["error"] = "no trace record (the process died before writing it)"
        return s
    logs = [e for e in record["logs"] if "loss" in e or "grad_norm" in e]
    losses = [number(e["loss"]) for e in logs if "loss" in e]
    s["error"] = record.get("error")
    s["setup"] = record.get("setup", {})
    s["steps"] = len(record.get("steps", []))
    s["first_nonfinite_grad_norm_step"] = first_step(logs, "grad_norm", lambda v: not math.isfinite(v))
    s["first_nonfinite_loss_step"] = first_step(logs, "loss", lambda v: not math.isfinite(v))
    s["zero_loss_steps"] = sum(1 for v in losses if v == 0.0)
    s["first_loss"] = losses[0] if losses else None
    s["final_loss"] = losses[-1] if losses else None
    norms = [number(e["grad_norm"]) for e in logs if "grad_norm" in e]
    s["final_grad_norm"] = norms[-1] if norms else None
    s["first_grad_norm"] = norms[0] if norms else None
    good = sorted(v for v in norms if math.isfinite(v))
    s["median_grad_norm"] = good[len(good) // 2] if good else None
    s["first_nonfinite_lora_step"] = next((st["step"] for st in record.get("steps", []) if not st["lora_finite"]), None)
    s["lora_nonfinite_at_end"] = record.get("lora_nonfinite_at_end")
    s["lora_tensors"] = record.get("lora_tensors")
    batches = record.get("batches", [])
    s["batch_widths"] = sorted({b["width"] for b in batches})
    s["left_padded_rows_first_batch"] = batches[0]["left_padded_rows"] if batches else None
    s["right_padded_rows_first_batch"] = batches[0]["right_padded_rows"] if batches else None
    tp = record.get("throughput") or {}
    s["tokens_per_second"] = tp.get("tokens_per_second")
    s["padded_tokens_per_second"] = tp.get("padded_tokens_per_second")
    s["measured_steps"] = tp.get("steps")
    s["peak_memory_gib"] = record["peak_memory_bytes"] / GIB if record.get("peak_memory_bytes") else None
    s["per_step"] = [{"step": e["step"], "loss": e.get("loss"), "grad_norm": e.get("grad_norm")} for e in logs]
    return s


def variant(script):
    """"default+cap" -> "cap": a run on another checkpoint or data, compared
    with the original script's run of the same variant."""
    return script.partition("+")[2]


def add_ratios(runs):
    base = {(r["seq_len"], r["rep"], variant(r["script"])): r for r in runs if r["script"].partition("+")[0] == "original"}
    for r in runs:
        b = base.get((r["seq_len"], r["rep"], variant(r["script"])))
        for key, ratio in (("tokens_per_second", "speed_ratio"), ("peak_memory_gib", "memory_ratio")):
            if b and r.get(key) and b.get(key):
                r[ratio] = r[key] / b[key]
            else:
                r[ratio] = None


def loss_pattern(r):
    """How the logged loss reads: the reported failure is a finite loss, then 0.0."""
    if r.get("first_nonfinite_loss_step") is not None:
        return f"nan from step {r['first_nonfinite_loss_step']}"
    if r.get("zero_loss_steps"):
        return f"finite, then 0.0 ({r['zero_loss_steps']} steps)"
    return "finite"


def fmt(x, spec):
    return "—" if x is None else format(x, spec)


def table(runs):
    lines = [
        "| script | L | first non-finite grad_norm | logged loss | first non-finite LoRA weight | LoRA tensors non-finite at end | final loss | tokens/s (× original) | peak GiB (× original) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in runs:
        if not r.get("steps"):
            lines.append(f"| {r['script']} | {r['seq_len']} | failed (exit {r['exit_code']}): {r.get('error')} | | | | | | |")
            continue
        speed = fmt(r.get("tokens_per_second"), ",.0f")
        if r.get("speed_ratio") is not None:
            speed += f" ({r['speed_ratio']:.2f})"
        peak = fmt(r.get("peak_memory_gib"), ".1f")
        if r.get("memory_ratio") is not None:
            peak += f" ({r['memory_ratio']:.2f})"
        label = r["script"] + (f" (rep {r['rep']})" if r["rep"] > 1 else "")
        if r.get("error"):
            label += f" (failed after {r['steps']} steps: {r['error']})"
        lines.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
            label, r["seq_len"],
            fmt(r["first_nonfinite_grad_norm_step"], "d") if r["first_nonfinite_grad_norm_step"] else "none",
            loss_pattern(r),
            fmt(r["first_nonfinite_lora_step"], "d") if r["first_nonfinite_lora_step"] else "none",
            f"{r['lora_nonfinite_at_end']}/{r['lora_tensors']}",
            fmt(number(r["final_loss"]) if r["final_loss"] is not None else None, ".4f"),
            speed, peak))
    return "\n".join(lines)


def read_manifest(path):
    rows = []
    with open(path) as f:
        for line in f:
            tag, script, seq_len, rep, code, seconds = line.rstrip("\n").split("\t")
            rows.append({"tag": tag, "script": script, "seq_len": int(seq_len), "rep": int(rep),
                         "exit_code": int(code), "seconds": int(seconds)})
    return rows


def main():
    work, out = sys.argv[1], sys.argv[2]
    runs = []
    for row in read_manifest(os.path.join(work, "manifest.tsv")):
        path = os.path.join(work, "runs", row["tag"] + ".json")
        record = None
        if os.path.exists(path):
            with open(path) as f:
                record = json.load(f)
        runs.append(summarize_run(row, record))
    add_ratios(runs)
    env = {}
    if os.path.exists(os.path.join(work, "env.json")):
        with open(os.path.join(work, "env.json")) as f:
            env = json.load(f)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"env": env, "runs": runs}, f, indent=1)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(table(runs) + "\n")
    print(table(runs))


if __name__ == "__main__":
    main()
