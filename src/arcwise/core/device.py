"""Where the neural models' networks run: the CPU (the default) or a GPU.

The device is a setting of the process (`use_device`), never of a model file: the
networks built after it is set, trained or loaded, are put there
(`arcwise.learn.neural`), and the local worker processes this one starts
(`arcwise.core.local_pool`) inherit it.  Torch is imported only to resolve a GPU (or
auto), so that a run without neural models never loads it.
"""

from __future__ import annotations

import re

from arcwise.core.errors import ArcwiseError
from arcwise.core.extras import required

DEVICES = ("cpu", "cuda", "auto")  # the --device choices; cuda:N names one GPU
_device = "cpu"  # where the networks built from now on go (`use_device`)


def resolve_device(name: str) -> str:
    """The torch device that a device name means: cpu; cuda or cuda:N, a GPU torch sees
    (ArcwiseError if it sees none, or not that many); auto, cuda when torch sees a GPU,
    else cpu."""
    if name == "cpu":
        return "cpu"
    if name != "auto" and not re.fullmatch(r"cuda(:[0-9]+)?", name):
        raise ArcwiseError(f"--device {name}: use one of {', '.join(DEVICES)} or cuda:N")
    if name == "auto":
        try:
            import torch
        except ImportError:
            return "cpu"
        return "cuda" if torch.cuda.is_available() else "cpu"
    required("torch", "neural", f"--device {name}")
    import torch

    if not torch.cuda.is_available():
        build = "a CPU-only build" if torch.version.cuda is None else f"CUDA {torch.version.cuda}"
        raise ArcwiseError(f"--device {name}: torch sees no GPU here (torch "
                           f"{torch.__version__}, {build}); use --device cpu or auto")
    index, count = int(name.partition(":")[2] or 0), torch.cuda.device_count()
    if index >= count:
        raise ArcwiseError(f"--device {name}: torch sees {count} GPU(s), cuda:0 to "
                           f"cuda:{count - 1}")
    return name


def use_device(name: str) -> str:
    """Build the networks of the models trained or loaded from now on, in this process and
    the local workers it starts, on device `name` (`resolve_device`); returns the device."""
    global _device
    _device = resolve_device(name)
    return _device


def current_device() -> str:
    """The device new networks are built on (`use_device`; the CPU by default)."""
    return _device
