"""Plot loss and grad_norm per step for each script, one column per length,
with the non-finite steps marked.

    python3 plot.py results.json out.png
"""
import json
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.transforms import blended_transform_factory  # noqa: E402

COLORS = {"original": "tab:red", "default": "tab:blue", "lean": "tab:green",
          "default_left_pad": "tab:cyan", "lean_left_pad": "tab:olive"}
STYLES = {"original": "-", "default": "--", "lean": ":", "default_left_pad": "-.", "lean_left_pad": "-."}
# runs of another checkpoint or data: "default+cap", "lean+empty_row"
VARIANT_STYLES = {"cap": (0, (1, 1)), "empty_row": (0, (5, 1, 1, 1))}
MODELS = {"llama": "a Llama-3.1-8B-shaped model", "gemma2": "a Gemma-2-2B-shaped model"}


def value(x):
    if x is None:
        return None
    return float(x)  # the trace writes non-finite numbers as text


def main():
    results_path, png = sys.argv[1], sys.argv[2]
    with open(results_path) as f:
        results = json.load(f)
    runs = [r for r in results["runs"] if r.get("rep", 1) == 1 and r.get("per_step")]
    lengths = sorted({r["seq_len"] for r in runs})
    if not runs:
        sys.exit("plot.py: no run has per-step logs")
    fig, axes = plt.subplots(2, len(lengths), figsize=(5.5 * len(lengths), 7), squeeze=False, sharex=True)
    for col, length in enumerate(lengths):
        for row, key in enumerate(("loss", "grad_norm")):
            ax = axes[row][col]
            top = blended_transform_factory(ax.transData, ax.transAxes)
            for r in (r for r in runs if r["seq_len"] == length):
                script, _, variant = r["script"].partition("+")
                color = COLORS.get(script, None)
                style = VARIANT_STYLES.get(variant) or STYLES.get(script, "-")
                points = [(p["step"], value(p[key])) for p in r["per_step"] if p.get(key) is not None]
                good = [(s, v) for s, v in points if math.isfinite(v)]
                bad = [s for s, v in points if not math.isfinite(v)]
                ax.plot([s for s, _ in good], [v for _, v in good], marker=".", markersize=3,
                        color=color, linestyle=style, label=r["script"],
                        linewidth=0.8 if variant else 1.5)
                if bad:
                    ax.scatter(bad, [0.97] * len(bad), transform=top, marker="x", color=color,
                               label=f"{r['script']}: non-finite ({len(bad)} steps)", zorder=3)
            if key == "grad_norm":
                ax.set_yscale("log")
                ax.set_xlabel("optimizer step")
            ax.set_title(f"{key}, sequence length {length}" + (" (L % 128 == 64)" if length % 128 == 64 else ""))
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
    env = results.get("env", {})
    fig.suptitle("LoRA on {} ({} layers, random weights): original vs loratune-fix outputs\n{}".format(
        MODELS.get(env.get("family", "llama")), env.get("layers", "?"), ", ".join(f"{k} {env[k]}" for k in ("gpu", "torch", "transformers", "peft") if k in env)), fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
