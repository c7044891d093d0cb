"""Two rules' claims about the Trainer, on a tiny random Llama with LoRA.

    python3 trainer_checks.py FIXTURES_DIR OUT.json

LTF106: a Trainer subclass with the pre-4.46 compute_loss(self, model,
inputs, return_outputs=False), against the plain Trainer under
gradient_accumulation_steps=4, for a loss written as a token mean and one
written as a sum (fixtures/e2e/ltf106_token_{mean,sum}.py): the original,
the signature alone (the rule's fix before it kept the scale), that with
model_accepts_loss_kwargs = False as a class attribute, and loratune-fix's
golden output. Same weights, data and order in every run.

LTF012: gradient_checkpointing=True with no gradient_checkpointing_kwargs
(the script LTF012 reports) against use_reentrant False (its fix) and
True (transformers 4.x's default), on the installed transformers: loss
per step and how many LoRA tensors moved.
"""
import json
import math
import os
import random
import runpy
import sys
import tempfile

import torch
import transformers
from peft import LoraConfig, get_peft_model
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainerCallback, TrainingArguments

GA, BATCH, STEPS = 4, 2, 6


def tiny_model():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256)
    model = LlamaForCausalLM(config)
    lora = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")
    return get_peft_model(model, lora)


def examples(count=BATCH * GA * STEPS):
    rng = random.Random(0)
    out = []
    for _ in range(count):
        ids = [rng.randrange(1, 512) for _ in range(rng.randint(6, 40))]
        out.append({"input_ids": ids, "labels": list(ids)})
    return out


def collate(features):
    width = max(len(f["input_ids"]) for f in features)
    ids = torch.zeros(len(features), width, dtype=torch.long)
    mask = torch.zeros_like(ids)
    labels = torch.full_like(ids, -100)
    for i, f in enumerate(features):
        n = len(f["input_ids"])
        ids[i, :n] = torch.tensor(f["input_ids"])
        mask[i, :n] = 1
        labels[i, :n] = torch.tensor(f["labels"])
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


class Logs(TrainerCallback):
    def __init__(self):
        self.steps = []

    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "loss" in logs:
            self.steps.append({"step": state.global_step, "loss": float(logs["loss"]), "grad_norm": float(logs.get("grad_norm", "nan"))})


def train(cls, name, **extra_args):
    logs = Logs()
    model = tiny_model()
    before = {n: p.detach().cpu().clone() for n, p in model.named_parameters() if "lora_" in n}
    args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=BATCH,
                             gradient_accumulation_steps=extra_args.pop("gradient_accumulation_steps", GA),
                             max_steps=STEPS, learning_rate=1e-3, logging_steps=1, max_grad_norm=1.0,
                             report_to="none", save_strategy="no", seed=0, remove_unused_columns=False,
                             **extra_args)
    record = {"name": name}
    try:
        trainer = cls(model=model, args=args, train_dataset=examples(), data_collator=collate, callbacks=[logs])
        record["model_accepts_loss_kwargs"] = getattr(trainer, "model_accepts_loss_kwargs", None)
        # the loss each micro-batch returns to the loop, unrounded (the log
        # shows 4 digits): their sum over a step is the step's logged loss
        micro, inner = [], trainer.training_step

        def training_step(*a, **k):
            out = inner(*a, **k)
            micro.append(out.detach().float().item())
            return out

        trainer.training_step = training_step
        trainer.train()
    except Exception as e:  # the original shape stops here
        record["error"] = f"{type(e).__name__}: {e}"[:300]
    record["steps"] = logs.steps
    if "error" not in record:
        ga = args.gradient_accumulation_steps
        for i, st in enumerate(record["steps"]):
            st["loss_exact"] = sum(micro[i * ga:(i + 1) * ga])
    record["lora_tensors"] = len(before)
    record["lora_tensors_moved"] = sum(1 for n, p in model.named_parameters()
                                       if n in before and not torch.equal(before[n], p.detach().cpu()))
    print(json.dumps({k: v for k, v in record.items() if k != "steps"}), record["steps"][:2], flush=True)
    return record


def against(record, ref):
    """Per-step ratios to the reference run."""
    pairs = list(zip(record["steps"], ref["steps"]))
    if not pairs:
        return {}
    loss = [a.get("loss_exact", a["loss"]) / b.get("loss_exact", b["loss"]) for a, b in pairs]
    norm = [a["grad_norm"] / b["grad_norm"] for a, b in pairs]
    return {"loss_ratio_step1": loss[0], "grad_norm_ratio_step1": norm[0],
            "loss_ratio_range": [min(loss), max(loss)], "grad_norm_ratio_range": [min(norm), max(norm)],
            "max_loss_rel_diff": max(abs(x - 1) for x in loss),
            "bit_identical_losses": all(a.get("loss_exact") == b.get("loss_exact") for a, b in pairs) and len(pairs) == len(ref["steps"])}


def variants(fixtures, stem, cls_name):
    """The original class, the signature alone, the signature with the
    flag as a class attribute, and the golden's class."""
    path = os.path.join(fixtures, stem + ".py")
    source = open(path).read()
    original = runpy.run_path(path)[cls_name]
    signature = source.replace("return_outputs=False)", "return_outputs=False, num_items_in_batch=None)")
    assert signature != source
    ns = {}
    exec(compile(signature, stem + "_signature_only.py", "exec"), ns)
    signature_only = ns[cls_name]
    class_attr = type(cls_name + "ClassAttr", (signature_only,), {"model_accepts_loss_kwargs": False})
    golden = runpy.run_path(path + ".golden")[cls_name]
    return [("original", original), ("signature_only", signature_only),
            ("signature_and_class_attribute", class_attr), ("loratune_fix_golden", golden)]


def main():
    fixtures, out_path = sys.argv[1], sys.argv[2]
    result = {"transformers": transformers.__version__, "torch": torch.__version__,
              "gradient_accumulation_steps": GA, "per_device_batch": BATCH, "steps": STEPS,
              "device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu"}
    ref = train(Trainer, "plain_trainer")
    result["ltf106"] = {"plain_trainer": ref}
    for stem, cls_name in (("ltf106_token_mean", "TokenMeanTrainer"), ("ltf106_token_sum", "TokenSumTrainer")):
        for name, cls in variants(fixtures, stem, cls_name):
            r = train(cls, f"{stem}:{name}")
            r["against_plain_trainer"] = against(r, ref)
            result["ltf106"][f"{stem}:{name}"] = r
    result["ltf012"] = {
        "gradient_checkpointing_no_kwargs": train(Trainer, "gc_no_kwargs", gradient_checkpointing=True),
        "use_reentrant_false": train(Trainer, "gc_reentrant_false", gradient_checkpointing=True,
                                     gradient_checkpointing_kwargs={"use_reentrant": False}),
        "use_reentrant_true": train(Trainer, "gc_reentrant_true", gradient_checkpointing=True,
                                    gradient_checkpointing_kwargs={"use_reentrant": True}),
        "no_checkpointing": train(Trainer, "no_gc"),
    }
    base = result["ltf012"]["use_reentrant_false"]
    for r in result["ltf012"].values():
        r["against_use_reentrant_false"] = against(r, base)
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1, default=lambda x: None if isinstance(x, float) and math.isnan(x) else str(x))


if __name__ == "__main__":
    main()
