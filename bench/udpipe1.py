"""UDPipe 1 (the `ufal.udpipe` bindings) trained and run as a baseline for bench/pipeline.py.

Runs in the benchmark's own environment (a venv with ufal.udpipe, never arcwise's):

    PYTHON -m venv /tmp/udpipe-venv && /tmp/udpipe-venv/bin/pip install ufal.udpipe
    /tmp/udpipe-venv/bin/python bench/udpipe1.py train TRAIN.conllu DEV.conllu MODEL
    /tmp/udpipe-venv/bin/python bench/udpipe1.py run MODEL RAW.txt OUT.conllu
    /tmp/udpipe-venv/bin/python bench/udpipe1.py gold-tokens MODEL UNTAGGED.conllu \
        GOLD.conllu PREDICTED_TAGS_OUT.conllu GOLD_TAGS_OUT.conllu

`train` uses UDPipe 1's default settings (tokenizer, tagger and parser, dev as heldout data);
`run` goes from raw text to CoNLL-U and prints {"seconds", "sentences"} as JSON (the model
load excluded); `gold-tokens` parses the gold tokens of a test split, tagged by UDPipe's
tagger and with their gold tags.  It imports nothing of arcwise.

On a large treebank that training outlasts a working session (English-EWT: about 20 min
for the tokenizer, 70 for the tagger, 90 for the parser, one core each), so it can also be
done in stages that save a model each, the same models as `train` makes:

    .../python bench/udpipe1.py train-stage tokenizer TRAIN DEV TOKENIZER_MODEL
    .../python bench/udpipe1.py train-stage tagger TRAIN DEV TAGGER_MODEL
    .../python bench/udpipe1.py train-parser TAGGER_MODEL TRAIN DEV PARSER_MODEL
    .../python bench/udpipe1.py run TOKENIZER_MODEL TAGGER_MODEL PARSER_MODEL RAW.txt OUT.conllu

The first two can run side by side.  `train-parser` tags TRAIN and DEV with the tagger
first, as `train` does before its parser (a UDPipe parser trained without a tagger reads
the tags of its input).
"""

import json
import sys
import time

from ufal.udpipe import InputFormat, Model, OutputFormat, Pipeline, ProcessingError, Sentence
from ufal.udpipe import Sentences, Trainer


def read(path: str) -> "Sentences":
    reader = InputFormat.newConlluInputFormat()
    with open(path, encoding="utf-8") as f:
        reader.setText(f.read())
    sentences, sentence, error = Sentences(), Sentence(), ProcessingError()
    while reader.nextSentence(sentence, error):
        sentences.push_back(sentence)
        sentence = Sentence()
    if error.occurred():
        sys.exit(f"{path}: {error.message}")
    return sentences


def train(train_path: str, dev_path: str, model_path: str) -> None:
    error = ProcessingError()
    model = Trainer.train("morphodita_parsito", read(train_path), read(dev_path),
                          Trainer.DEFAULT, Trainer.DEFAULT, Trainer.DEFAULT, error)
    if error.occurred():
        sys.exit(f"training failed: {error.message}")
    save(model, model_path)


STAGES = ("tokenizer", "tagger", "parser")


def train_stage(stage: str, train_path: str, dev_path: str, model_path: str) -> None:
    """One component with UDPipe 1's default settings, the others left out."""
    if stage not in STAGES:
        sys.exit(f"stage {stage!r}: use one of {', '.join(STAGES)}")
    options = [Trainer.DEFAULT if s == stage else Trainer.NONE for s in STAGES]
    error = ProcessingError()
    model = Trainer.train("morphodita_parsito", read(train_path), read(dev_path), *options,
                          error)
    if error.occurred():
        sys.exit(f"training failed: {error.message}")
    save(model, model_path)


