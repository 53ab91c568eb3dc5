"""Predicted tags for training a parser (jackknifing), the standard practice since the
CoNLL shared tasks: a parser trained on gold tags meets tagging errors only at test time,
one trained on tags predicted by a tagger that never saw the sentence learns to live with
them.  The training sentences are cut into k contiguous folds (`arcwise.combination.stacking.folds_of`);
each fold is tagged by a tagger trained on the other k - 1.  The tagger kept for parsing is
trained on all of them, and tags the dev sentences the parser's epochs are chosen on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any

import numpy as np

from arcwise.combination.stacking import folds_of
from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError
from arcwise.core.local_pool import death, local_pool, submitted
from arcwise.core.vocab import TAG_COLUMNS
from arcwise.io.conllu import with_columns
from arcwise.models.kinds import train_tagger as new_tagger

DEFAULT_FOLDS = 10
from arcwise.pipeline import TAGS  # noqa: F401 (where callers look)


def jackknifed(sentences: Sequence[Sentence], folds: int = DEFAULT_FOLDS, *,
               train_tagger: Callable[[list[Sentence]], Any],
               progress: Callable[[int, int], Any] | None = None,
               workers: int = 1) -> list[Sentence]:
    """The sentences, each fold with the tags of a tagger trained (`train_tagger`) on the
    other folds; progress(k, folds) after fold k.  Only UPOS, XPOS and FEATS change.
    workers > 1: the folds' taggers train in that many local processes (`train_tagger`
    must then be picklable, e.g. a `functools.partial` of a module-level function)."""
    sentences = list(sentences)
    parts = [(sentences[: fold.start] + sentences[fold.stop :], sentences[fold.start : fold.stop])
             for fold in folds_of(len(sentences), folds)]
    if workers > 1:
        with local_pool(min(workers, len(parts))) as pool:
            try:
                futures = submitted(pool, tagged_by_fold,
                                    [(train_tagger, *part) for part in parts])
                return _collected((future.result() for future in futures), folds, progress)
            except BrokenProcessPool:
                raise ArcwiseError(f"a tagger worker process died{death(pool)}: try fewer "
                                   "--tag-workers") from None
    return _collected((tagged_by_fold(train_tagger, *part) for part in parts), folds, progress)


def tagged_by_fold(train_tagger: Callable[[list[Sentence]], Any], others: list[Sentence],
                   fold: list[Sentence]) -> list[Sentence]:
    """The fold tagged by a tagger trained on the others, as a parser reads the tags
    (`Tagger.tagged`)."""
    return train_tagger(others).tagged(fold)[0]


def _collected(tagged: Iterable[list[Sentence]], folds: int,
               progress: Callable[[int, int], Any] | None) -> list[Sentence]:
    out: list[Sentence] = []
    for k, fold in enumerate(tagged, start=1):
        out += fold
        if progress is not None:
            progress(k, folds)
    return out


def with_predicted_tags(train: Sequence[Sentence], dev: Sequence[Sentence] | None = None,
                        folds: int = DEFAULT_FOLDS, *, seed: int = 0,
                        tagger_options: dict[str, Any] | None = None,
                        progress: Callable[[str], Any] | None = None, workers: int = 1,
                        ) -> tuple[Any, list[Sentence], list[Sentence] | None, dict[str, Any]]:
    """(the tagger trained on all of train, train with jackknifed tags, dev tagged by that
    tagger, a log of the tag accuracies the parser will train and select on).  Every tagger
    is `arcwise.models.kinds.train_tagger(..., dev, seed=seed, **tagger_options)` (its
    "model": perceptron by default, or bilstm): the same seed, the same model.  workers: the
    folds' taggers train in that many local processes."""
    dev = list(dev) if dev is not None else None
    train_tagger = partial(new_tagger, dev=dev, seed=seed, **(tagger_options or {}))

    def fold_done(k: int, total: int) -> None:
        if progress is not None:
            progress(f"tagger fold {k}/{total}: tagged by a tagger trained on the other folds")

    train = list(train)
    predicted = jackknifed(train, folds, train_tagger=train_tagger, progress=fold_done,
                           workers=workers)
    tagger = train_tagger(train)
    dev_predicted = tagger.tagged(dev)[0] if dev else dev
    log = {"tags": "predicted", "folds": folds,
           "train_accuracy": tag_accuracy(predicted, train)}
    if dev:
        log["dev_accuracy"] = tag_accuracy(dev_predicted, dev)
    return tagger, predicted, dev_predicted, log


def tag_accuracy(predicted: Sequence[Sentence], gold: Sequence[Sentence]) -> dict[str, float]:
    """{column: % of words whose tag in `predicted` is the one in `gold`} for UPOS, XPOS, FEATS."""
    words = sum(s.n for s in gold)
    return {c: 100 * sum(a == b for p, g in zip(predicted, gold)
                         for a, b in zip(getattr(p, c)[1:], getattr(g, c)[1:])) / max(words, 1)
            for c in TAG_COLUMNS}


def with_gold_columns(predicted: Sequence[Sentence], gold: Sequence[Sentence],
                      columns: Sequence[str]) -> list[Sentence]:
    """The predicted sentences with the gold values in `columns` (some of upos, xpos,
    feats): which tagging errors cost the parser what."""
    return [with_columns(p, **{c: getattr(g, c) for c in columns}) if columns else p
            for p, g in zip(predicted, gold)]


def with_errors_corrected(predicted: Sequence[Sentence], gold: Sequence[Sentence],
                          fraction: float, seed: int = 0) -> list[Sentence]:
    """The predicted sentences with each wrong UPOS, XPOS or FEATS made gold with
    probability `fraction` (seeded; each column apart): what a tagger making that fraction
    fewer errors would give, if its remaining errors fell at random."""
    if not 0 <= fraction <= 1:
        raise ValueError(f"fraction {fraction}: between 0 and 1")
    rng = np.random.default_rng(seed)
    out = []
    for p, g in zip(predicted, gold):
        columns = {}
        for c in TAG_COLUMNS:
            mine, right = getattr(p, c), getattr(g, c)
            draws = rng.random(len(mine))
            columns[c] = tuple(r if m != r and draw < fraction else m
                               for m, r, draw in zip(mine, right, draws))
        out.append(with_columns(p, **columns))
    return out
