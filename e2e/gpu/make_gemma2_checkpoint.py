"""Build, offline, a local checkpoint shaped like Gemma-2-2B, with random weights.

    python3 make_gemma2_checkpoint.py DIR [--layers 2] [--cap-scale S]

Every layer has Gemma-2-2B's shapes (hidden 2304, 8 heads of 256, 4 KV
heads, intermediate 9216, vocabulary 256000, attention logits capped at
50, final logits at 30, sliding window 4096 on every other layer); only
the number of layers is smaller. --cap-scale multiplies the q and k
projections by S so that attention logits reach the cap (random weights
stay far below it: the cap never binds). Saved in bf16 with config.json in
the published checkpoint's (transformers 4) form. The tokenizer is made
with the `tokenizers` library: Gemma's specials at their real ids (<pad> 0,
<eos> 1, <bos> 2, <unk> 3, <mask> 4, <start_of_turn> 106, <end_of_turn>
107), the other ids below 1000 reserved, then words "w1000".."w255999".
"""
import argparse
import json
import os

import torch
from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers, processors
from transformers import AutoConfig, AutoTokenizer, Gemma2Config, Gemma2ForCausalLM

VOCAB = 256000
FIRST_PLAIN_ID = 1000

# config.json of google/gemma-2-2b, but num_hidden_layers
GEMMA2_2B = {
    "architectures": ["Gemma2ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "attn_logit_softcapping": 50.0,
    "bos_token_id": 2,
    "cache_implementation": "hybrid",
    "eos_token_id": 1,
    "final_logit_softcapping": 30.0,
    "head_dim": 256,
    "hidden_act": "gelu_pytorch_tanh",
    "hidden_activation": "gelu_pytorch_tanh",
    "hidden_size": 2304,
    "initializer_range": 0.02,
    "intermediate_size": 9216,
    "max_position_embeddings": 8192,
    "model_type": "gemma2",
    "num_attention_heads": 8,
    "num_hidden_layers": 26,
    "num_key_value_heads": 4,
    "pad_token_id": 0,
    "query_pre_attn_scalar": 256,
    "rms_norm_eps": 1e-06,
    "rope_theta": 10000.0,
    "sliding_window": 4096,
    "torch_dtype": "float32",
    "transformers_version": "4.42.4",
    "use_cache": True,
    "vocab_size": VOCAB,
}

SPECIALS = {"<pad>": 0, "<eos>": 1, "<bos>": 2, "<unk>": 3, "<mask>": 4,
            "<start_of_turn>": 106, "<end_of_turn>": 107}


def build_tokenizer(path):
    vocab = {f"<unused{i}>": i for i in range(FIRST_PLAIN_ID)}
    for name, i in SPECIALS.items():
        del vocab[f"<unused{i}>"]
        vocab[name] = i
    vocab.update({f"w{i}": i for i in range(FIRST_PLAIN_ID, VOCAB)})
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.add_special_tokens([AddedToken(name, special=True, normalized=False) for name in SPECIALS])
    tok.post_processor = processors.TemplateProcessing(
        single="<bos> $A", pair="<bos> $A <bos> $B", special_tokens=[("<bos>", 2)])
    tok.save(os.path.join(path, "tokenizer.json"))
    with open(os.path.join(path, "tokenizer_config.json"), "w") as f:
        json.dump({
            "bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>", "unk_token": "<unk>",
            "additional_special_tokens": ["<start_of_turn>", "<end_of_turn>"],
            "clean_up_tokenization_spaces": False,
            "model_max_length": 1000000000000000019884624838656,
            "tokenizer_class": "PreTrainedTokenizerFast",
        }, f, indent=2)


def build_model(path, layers, cap_scale):
    raw = dict(GEMMA2_2B, num_hidden_layers=layers)
    config = Gemma2Config.from_dict(raw)
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with torch.device(device):
        model = Gemma2ForCausalLM(config)
    if cap_scale != 1.0:
        with torch.no_grad():
            for layer in model.model.layers:
                layer.self_attn.q_proj.weight.mul_(cap_scale)
                layer.self_attn.k_proj.weight.mul_(cap_scale)
    model.to(torch.bfloat16).save_pretrained(path)
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(raw, f, indent=2)
    return sum(p.numel() for p in model.parameters())


def verify(path, layers):
    tok = AutoTokenizer.from_pretrained(path)
    assert (tok.pad_token_id, tok.eos_token_id, tok.bos_token_id, tok.unk_token_id) == (0, 1, 2, 3), \
        (tok.pad_token_id, tok.eos_token_id, tok.bos_token_id, tok.unk_token_id)
    assert tok.convert_tokens_to_ids("<end_of_turn>") == 107
    assert len(tok) == VOCAB, len(tok)
    config = AutoConfig.from_pretrained(path)
    shape = (config.hidden_size, config.num_attention_heads, config.num_key_value_heads, config.head_dim,
             config.intermediate_size, config.vocab_size, config.num_hidden_layers, config.attn_logit_softcapping)
    assert shape == (2304, 8, 4, 256, 9216, VOCAB, layers, 50.0), shape
    return {"tokenizer_len": len(tok), "padding_side": tok.padding_side, "encode": tok("w1000 w1001")["input_ids"]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--cap-scale", type=float, default=1.0)
    args = parser.parse_args()
    os.makedirs(args.path, exist_ok=True)
    params = build_model(args.path, args.layers, args.cap_scale)
    build_tokenizer(args.path)
    checks = verify(args.path, args.layers)
    print(json.dumps({"checkpoint": args.path, "layers": args.layers, "cap_scale": args.cap_scale,
                      "parameters": params, **checks}, default=str))


if __name__ == "__main__":
    main()