def train_parser(tagger_path: str, train_path: str, dev_path: str, model_path: str) -> None:
    """The parser on train and dev as the tagger tags them (what `train` does)."""
    import tempfile

    tagger = load(tagger_path)
    with tempfile.TemporaryDirectory() as folder:
        tagged = [f"{folder}/train.conllu", f"{folder}/dev.conllu"]
        for source, target in zip((train_path, dev_path), tagged):
            with open(source, encoding="utf-8") as f:
                text = annotate(tagger, "conllu", Pipeline.DEFAULT, Pipeline.NONE, f.read())[0]
            with open(target, "w", encoding="utf-8") as f:
                f.write(text)
        train_stage("parser", *tagged, model_path)


def save(model, model_path: str) -> None:
    with open(model_path, "wb") as f:
        f.write(model if isinstance(model, bytes) else model.encode("latin-1"))


def load(model_path: str) -> "Model":
    model = Model.load(model_path)
    if model is None:
        sys.exit(f"{model_path}: cannot load the UDPipe model")
    return model


def annotate(model, input_format: str, tagger: str, parser: str, data: str) -> tuple[str, float]:
    """(CoNLL-U, seconds) of one UDPipe pipeline over data."""
    pipeline = Pipeline(model, input_format, tagger, parser, "conllu")
    error = ProcessingError()
    start = time.perf_counter()
    out = pipeline.process(data, error)
    seconds = time.perf_counter() - start
    if error.occurred():
        sys.exit(f"processing failed: {error.message}")
    return out, seconds


def run(*paths: str) -> None:
    """run MODEL RAW OUT, or run TOKENIZER TAGGER PARSER RAW OUT (staged models)."""
    *model_paths, text_path, out_path = paths
    if len(model_paths) not in (1, 3):
        sys.exit("run takes one model, or a tokenizer, a tagger and a parser model")
    models = [load(path) for path in model_paths]
    with open(text_path, encoding="utf-8") as f:
        text = f.read()
    if len(models) == 1:
        out, seconds = annotate(models[0], "tokenize", Pipeline.DEFAULT, Pipeline.DEFAULT, text)
    else:
        out, seconds = annotate(models[0], "tokenize", Pipeline.NONE, Pipeline.NONE, text)
        for model, tagger, parser in ((models[1], Pipeline.DEFAULT, Pipeline.NONE),
                                      (models[2], Pipeline.NONE, Pipeline.DEFAULT)):
            out, more = annotate(model, "conllu", tagger, parser, out)
            seconds += more
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(out)
    sentences = sum(1 for line in out.splitlines() if line.startswith("1\t"))
    print(json.dumps({"seconds": seconds, "sentences": sentences}))


def gold_tokens(*paths: str) -> None:
    """gold-tokens MODEL(S) UNTAGGED GOLD PREDICTED_OUT GOLD_TAGS_OUT: from the test split's
    gold tokens, the parse of UNTAGGED (tags blanked) tagged by UDPipe's tagger, and the
    parse of GOLD with its gold tags (the parser as `train` trained it: on its tagger's
    tags)."""
    *model_paths, untagged_path, gold_path, predicted_out, gold_out = paths
    if len(model_paths) not in (1, 3):
        sys.exit("gold-tokens takes one model, or a tokenizer, a tagger and a parser model")
    models = [load(path) for path in model_paths]
    tagger, parser = (models[0], models[0]) if len(models) == 1 else models[1:]
    for source, target, tagged in ((untagged_path, predicted_out, True),
                                   (gold_path, gold_out, False)):
        with open(source, encoding="utf-8") as f:
            out = f.read()
        if tagged:
            out = annotate(tagger, "conllu", Pipeline.DEFAULT, Pipeline.NONE, out)[0]
        out = annotate(parser, "conllu", Pipeline.NONE, Pipeline.DEFAULT, out)[0]
        with open(target, "w", encoding="utf-8") as f:
            f.write(out)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"train": train, "train-stage": train_stage, "train-parser": train_parser,
     "run": run, "gold-tokens": gold_tokens}[command](*args)
