import numpy as np
class LoraConfig:
    def __init__(self, **kw): self.kw = kw
def get_peft_model(model, config):
    for name in config.kw["target_modules"]:
        model.params[f"layers.0.{name}.lora_A"] = np.ones(4)
        model.params[f"layers.0.{name}.lora_B"] = np.zeros(4)
    model.print_trainable_parameters = lambda: print("trainable params: fake")
    return model
