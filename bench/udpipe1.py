"""UDPipe 1 (the `ufal.udpipe` bindings) trained and run as a baseline for bench/pipeline.py.

Runs in the benchmark's own environment (a venv with ufal.udpipe, never arcwise's):

    PYTHON -m venv /tmp/udpipe-venv && /tmp/udpipe-venv/bin/pip install ufal.udpipe
    /tmp/udpipe-venv/bin/python bench/udpipe1.py train TRAIN.conllu DEV.conllu MODEL
    /tmp/udpipe-venv/bin/python bench/udpipe1.py run MODEL RAW.txt OUT.conllu

`train` uses UDPipe 1's default settings (tokenizer, tagger and parser, dev as heldout data);
`run` goes from raw text to CoNLL-U and prints {"seconds", "sentences"} as JSON (the model
load excluded).  It imports nothing of arcwise.
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
    with open(model_path, "wb") as f:
        f.write(model if isinstance(model, bytes) else model.encode("latin-1"))


def run(model_path: str, text_path: str, out_path: str) -> None:
    model = Model.load(model_path)
    if model is None:
        sys.exit(f"{model_path}: cannot load the UDPipe model")
    pipeline = Pipeline(model, "tokenize", Pipeline.DEFAULT, Pipeline.DEFAULT, "conllu")
    with open(text_path, encoding="utf-8") as f:
        text = f.read()
    error = ProcessingError()
    start = time.perf_counter()
    out = pipeline.process(text, error)
    seconds = time.perf_counter() - start
    if error.occurred():
        sys.exit(f"processing failed: {error.message}")
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(out)
    sentences = sum(1 for line in out.splitlines() if line.startswith("1\t"))
    print(json.dumps({"seconds": seconds, "sentences": sentences}))


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"train": train, "run": run}[command](*args)
