"""From raw text to trees on one treebank, scored as the CoNLL 2018 shared task scores it
(`arcwise.eval.conll18`): the whole pipeline trained on the train split (the parser on
jackknifed predicted tags, dev for epoch selection) and run on the plain text of the test
split, and, from the gold tokens of the test split, the parser on the pipeline's predicted
tags and a parser trained and run on gold tags.  bench/pipeline.py prints these figures
beside UDPipe 1's.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arcwise.core.vocab import TAG_COLUMNS
from arcwise.eval.conll18 import conll18_scores
from arcwise.io import conllu, read_treebank
from arcwise.pipeline.in_processes import annotator
from arcwise.pipeline.pipeline import Pipeline
from arcwise.pipeline.stages.tokenizer import training_text
from arcwise.pipeline.training import train_pipeline

WARM_UP_SENTENCES = 20  # run once before timing, so that compiling is not timed


def raw_text(sentences) -> str:
    """The plain text of a treebank's sentences (paragraphs blank-line separated)."""
    return training_text(list(sentences))[0] + "\n"


def without_tags(sentence):
    """The sentence with LEMMA, UPOS, XPOS and FEATS blanked to _ (gold tokens, no tags)."""
    return conllu.without_tags(sentence, ("lemma", *TAG_COLUMNS))


def parser_trainer(system: str, epochs: int | None, seed: int,
                   say: Callable[[str], Any], **options: Any) -> Callable:
    """A `train_pipeline` parser trainer of `system` (`arcwise.models.kinds.train_system`:
    a transition system, with the dynamic oracle as `arcwise train` unless `options` say
    otherwise, or a graph-based parser, mst), a line per epoch."""
    from arcwise.models.kinds import is_graph_system, train_system

    if not is_graph_system(system):
        options = {"oracle": "dynamic", **options}
    if epochs is not None:  # else the trainer's default
        options["epochs"] = epochs

    def train_parser(sentences, dev):
        return train_system(system, sentences, dev, seed=seed, **options,
                            progress=lambda e: say(f"parser {system} epoch {e['epoch']}: "
                                                   + epoch_summary(e)))
    return train_parser


def epoch_summary(entry: dict[str, Any]) -> str:
    """A training log entry in a few words: the dev LAS, else how it learned."""
    from arcwise.training.epochs import learning_summary

    if "dev_las" in entry:
        return f"dev LAS {entry['dev_las']:.2f}"
    return learning_summary(entry)


def gold_tokens_scores(nlp: Any, workdir: Path) -> dict[str, float]:
    """The CoNLL 2018 scores of the pipeline on the gold tokens of a work folder's test
    split (gold.untagged.conllu, against gold.conllu): tagged and parsed."""
    out = workdir / "arcwise.gold-tokens.conllu"
    nlp.parse_file(workdir / "gold.untagged.conllu", out)
    return conll18_scores(workdir / "gold.conllu", out)


def timed_text_run(nlp: Pipeline, text: Path, out: Path, warm_up: Path | None = None,
                   workers: int = 1, repeats: int = 1) -> dict[str, Any]:
    """Raw text to CoNLL-U with the model in memory and warm, in `workers` processes
    (`InProcesses`) when more than one, `repeats` times: {"seconds" (the fastest run's),
    "runs" (every run's seconds), "sentences", "sentences_per_second", "workers"}.  The
    warm-up parses warm_up (another text: the dev split's) or else the first sentences of
    text, so that compiling and first allocations are not timed."""
    if warm_up is None:
        warm_up = out.with_suffix(".warm.txt")
        warm_up.write_text("\n".join(itertools.islice(text.read_text().splitlines(),
                                                      WARM_UP_SENTENCES)) + "\n")
    runs = []
    with annotator(nlp, workers) as parsing:
        parsing.parse_file(warm_up, out, format="text")
        for _ in range(max(repeats, 1)):
            start = time.perf_counter()
            sentences = parsing.parse_file(text, out, format="text")
            runs.append(time.perf_counter() - start)
    seconds = min(runs)
    return {"seconds": seconds, "runs": runs, "sentences": sentences,
            "sentences_per_second": sentences / max(seconds, 1e-9), "workers": workers}


def run_arcwise(train_path: Path, dev_path: Path | None, test_path: Path, workdir: Path, *,
                system: str = "arc-eager", epochs: int | None = None, tag_folds: int = 10,
                tag_workers: int = 1,
                seed: int = 0, gold_tag_parser: bool = True, tags: str = "predicted",
                workers: int = 1, repeats: int = 1, say: Callable[[str], Any] = print,
                options: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Train arcwise's pipeline and score it (see the module docstring); the files go to
    workdir: gold.conllu, test.txt (its raw text), dev.txt (the warm-up before timing),
    arcwise.pipeline and the outputs.  workers: processes of the timed raw-text run.
    tags: what its parser trains on (`train_pipeline`); unless "predicted" the gold-tag
    figure is the same parser's on gold-tagged input, nothing retrained.
    options: {"tokenizer" | "tagger" | "parser": keyword arguments of its training}."""
    options = options or {}
    workdir.mkdir(parents=True, exist_ok=True)
    train = list(read_treebank(train_path))
    dev = list(read_treebank(dev_path)) if dev_path else None
    test = list(read_treebank(test_path))
    gold, text = workdir / "gold.conllu", workdir / "test.txt"
    conllu.write(gold, test)
    text.write_text(raw_text(test))
    warm_up = workdir / "dev.txt" if dev else None
    if warm_up:
        warm_up.write_text(raw_text(dev))
    train_parser = parser_trainer(system, epochs, seed, say, **options.get("parser", {}))
    start = time.perf_counter()
    nlp, log = train_pipeline(train, dev, train_parser=train_parser, tags=tags,
                              tag_folds=tag_folds, tag_workers=tag_workers, seed=seed,
                              progress=say,
                              tokenizer_options=options.get("tokenizer"),
                              tagger_options=options.get("tagger"))
    epochs = log["parser"].get("hyperparameters", {}).get("epochs", epochs)  # None: default
    result: dict[str, Any] = {"system": system, "epochs": epochs, "tag_folds": tag_folds,
                              "train_seconds": time.perf_counter() - start,
                              "parser_tags": log.get("parser_tags", tags)}
    nlp.save(workdir / "arcwise.pipeline")
    out = workdir / "arcwise.raw.conllu"
    result["speed"] = timed_text_run(nlp, text, out, warm_up, workers, repeats)
    result["raw_text"] = conll18_scores(gold, out)
    conllu.write(workdir / "gold.untagged.conllu", map(without_tags, test))
    result["gold_tokens_predicted_tags"] = gold_tokens_scores(nlp, workdir)
    if gold_tag_parser:
        parser = nlp.parser
        if tags == "predicted":
            say("parser on gold tags")
            start = time.perf_counter()
            parser, _ = train_parser(train, dev)
            result["gold_tag_parser_train_seconds"] = time.perf_counter() - start
        out = workdir / "arcwise.gold-tags.conllu"
        parser.parse_file(gold, out)
        result["gold_tokens_gold_tags"] = conll18_scores(gold, out)
    return result
