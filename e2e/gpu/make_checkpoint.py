"""Build, offline, a local checkpoint shaped like Llama-3.1-8B, with random weights.

    python3 make_checkpoint.py DIR [--layers 2]

Every layer has the 8B's shapes (hidden 4096, 32 heads, 8 KV heads,
intermediate 14336, vocabulary 128256, llama3 rope scaling); only the number
of layers is smaller. The weights are saved in bf16 and config.json is
written in the published checkpoint's own (transformers 4) form, so loading
takes the same path as the real one. The tokenizer is made with the
`tokenizers` library: a word-level vocabulary ("!" at id 0, as in Llama-3,
then "w1".."w127999") and Llama-3.1's 256 special tokens at their real ids.
"""
import argparse
import json
import os

import torch
from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers, processors
from transformers import AutoConfig, AutoTokenizer, LlamaConfig, LlamaForCausalLM

REGULAR_TOKENS = 128000

# config.json of meta-llama/Llama-3.1-8B, but num_hidden_layers
LLAMA31_8B = {
    "architectures": ["LlamaForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "bos_token_id": 128000,
    "eos_token_id": 128001,
    "hidden_act": "silu",
    "hidden_size": 4096,
    "initializer_range": 0.02,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "mlp_bias": False,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "pretraining_tp": 1,
    "rms_norm_eps": 1e-05,
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.43.0.dev0",
    "use_cache": True,
    "vocab_size": 128256,
}

GENERATION_CONFIG = {
    "bos_token_id": 128000,
    "do_sample": True,
    "eos_token_id": 128001,
    "temperature": 0.6,
    "top_p": 0.9,
    "transformers_version": "4.43.0.dev0",
}


def special_tokens():
    """Llama-3.1's special tokens, in id order from 128000."""
    names = [
        "<|begin_of_text|>",  # 128000
        "<|end_of_text|>",  # 128001
        "<|reserved_special_token_0|>",
        "<|reserved_special_token_1|>",
        "<|finetune_right_pad_id|>",  # 128004
        "<|reserved_special_token_2|>",
        "<|start_header_id|>",
        "<|end_header_id|>",
        "<|eom_id|>",
        "<|eot_id|>",  # 128009
        "<|python_tag|>",
    ]
    names += [f"<|reserved_special_token_{i}|>" for i in range(3, 248)]
    assert len(names) == 256
    return names


def build_tokenizer(path):
    specials = special_tokens()
    vocab = {"!": 0}
    vocab.update({f"w{i}": i for i in range(1, REGULAR_TOKENS)})
    vocab.update({name: REGULAR_TOKENS + i for i, name in enumerate(specials)})
    # Llama-3 has no unk token; the word-level model needs one for unknown
    # words, so it borrows the last reserved token (the scripts never hit it).
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<|reserved_special_token_247|>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.add_special_tokens([AddedToken(name, special=True, normalized=False) for name in specials])
    tok.post_processor = processors.TemplateProcessing(
        single="<|begin_of_text|> $A",
        pair="<|begin_of_text|> $A <|begin_of_text|> $B",
        special_tokens=[("<|begin_of_text|>", 128000)],
    )
    tok.save(os.path.join(path, "tokenizer.json"))
    with open(os.path.join(path, "tokenizer_config.json"), "w") as f:
        json.dump({
            "bos_token": "<|begin_of_text|>",
            "eos_token": "<|end_of_text|>",
            "clean_up_tokenization_spaces": True,
            "model_input_names": ["input_ids", "attention_mask"],
            "model_max_length": 131072,
            "tokenizer_class": "PreTrainedTokenizerFast",
        }, f, indent=2)
    with open(os.path.join(path, "special_tokens_map.json"), "w") as f:
        json.dump({"bos_token": "<|begin_of_text|>", "eos_token": "<|end_of_text|>"}, f, indent=2)


def build_model(path, layers):
    raw = dict(LLAMA31_8B, num_hidden_layers=layers)
    config = LlamaConfig.from_dict(raw)
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with torch.device(device):
        model = LlamaForCausalLM(config)
    model.to(torch.bfloat16).save_pretrained(path)
    # The published config.json, not transformers 5's rewrite of it.
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(raw, f, indent=2)
    with open(os.path.join(path, "generation_config.json"), "w") as f:
        json.dump(GENERATION_CONFIG, f, indent=2)
    return sum(p.numel() for p in model.parameters())


def verify(path, layers):
    """Load both back as a script would; stop on what the scripts rely on,
    note the rest."""
    tok = AutoTokenizer.from_pretrained(path)
    want = {"<|begin_of_text|>": 128000, "<|end_of_text|>": 128001, "<|finetune_right_pad_id|>": 128004, "!": 0}
    for token, token_id in want.items():
        got = tok.convert_tokens_to_ids(token)
        assert got == token_id, f"{token}: id {got}, want {token_id}"
    assert (tok.bos_token_id, tok.eos_token_id) == (128000, 128001), (tok.bos_token_id, tok.eos_token_id)
    assert "<|finetune_right_pad_id|>" in tok.get_vocab()
    config = AutoConfig.from_pretrained(path)
    rope = getattr(config, "rope_parameters", None) or getattr(config, "rope_scaling", None) or {}
    assert rope.get("rope_type") == "llama3", rope
    shape = (config.hidden_size, config.num_attention_heads, config.num_key_value_heads,
             config.intermediate_size, config.vocab_size, config.num_hidden_layers)
    assert shape == (4096, 32, 8, 14336, 128256, layers), shape
    return {
        "tokenizer_class": type(tok).__name__,
        "tokenizer_len": len(tok),
        "pad_token": tok.pad_token,
        "encode_w5_w7": tok("w5 w7")["input_ids"],
        "rope": dict(rope),
    }

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--layers", type=int, default=2)
    args = parser.parse_args()
    os.makedirs(args.path, exist_ok=True)
    params = build_model(args.path, args.layers)
    build_tokenizer(args.path)
    checks = verify(args.path, args.layers)
    print(json.dumps({"checkpoint": args.path, "layers": args.layers, "parameters": params, **checks}, default=str))


if __name__ == "__main__":
    main()
