"""CPU stand-in for the parts of torch that the e2e scripts and harness touch (dry run only)."""
import types
import numpy as np
from . import utils  # noqa
__version__ = "2.11.0+fake"
bfloat16, float32, float16 = "torch.bfloat16", "torch.float32", "torch.float16"
isfinite = np.isfinite
def stack(xs): return np.array([bool(x) for x in xs])
class _Compiled:
    def __init__(self, m): self._orig_mod = m
    def __getattr__(self, name): return getattr(self._orig_mod, name)
def compile(m): return _Compiled(m)
def manual_seed(s): pass
class _Cuda:
    _sdp = {"cudnn": True, "flash": True, "mem": True}
    def enable_cudnn_sdp(self, on): self._sdp["cudnn"] = on
    def cudnn_sdp_enabled(self): return self._sdp["cudnn"]
    def flash_sdp_enabled(self): return self._sdp["flash"]
    def mem_efficient_sdp_enabled(self): return self._sdp["mem"]
backends = types.SimpleNamespace(cuda=_Cuda())
class _CudaRT:
    peak = 0
    def synchronize(self): pass
    def is_available(self): return True
    def max_memory_allocated(self): return self.peak
    def max_memory_reserved(self): return self.peak
cuda = _CudaRT()
