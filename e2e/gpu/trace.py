"""Run a training script unchanged and record what its Trainer does.

    TRACE_OUT=run.json python3 trace.py SCRIPT.py

Before the script runs, transformers.Trainer.__init__ is wrapped so that
every Trainer gets one more callback, and DataCollatorForSeq2Seq.__call__ so
that every batch's shape is counted. The record (JSON, non-finite numbers as
the strings "nan", "inf", "-inf") holds per-step loss and grad_norm, the
first step after which a LoRA weight was non-finite, tokens per second after
warm-up, and the peak GPU memory. It is written even when the script fails.
"""
import json
import math
import os
import runpy
import sys
import time
import traceback

import torch
import transformers

WARMUP_STEPS = int(os.environ.get("TRACE_WARMUP_STEPS", "10"))
# TRACE_EMPTY_ROW=1: the last row of every batch becomes all padding (no
# token, no label), as a batch holding an empty example would be.
EMPTY_ROW = os.environ.get("TRACE_EMPTY_ROW") == "1"


def empty_last_row(batch, pad_id):
    for key, value in (("input_ids", pad_id), ("attention_mask", 0), ("labels", -100)):
        if key in batch:
            batch[key][-1] = value
    return batch


def finite_or_text(x):
    """JSON has no NaN: keep finite floats, write the others as text."""
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, dict):
        return {k: finite_or_text(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite_or_text(v) for v in x]
    return x


def lora_tensors(model):
    return [(n, p) for n, p in model.named_parameters() if "lora_" in n]


class Recorder:
    def __init__(self, script):
        self.record = {
            "script": os.path.basename(script),
            "seq_len": int(os.environ.get("SEQ_LEN", "0")),
            "warmup_steps": WARMUP_STEPS,
            "setup": {},
            "logs": [],
            "steps": [],
            "batches": [],
            "error": None,
            "empty_row": EMPTY_ROW,
        }

    def count_batch(self, batch):
        mask = batch.get("attention_mask")
        if mask is None:
            return
        self.record["batches"].append({
            "rows": int(mask.shape[0]),
            "width": int(mask.shape[1]),
            "tokens": int(mask.sum()),
            # rows whose first query sees no key under the causal mask
            "left_padded_rows": int((mask[:, 0] == 0).sum()),
            "right_padded_rows": int((mask[:, -1] == 0).sum()),
            "empty_rows": int((mask.sum(1) == 0).sum()),
        })

    def callback(self):
        rec = self

        class TraceCallback(transformers.TrainerCallback):
            def on_train_begin(self, args, state, control, model=None, **kwargs):
                try:  # what the script trains with; a failure here must not stop the run
                    weight = next(p for n, p in model.named_parameters() if "lora_" not in n)
                    config = getattr(model, "config", None)
                    rec.record["setup"] = {
                        "base_weight_dtype": str(weight.dtype),
                        "lora_dtype": str(lora_tensors(model)[0][1].dtype) if lora_tensors(model) else None,
                        "attn_implementation": getattr(config, "_attn_implementation", None),
                        # accelerate's map, set by device_map= on the base model inside the peft wrapper
                        "hf_device_map": str(next((m.hf_device_map for m in model.modules()
                                                   if getattr(m, "hf_device_map", None)), None)),
                        "cudnn_sdp_enabled": torch.backends.cuda.cudnn_sdp_enabled(),
                        "flash_sdp_enabled": torch.backends.cuda.flash_sdp_enabled(),
                        "mem_efficient_sdp_enabled": torch.backends.cuda.mem_efficient_sdp_enabled(),
                        "bf16": args.bf16,
                        "logging_nan_inf_filter": args.logging_nan_inf_filter,
                        "gradient_accumulation_steps": args.gradient_accumulation_steps,
                        "pad_token_id": getattr(config, "pad_token_id", None),
                    }
                except Exception as e:
                    rec.record["setup"]["error"] = repr(e)
                torch.cuda.synchronize()
                rec.record["train_begin"] = time.perf_counter()

            def on_step_end(self, args, state, control, model=None, **kwargs):
                torch.cuda.synchronize()
                end = time.perf_counter()
                tensors = [p for _, p in lora_tensors(model)]
                finite = bool(torch.stack([torch.isfinite(p).all() for p in tensors]).all()) if tensors else True
                rec.record["steps"].append({
                    "step": state.global_step,
                    "end": end,  # the step's work done
                    "resume": time.perf_counter(),  # this check done: the next step starts
                    "lora_finite": finite,
                })

            def on_log(self, args, state, control, logs=None, **kwargs):
                rec.record["logs"].append({"step": state.global_step, **(logs or {})})

            def on_train_end(self, args, state, control, model=None, **kwargs):
                bad = [n for n, p in lora_tensors(model) if not torch.isfinite(p).all()]
                rec.record["lora_nonfinite_at_end"] = len(bad)
                rec.record["lora_tensors"] = len(lora_tensors(model))
                rec.record["lora_nonfinite_examples"] = bad[:3]

        return TraceCallback()

    def finish(self):
        r = self.record
        if torch.cuda.is_available():
            r["peak_memory_bytes"] = torch.cuda.max_memory_allocated()
            r["peak_reserved_bytes"] = torch.cuda.max_memory_reserved()
        r["throughput"] = self.throughput()
        return r

    def throughput(self):
        """Real (unpadded) tokens per second over the steps after warm-up,
        the LoRA finiteness checks between steps left out of the time."""
        steps = self.record["steps"]
        accum = self.record["setup"].get("gradient_accumulation_steps") or 1
        if WARMUP_STEPS < 1 or len(steps) <= WARMUP_STEPS:
            return None
        seconds = sum(steps[i]["end"] - steps[i - 1]["resume"] for i in range(WARMUP_STEPS, len(steps)))
        last = steps[-1]["step"]
        # the batches of the measured steps, in the order the collator made them
        measured = self.record["batches"][WARMUP_STEPS * accum:last * accum]
        tokens = sum(b["tokens"] for b in measured)
        padded = sum(b["rows"] * b["width"] for b in measured)
        return {
            "steps": last - WARMUP_STEPS,
            "seconds": seconds,
            "tokens": tokens,
            "tokens_per_second": tokens / seconds if seconds > 0 else None,
            "padded_tokens_per_second": padded / seconds if seconds > 0 else None,
        }

def main():
    if len(sys.argv) < 2:
        sys.exit("usage: TRACE_OUT=run.json python3 trace.py SCRIPT.py [ARGS...]")
    script = sys.argv[1]
    out_path = os.environ["TRACE_OUT"]
    rec = Recorder(script)

    init = transformers.Trainer.__init__

    def traced_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.add_callback(rec.callback())

    transformers.Trainer.__init__ = traced_init

    collate = transformers.DataCollatorForSeq2Seq.__call__

    def counted_collate(self, features, return_tensors=None):
        batch = collate(self, features, return_tensors)
        if EMPTY_ROW:
            batch = empty_last_row(batch, getattr(getattr(self, "tokenizer", None), "pad_token_id", None) or 0)
        rec.count_batch(batch)
        return batch

    transformers.DataCollatorForSeq2Seq.__call__ = counted_collate

    sys.argv = sys.argv[1:]
    status = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            rec.record["error"] = f"SystemExit({e.code!r})"
            status = 1
    except BaseException as e:  # record, then fail as the script did
        rec.record["error"] = "".join(traceback.format_exception_only(type(e), e)).strip()
        traceback.print_exc()
        status = 1
    with open(out_path, "w") as f:
        json.dump(finite_or_text(rec.finish()), f, indent=1)
    sys.exit(status)


if __name__ == "__main__":
    main()
