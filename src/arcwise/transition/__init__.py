"""The transition-based engine: compiled kernels, the perceptron's fused loops, batched steps, the stepper, traces, the parsers and their training."""

ORACLES = ("static", "dynamic")
DEFAULT_ORACLE = "dynamic"  # the library's and the command line's (Goldberg & Nivre 2012)
MODELS = ("perceptron", "bilstm")  # what scores the transitions (`arcwise.models.kinds.SCORERS`)
