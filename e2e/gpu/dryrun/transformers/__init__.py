"""CPU stand-in: a Trainer that fails like cuDNN SDPA's backward (NaN grads
for left-padded batches of width % 128 == 64, unless eager or cuDNN off)."""
import math, time, types
import numpy as np
import torch

class AutoTokenizer:
    @staticmethod
    def from_pretrained(path): return Tok()

class Tok:
    def __init__(self):
        self.vocab = {"!": 0, "<|begin_of_text|>": 128000, "<|end_of_text|>": 128001, "<|finetune_right_pad_id|>": 128004}
        self.bos_token_id, self.eos_token_id, self.pad_token_id, self.padding_side = 128000, 128001, None, "right"
        self.unk_token = self.unk_token_id = None  # Llama-3 has none
    def __len__(self): return 128256
    def get_vocab(self): return dict(self.vocab)
    @property
    def pad_token(self):
        return None if self.pad_token_id is None else {v: k for k, v in self.vocab.items()}[self.pad_token_id]
    @pad_token.setter
    def pad_token(self, t): self.pad_token_id = self.vocab[t]
    def add_special_tokens(self, d): raise AssertionError("no resize expected")

class AutoModelForCausalLM:
    @staticmethod
    def from_pretrained(path, torch_dtype=None, dtype=None, device_map=None, trust_remote_code=False, attn_implementation="sdpa"):
        m = types.SimpleNamespace(params={"embed": np.ones(3)}, device_map=device_map,
                                  config=types.SimpleNamespace(pad_token_id=None, use_cache=True, _attn_implementation=attn_implementation))
        m.dtype = dtype or torch_dtype
        m.named_parameters = lambda: list(m.params.items())
        m.modules = lambda: [m]
        m.save_pretrained = lambda d: None
        m.resize_token_embeddings = lambda n: (_ for _ in ()).throw(AssertionError("no resize expected"))
        m.hf_device_map = {"": 0} if device_map == "auto" else None
        return m

class TrainerCallback:
    pass

class TrainingArguments:
    def __init__(self, **kw):
        for bad in ("warmup_ratio", "evaluation_strategy"):
            if bad in kw: raise TypeError(bad)
        kw.setdefault("logging_nan_inf_filter", True)
        self.__dict__.update(kw)

class DataCollatorForSeq2Seq:
    def __init__(self, tokenizer, pad_to_multiple_of=None, return_tensors="pt", padding=True):
        self.tok, self.multiple = tokenizer, pad_to_multiple_of
    def __call__(self, features, return_tensors=None):
        width = max(len(f["input_ids"]) for f in features)
        width = -(-width // self.multiple) * self.multiple
        mask = np.zeros((len(features), width), dtype=int)
        for i, f in enumerate(features):
            n = len(f["input_ids"])
            if self.tok.padding_side == "left": mask[i, width - n:] = 1
            else: mask[i, :n] = 1
        return {"attention_mask": mask}

class Trainer:
    def __init__(self, model=None, train_dataset=None, args=None, data_collator=None):
        self.model, self.data, self.args, self.collate, self.callbacks = model, train_dataset, args, data_collator, []
    def add_callback(self, cb): self.callbacks.append(cb)
    def _each(self, name, **kw):
        for cb in self.callbacks:
            getattr(cb, name, lambda *a, **k: None)(self.args, self.state, None, model=self.model, **kw)
    def train(self):
        a, m = self.args, self.model
        self.state = types.SimpleNamespace(global_step=0)
        torch.cuda.peak = (8 if m.dtype == "torch.float32" else 4) * 2**30
        self._each("on_train_begin")
        it = iter(self.data)
        broken = False
        for step in range(1, a.max_steps + 1):
            batch = self.collate([next(it) for _ in range(a.per_device_train_batch_size)])
            mask = batch["attention_mask"]
            cudnn = m.config._attn_implementation != "eager" and torch.backends.cuda.cudnn_sdp_enabled()
            loss = float("nan") if broken else 11.9 - 0.01 * step
            if cudnn and mask.shape[1] % 128 == 64 and (mask[:, 0] == 0).any():
                broken = True
            norm = float("nan") if broken else 1.0 / step
            if broken:
                for k in m.params:
                    if "lora_" in k: m.params[k] = m.params[k] * float("nan")
            time.sleep(0.002 * (2 if m.config._attn_implementation == "eager" else 1))
            self.state.global_step = step
            self._each("on_step_end")
            shown = 0.0 if (math.isnan(loss) and a.logging_nan_inf_filter) else loss
            self._each("on_log", logs={"loss": shown, "grad_norm": norm, "learning_rate": 1e-4})
        self._each("on_log", logs={"train_loss": 1.0})
        self._each("on_train_end")
Gemma2ForCausalLM = AutoModelForCausalLM
