"""`make demo`: a tour of arcwise on the bundled treebank (UD English-EWT).

It trains an English pipeline -- a tokenizer, a tagger and the non-monotonic
Covington parser (dynamic oracle, `upper` loss) on predicted tags -- and saves it
to DEMO_MODEL (default models/en_ewt.model), which `make demo` then packages and
installs as ``en_ewt`` (`arcwise package`); parses a sample text and the test set's
raw text (scored by the CoNLL 2018 scorer, timed); then shows every transition
system's static oracle rebuilding the test set (the ceiling a parser trained on
that system can reach).  DEMO_EPOCHS sets the parser's epochs (default 3).  The treebank is read from the source checkout's
``data/en_ewt`` (a wheel does not ship it), or from the folder ARCWISE_DEMO_DATA
names; without it the demo says so and exits with code 2.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

DATA = Path(os.environ.get("ARCWISE_DEMO_DATA")
            or Path(__file__).resolve().parents[2] / "data" / "en_ewt")
SPLITS = ("train.conllu.gz", "dev.conllu.gz", "test.conllu.gz")
MODEL = Path(os.environ.get("DEMO_MODEL", "models/en_ewt.model"))  # `make demo` packages it
TAGGER_EPOCHS = 4
SYSTEMS = [
    "arc-eager",
    "arc-eager+lba+rba+lnba+rnba",
    "arc-eager-nm",
    "arc-hybrid",
    "arc-hybrid+swap",
    "covington",
    "covington-nm",
    "two-planar",
]


def train_pipeline_model(console: Console):
    """Train the English pipeline on EWT train (dev selection): a tokenizer, a tagger, and
    covington-nm (dynamic oracle, `upper` loss) on jackknifed predicted tags; save it."""
    from arcwise.experiments.raw_text import parser_trainer
    from arcwise.io import read_treebank
    from arcwise.pipeline.training import train_pipeline

    epochs = int(os.environ.get("DEMO_EPOCHS", "3"))
    train_sentences = list(read_treebank(DATA / "train.conllu.gz"))
    dev = list(read_treebank(DATA / "dev.conllu.gz"))
    console.print(
        f"[bold]Training an English pipeline[/] on EWT train ({len(train_sentences)} "
        f"sentences): a tokenizer and a tagger ({TAGGER_EPOCHS} epochs each), then "
        f"covington-nm (dynamic oracle, upper bound; {epochs} epochs) on the tags a tagger "
        "predicts (2 folds). The first run compiles for a minute."
    )
    start = time.perf_counter()
    nlp, log = train_pipeline(
        train_sentences, dev,
        train_parser=parser_trainer("covington-nm", epochs, 1, lambda line: console.print(
            f"  {line}"), bound="upper"),
        tag_folds=2, seed=1, progress=_quiet_progress(console),
        tokenizer_options={"epochs": TAGGER_EPOCHS},
        tagger_options={"epochs": TAGGER_EPOCHS},
        command_line=["make", "demo", f"DEMO_EPOCHS={epochs}"])
    console.print(f"  trained in {time.perf_counter() - start:.0f} s")
    MODEL.parent.mkdir(parents=True, exist_ok=True)
    nlp.save(MODEL)
    console.print(f"  saved {MODEL} ({MODEL.stat().st_size / 1e6:.1f} MB)\n")
    return nlp


def _quiet_progress(console: Console):
    """Training lines of the tokenizer's and the tagger's last epochs only."""
    def progress(line: str) -> None:
        if line.startswith("parser") or f"epoch {TAGGER_EPOCHS}:" in line:
            console.print(f"  {line}")
    return progress


SAMPLE = "The cat sat on the mat. It didn't move, did it?"


def raw_text_to_trees(console: Console, nlp) -> None:
    """The pipeline on a sample text (its CoNLL-U columns), then on EWT test's raw text,
    scored by the CoNLL 2018 scorer and timed."""
    import gzip
    import shutil
    import tempfile

    from arcwise.core.errors import ArcwiseError
    from arcwise.experiments.raw_text import raw_text
    from arcwise.io import read_treebank

    words = Table(title=f"nlp({SAMPLE!r})")
    for column in ("sentence.id", "form", "lemma", "upos", "xpos", "head", "deprel"):
        words.add_column(column)
    for k, sentence in enumerate(nlp(SAMPLE).sentences, 1):
        for word in sentence.words:
            head = word.head_word.form if word.head_word is not None else "ROOT"
            words.add_row(f"{k}.{word.id}", word.form, word.lemma, word.upos, word.xpos,
                          f"{word.head} {head}", word.deprel)
    console.print(words)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        text, gold, parsed = work / "test.txt", work / "test.conllu", work / "parsed.conllu"
        with gzip.open(DATA / "test.conllu.gz", "rb") as f, open(gold, "wb") as out:
            shutil.copyfileobj(f, out)
        test = list(read_treebank(gold))
        text.write_text(raw_text(test), encoding="utf-8")
        nlp(SAMPLE)  # compiled before the timing
        start = time.perf_counter()
        sentences = nlp.parse_file(text, parsed, format="text")
        seconds = time.perf_counter() - start
        try:
            from arcwise.eval.conll18 import conll18_scores
            scores = conll18_scores(gold, parsed)
        except ArcwiseError:  # the scorer (udtools, the eval extra) is not installed
            scores = None
    if scores is not None:
        console.print("[bold]EWT test from its raw text[/] (CoNLL 2018 scorer): " + ", ".join(
            f"{m} {scores[m]:.2f}" for m in ("Tokens", "Sentences", "UPOS", "UAS", "LAS")))
    words = sum(s.n for s in test)
    console.print(f"raw text to CoNLL-U: {sentences / seconds:,.0f} sentences/s, "
                  f"{words / seconds:,.0f} words/s (one process)\n")


def main() -> None:
    from arcwise import systems
    from arcwise.analysis.oracle_coverage import static_oracle_tree
    from arcwise.analysis.treebank_stats import treebank_stats
    from arcwise.eval.metrics import evaluate
    from arcwise.io import read_treebank
    from arcwise.io.conllu import with_tree

    missing = [name for name in SPLITS if not (DATA / name).is_file()]
    if missing:
        print(
            f"arcwise.demo: the UD English-EWT treebank is not in {DATA} (no {missing[0]}); "
            "an installed wheel does not ship it: run `make demo` in a source checkout, or "
            "set ARCWISE_DEMO_DATA to a folder holding " + ", ".join(SPLITS),
            file=sys.stderr,
        )
        sys.exit(2)
    console = Console()
    raw_text_to_trees(console, train_pipeline_model(console))
    test_path = DATA / "test.conllu.gz"

    start = time.perf_counter()
    test = list(read_treebank(test_path))
    read_seconds = time.perf_counter() - start
    words = sum(s.n for s in test)
    console.print(
        f"[bold]UD English-EWT test[/]: {len(test)} sentences, {words} words, "
        f"read in {read_seconds:.2f} s"
    )
    stats = treebank_stats(test)
    console.print(
        "non-projective arcs {:.2f} %, non-projective sentences {:.2f} %".format(
            stats["nonprojective_arcs_pct"], stats["nonprojective_sentences_pct"]
        )
    )

    table = Table(title="Static oracles on EWT test (the best each system can do)")
    for column in ("system", "UAS", "LAS*", "exact trees", "sentences/s"):
        table.add_column(column, justify="right" if column != "system" else "left")
    for name in SYSTEMS:
        ts = systems.get(name)
        static_oracle_tree(ts, test[0].head)  # compile outside the timing
        start = time.perf_counter()
        parsed = [static_oracle_tree(ts, s.head) for s in test]
        seconds = time.perf_counter() - start
        system_sentences = [
            with_tree(s, h, [d if h[i] == s.head[i] else "dep" for i, d in enumerate(s.deprel)])
            for s, h in zip(test, parsed)
        ]
        scores = evaluate(test, system_sentences)
        exact = sum(int((h[1:] == s.head[1:]).all()) for s, h in zip(test, parsed))
        table.add_row(
            name,
            f"{scores.uas:.2f}",
            f"{scores.las:.2f}",
            f"{100 * exact / len(test):.2f} %",
            f"{len(test) / seconds:,.0f}",
        )
    console.print(table)
    console.print("*LAS with the gold label on correctly attached words.")


if __name__ == "__main__":
    main()
