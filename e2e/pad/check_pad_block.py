"""Run LTF004's emitted pad lines against real tokenizer files, offline.

    python3 e2e/pad/check_pad_block.py OUT_DIR

For each family a `tokenizers` tokenizer.json (with tokenizer_config.json)
is built locally with that family's special tokens at their real ids, loaded
with AutoTokenizer.from_pretrained as a script would, and paired with a tiny
LlamaForCausalLM whose embedding has the family's size. The lines run are
read from the fixtures' golden outputs (the text loratune-fix emits), not
copied here:

- the run-time block (dynamic_model_id.py.golden) on every family, both on
  the tokenizer as the fix leaves it (the script's pad line removed) and
  after the script's pad line (a line in a tokenizer factory stays);
- its remote-code form (fixtures/LTF004-dedicated-pad-token/remote_block_collator_by_pad_id.py.golden, no added
  token) after the script's line;
- each family's own fix (llama31_unk, llama30_resize, mistral_eos_lm_collator,
  qwen25_instruct_override, gemma_completion_only goldens).

Each case then collates two sequences of different lengths ending in EOS
with transformers' DataCollatorForLanguageModeling(mlm=False) and runs one
forward pass with the labels. It records whether the pad differs from eos
and whether every EOS survives in the labels, before the fix (the script's
line) and after. results.json and summary.md go to OUT_DIR; the exit status
is 1 when a check fails. No network: HF_HUB_OFFLINE=1.
"""
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import tokenizers
import torch
import transformers
from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers
from transformers import AutoTokenizer, DataCollatorForLanguageModeling, LlamaConfig, LlamaForCausalLM

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIX = os.path.join(REPO, "fixtures", "LTF004-dedicated-pad-token")
sys.path.insert(0, os.path.join(REPO, "e2e", "gpu"))
import make_checkpoint  # noqa: E402  (Llama-3.1's tokenizer, as the GPU harness builds it)


def emitted(golden):
    """The LTF004 lines of a golden output: from its marker comment to the
    config line(s), dedented."""
    lines = open(golden, encoding="utf-8").read().splitlines()
    first = next(i for i, l in enumerate(lines) if "# loratune-fix LTF004:" in l)
    indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
    out, seen_config = [], False
    for l in lines[first:]:
        is_config = ".config.pad_token_id = " in l or ".generation_config.pad_token_id = " in l
        if seen_config and not is_config:
            break
        seen_config = seen_config or is_config
        out.append(l[len(indent):] if l.startswith(indent) else l)
    return "\n".join(out) + "\n"


