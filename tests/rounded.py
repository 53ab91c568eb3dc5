"""A trained model as its model file holds it: perceptron weights rounded to int8.

Model files store a perceptron's tables as int8 with a scale each (`pc.quantized`), so a
loaded model parses, tags and tokenizes exactly as the trained one *with its weights
rounded* -- which `rounded` makes, for the round-trip tests."""

import copy

from arcwise.learn import perceptron as pc


def rounded(model):
    """A copy of `model` (a parser, guided parser, tagger or tokenizer; None) whose every
    perceptron `Weights` is `pc.quantized`; other weights (graph, neural) are kept."""
    from arcwise.pipeline.stages.tagger import Tagger

    if model is None:
        return None
    if isinstance(model, Tagger):  # its scoring tables are made from its weights
        return Tagger(model.tagsets, [pc.quantized(w) for w in model.weights],
                      model.hyperparameters, model.scores, features=model.features,
                      dictionary=model.dictionary, lemmatizer=model.lemmatizer,
                      combinations=model.combinations, partner=rounded(model.partner))
    copied = copy.copy(model)
    for name in ("weights", "second"):  # a Parser's, a Tokenizer's two passes
        if isinstance(getattr(model, name, None), pc.Weights):
            setattr(copied, name, pc.quantized(getattr(model, name)))
    for name in ("guide", "guided_model"):  # a GuidedParser's
        if hasattr(model, name):
            setattr(copied, name, rounded(getattr(model, name)))
    return copied
