"""Does SDPA apply Gemma-2's attention soft-cap? Final logits of the same
checkpoint loaded with attn_implementation="sdpa" (transformers' default)
and "eager", in bf16 and fp32, on one left-padded batch, compared over the
real (unpadded) positions.

    python3 gemma2_logits.py OUT.json CHECKPOINT[=NAME] ...

Run it on the checkpoint with random weights (the cap never binds) and on
the one whose q/k weights are scaled so that it does (make_gemma2_checkpoint.py
--cap-scale): a difference that appears only where the cap binds is the
missing cap, not rounding.
"""
import json
import random
import sys

import torch
from transformers import AutoModelForCausalLM

LENGTHS = [192, 150, 100, 60]  # one left-padded batch, L = 192


def batch(device):
    rng = random.Random(0)
    width = max(LENGTHS)
    ids = torch.zeros(len(LENGTHS), width, dtype=torch.long)
    mask = torch.zeros_like(ids)
    for i, n in enumerate(LENGTHS):
        ids[i, width - n:] = torch.tensor([2] + [rng.randrange(1000, 256000) for _ in range(n - 1)])
        mask[i, width - n:] = 1
    return ids.to(device), mask.to(device)


def final_logits(path, attn, dtype, ids, mask):
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, attn_implementation=attn).to("cuda").eval()
    seen = getattr(model.config, "_attn_implementation", None)
    if seen != attn:
        print(f"note: asked for {attn}, the config says {seen}", flush=True)
    with torch.no_grad():
        out = model(input_ids=ids, attention_mask=mask).logits.float()
    del model
    torch.cuda.empty_cache()
    return out


def compare(a, b, mask):
    real = mask.bool()
    d = (a - b).abs()[real]
    return {
        "max_abs_diff": d.max().item(),
        "mean_abs_diff": d.mean().item(),
        "argmax_agreement": (a.argmax(-1) == b.argmax(-1))[real].float().mean().item(),
        "max_abs_logit": a.abs()[real].max().item(),
    }


def main():
    out_path, checkpoints = sys.argv[1], sys.argv[2:]
    ids, mask = batch("cuda")
    results = []
    for item in checkpoints:
        path, _, name = item.partition("=")
        for dtype in (torch.bfloat16, torch.float32):
            eager = final_logits(path, "eager", dtype, ids, mask)
            sdpa = final_logits(path, "sdpa", dtype, ids, mask)
            row = {"checkpoint": name or path, "dtype": str(dtype), **compare(sdpa, eager, mask)}
            if dtype == torch.float32:
                row["eager_bf16_vs_fp32_max_abs_diff"] = compare(bf16_eager, eager, mask)["max_abs_diff"]
            bf16_eager = eager
            results.append(row)
            print(json.dumps(row), flush=True)
    with open(out_path, "w") as f:
        json.dump({"batch_lengths": LENGTHS, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