def save(path, vocab, specials, config):
    """A BPE tokenizer with no merges and no unk of its own (as Llama-3's and
    Qwen's have none): the ids are what the checks use; unk comes from the
    config where the family has one."""
    os.makedirs(path, exist_ok=True)
    try:
        tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    except Exception as e:  # an older tokenizers: a word-level model borrowing the last special as unk
        print(json.dumps({"note": f"BPE without merges refused ({e}); WordLevel used", "path": path}))
        tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token=specials[-1]))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in specials])
    tok.save(os.path.join(path, "tokenizer.json"))
    cfg = {"tokenizer_class": "PreTrainedTokenizerFast", "model_input_names": ["input_ids", "attention_mask"],
           "clean_up_tokenization_spaces": False}
    cfg.update({k: v for k, v in config.items()})
    with open(os.path.join(path, "tokenizer_config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(path, "special_tokens_map.json"), "w") as f:
        json.dump({k: v for k, v in config.items() if k.endswith("_token") and v}, f, indent=2)


def words(first, last):
    return {("!" if i == 0 else f"w{i}"): i for i in range(first, last)}


def build_all(root):
    """Family name -> (tokenizer dir, embedding rows, description)."""
    fams = {}
    # Llama-3.1: the GPU harness's own builder (special tokens at real ids).
    p = os.path.join(root, "llama31")
    os.makedirs(p, exist_ok=True)
    make_checkpoint.build_tokenizer(p)
    fams["llama31"] = (p, 128256, "Llama-3.1: 256 special tokens from 128000, <|finetune_right_pad_id|>=128004, no unk, no pad")
    # Llama-3.0: reserved_special_token_0..250, no finetune pad.
    names = ["<|begin_of_text|>", "<|end_of_text|>"] + [f"<|reserved_special_token_{i}|>" for i in range(4)]
    names += ["<|start_header_id|>", "<|end_header_id|>", "<|reserved_special_token_4|>", "<|eot_id|>"]
    names += [f"<|reserved_special_token_{i}|>" for i in range(5, 251)]
    assert len(names) == 256
    v = words(0, 128000)
    v.update({n: 128000 + i for i, n in enumerate(names)})
    p = os.path.join(root, "llama30")
    save(p, v, names, {"bos_token": "<|begin_of_text|>", "eos_token": "<|end_of_text|>"})
    fams["llama30"] = (p, 128256, "Llama-3.0: reserved_special_token_0..250, <|eot_id|>=128009, no unk, no pad")
    # Llama-2 / Mistral: SentencePiece-style <unk>=0, <s>=1, </s>=2.
    sp = ["<unk>", "<s>", "</s>"]
    v = {n: i for i, n in enumerate(sp)}
    v.update({f"w{i}": i for i in range(3, 32000)})
    p = os.path.join(root, "mistral")
    save(p, v, sp, {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"})
    fams["mistral"] = (p, 32000, "Llama-2/Mistral: <unk>=0, <s>=1, </s>=2, no pad")
    # Qwen2.5: <|endoftext|>=151643 (its pad), <|im_end|>=151645; embedding 152064.
    qs = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>",
          "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>",
          "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>",
          "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>"]
    v = words(0, 151643)
    v.update({n: 151643 + i for i, n in enumerate(qs)})
    p = os.path.join(root, "qwen25_instruct")
    save(p, v, qs, {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>", "unk_token": None, "bos_token": None})
    fams["qwen25_instruct"] = (p, 152064, "Qwen2.5-Instruct: pad <|endoftext|>=151643, eos <|im_end|>=151645, no unk; 152064 embedding rows")
    p = os.path.join(root, "qwen25_base")
    save(p, v, qs, {"eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>", "unk_token": None, "bos_token": None})
    fams["qwen25_base"] = (p, 152064, "Qwen2.5 base: pad == eos == <|endoftext|>=151643, no unk; 152064 embedding rows")
    # Gemma: <pad>=0, <eos>=1, <bos>=2, <unk>=3 (a smaller vocabulary: ids of the specials are what matter).
    gs = ["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>"]
    v = {n: i for i, n in enumerate(gs)}
    v.update({f"w{i}": i for i in range(len(gs), 8192)})
    p = os.path.join(root, "gemma")
    save(p, v, gs, {"pad_token": "<pad>", "eos_token": "<eos>", "bos_token": "<bos>", "unk_token": "<unk>"})
    fams["gemma"] = (p, 8192, "Gemma: <pad>=0, <eos>=1, <bos>=2, <unk>=3")
    # GPT-2 style: one <|endoftext|> for bos, eos and unk; no pad (the resize branch).
    v = words(0, 50256)
    v["<|endoftext|>"] = 50256
    p = os.path.join(root, "gpt2")
    save(p, v, ["<|endoftext|>"], {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>"})
    fams["gpt2"] = (p, 50257, "GPT-2 style: <|endoftext|>=50256 is bos, eos and unk; no pad")
    return fams


# The script's own pad line, per family (what the fix removes or follows).
SCRIPT_LINE = {
    "llama31": "tokenizer.pad_token_id = 0",
    "llama30": "tokenizer.pad_token = tokenizer.eos_token",
    "mistral": "tokenizer.pad_token = tokenizer.eos_token",
    "qwen25_instruct": "tokenizer.pad_token = tokenizer.eos_token",
    "qwen25_base": "tokenizer.pad_token = tokenizer.eos_token",
    "gemma": "tokenizer.pad_token = tokenizer.eos_token",
    "gpt2": "tokenizer.pad_token = tokenizer.eos_token",
}
FAMILY_GOLDEN = {
    "llama31": "llama31_unk.py.golden",
    "llama30": "llama30_resize.py.golden",
    "mistral": "mistral_eos_lm_collator.py.golden",
    "qwen25_instruct": "qwen25_instruct_override.py.golden",
    "gemma": "gemma_completion_only.py.golden",
}
# The remote-code block adds no token: where the vocabulary has neither an
# unk distinct from eos nor Llama-3.1's reserved pad, the script's own pad
# stays (the documented fallback, no worse than before). That is Qwen base
# and GPT-2 (pad == eos natively), Llama-3.0 (no unk, no reserved pad) and
# Qwen chat models once the script's line has replaced their own pad. The
# run of 2026-12-01 listed the last two as failures: this list was short of
# them, the block behaved as designed.
REMOTE_FALLBACK = {"qwen25_base", "gpt2", "llama30", "qwen25_instruct"}


def tiny_model(rows, device):
    cfg = LlamaConfig(vocab_size=rows, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64)
    torch.manual_seed(0)
    return LlamaForCausalLM(cfg).to(device)


def collate(tok, model, device):
    """Two sequences ending in EOS, one shorter (so it is padded), with id 0
    inside; returns what survived in the labels."""
    eos = tok.eos_token_id
    a = [5, 0, 7, 9, eos]
    b = [11, 0, 13, 17, 19, 23, 29, eos]
    batch = DataCollatorForLanguageModeling(tokenizer=tok, mlm=False)([{"input_ids": a}, {"input_ids": b}])
    labels = batch["labels"]
    eos_kept = bool(labels[0, len(a) - 1] == eos) and bool(labels[1, len(b) - 1] == eos)
    zero_kept = bool(labels[0, 1] == 0) and bool(labels[1, 1] == 0)
    pad_masked = bool((labels[0, len(a):] == -100).all())
    batch = {k: v.to(device) for k, v in batch.items()}
    with torch.no_grad():
        loss = model(**batch).loss.item()
    return {"labels_row0": labels[0].tolist(), "eos_kept": eos_kept, "id0_kept": zero_kept,
            "pad_masked": pad_masked, "loss": loss, "loss_finite": loss == loss and abs(loss) != float("inf")}


def run_case(fam, path, rows, script_line, code, device):
    tok = AutoTokenizer.from_pretrained(path)
    model = tiny_model(rows, device)
    ns = {"tokenizer": tok, "tok": tok, "model": model, "lm": model}
    if script_line:
        exec(script_line, ns)
    if code:
        exec(code, ns)
    pad, eos = tok.pad_token_id, tok.eos_token_id
    rec = {"pad_token": tok.pad_token, "pad_id": pad, "eos_token": tok.eos_token, "eos_id": eos,
           "unk_token": tok.unk_token, "len_tokenizer": len(tok),
           "embedding_rows": model.get_input_embeddings().num_embeddings,
           "config_pad_id": getattr(model.config, "pad_token_id", None)}
    rec["pad_distinct"] = pad is not None and pad != eos and tok.pad_token not in ("<|eot_id|>", "<|im_end|>")
    rec["rows_cover_vocab"] = rec["embedding_rows"] >= len(tok)
    if pad is not None:
        rec.update(collate(tok, model, device))
    return rec


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    fams = build_all(os.path.join("/tmp", "ltf004-tokenizers"))
    for fam, (path, rows, desc) in fams.items():
        try:
            tok = AutoTokenizer.from_pretrained(path)
        except Exception as e:
            print(json.dumps({"family": fam, "load_error": f"{type(e).__name__}: {e}"}))
            continue
        print(json.dumps({"family": fam, "class": type(tok).__name__, "len": len(tok), "pad": tok.pad_token,
                          "eos": [tok.eos_token, tok.eos_token_id], "unk": tok.unk_token,
                          "pad_id": tok.pad_token_id, "desc": desc}))
    block = emitted(os.path.join(FIX, "dynamic_model_id.py.golden"))
    remote = emitted(os.path.join(REPO, "fixtures", "LTF004-dedicated-pad-token", "remote_block_collator_by_pad_id.py.golden"))
    results, failures = [], []

    def check(name, fam, rec, want_fixed, fixed_by=None):
        rec.update({"case": name, "family": fam})
        results.append(rec)
        if want_fixed:
            ok = rec["pad_distinct"] and rec.get("eos_kept") and rec["rows_cover_vocab"] and rec.get("loss_finite") \
                and rec["config_pad_id"] == rec["pad_id"]
            if fam.startswith("llama3"):
                ok = ok and rec.get("id0_kept")
            if not ok:
                failures.append(name)
        print(json.dumps(rec))

    def case(name, fam, path, rows, line, code, want_fixed):
        try:
            rec = run_case(fam, path, rows, line, code, device)
        except Exception as e:  # one broken case must not hide the others
            rec = {"error": f"{type(e).__name__}: {e}", "pad_token": None, "pad_id": None, "eos_token": None,
                   "eos_id": None, "pad_distinct": False, "rows_cover_vocab": False, "embedding_rows": 0,
                   "len_tokenizer": 0, "config_pad_id": None}
            if want_fixed is False:
                results.append(dict(rec, case=name, family=fam))
                print(json.dumps(rec))
                return
        check(name, fam, rec, want_fixed)

    for fam, (path, rows, desc) in fams.items():
        line = SCRIPT_LINE[fam]
        # Before: the script's own line.
        case(f"{fam}/before", fam, path, rows, line, None, False)
        # The run-time block where the fix removed the script's line, and after it.
        case(f"{fam}/block", fam, path, rows, None, block, True)
        case(f"{fam}/block_after_script_line", fam, path, rows, line, block, True)
        # The remote-code block (no added token) after the script's line.
        case(f"{fam}/remote_block", fam, path, rows, line, remote, fam not in REMOTE_FALLBACK)
        if fam in FAMILY_GOLDEN:
            code = emitted(os.path.join(FIX, FAMILY_GOLDEN[fam]))
            case(f"{fam}/family_fix", fam, path, rows, None, code, True)

    env = {"torch": torch.__version__, "transformers": transformers.__version__, "tokenizers": tokenizers.__version__,
           "device": torch.cuda.get_device_name(0) if device == "cuda" else "cpu",
           "families": {k: v[2] for k, v in fams.items()}, "run_time_block": block, "remote_block": remote}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"env": env, "results": results, "failures": failures}, f, indent=1)
    rows = ["| case | pad (id) | eos (id) | pad distinct | EOS kept in labels | id 0 kept | rows/len | loss |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        rows.append(f"| {r['case']} | {r['pad_token']} ({r['pad_id']}) | {r['eos_token']} ({r['eos_id']}) | {r['pad_distinct']} | "
                    f"{r.get('eos_kept')} | {r.get('id0_kept')} | {r['embedding_rows']}/{r['len_tokenizer']} | {r.get('loss', float('nan')):.3f} |"
                    + (f" error: {r['error']}" if "error" in r else ""))
    summary = "\n".join([f"torch {env['torch']}, transformers {env['transformers']}, tokenizers {env['tokenizers']}, {env['device']}", ""] + rows
                        + ["", f"failures: {failures or 'none'}", ""])
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(summary)
    print(summary)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
