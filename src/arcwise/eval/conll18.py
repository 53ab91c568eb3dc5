"""The CoNLL 2018 shared task's scores of a system's CoNLL-U against the gold one, computed
by the official scorer (`udeval` from the udtools package): its alignment of the system's
words to the gold ones (which may differ when the system tokenized raw text) is used as is,
never re-implemented."""

from __future__ import annotations

import os

from arcwise.core.errors import ArcwiseError
from arcwise.core.extras import required

METRICS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas",
           "UAS", "LAS", "CLAS", "MLAS", "BLEX")


def conll18_scores(gold: str | os.PathLike, system: str | os.PathLike) -> dict[str, float]:
    """{metric: F1 in %, two decimals} of the system file against the gold file (plain,
    uncompressed CoNLL-U), for the metrics of `METRICS`."""
    required("udtools", "eval", "the CoNLL 2018 scorer")
    from udtools.udeval import UDError, evaluate, load_conllu_file

    try:
        scores = evaluate(load_conllu_file(os.fspath(gold)), load_conllu_file(os.fspath(system)))
    except UDError as error:
        raise ArcwiseError(f"{os.fspath(system)}: the CoNLL 2018 scorer refuses it: {error}"
                           ) from None
    return {m: round(100 * scores[m].f1, 2) for m in METRICS if m in scores}
