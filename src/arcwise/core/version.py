"""The version of arcwise, which model files record (`arcwise.models.modelfile`)."""

__version__ = "0.1.0"
