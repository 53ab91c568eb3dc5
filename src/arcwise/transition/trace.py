"""What the transitions did: the per-word record of `Parser.parse(..., trace=True)`.

For every word, the transition that built its final arc, and the heads that
transitions gave it and later took away (only the non-monotonic systems,
arc-eager-nm and covington-nm, take arcs away).  `arcwise parse --trace`
writes the record into the MISC column, merged with what is there:

    Transition=NAME      every word.  NAME is the action's name as its system
                         spells it (``arcwise.systems.get(system).actions``:
                         left-arc, right-arc, reduce, left-buffer-arc, ...),
                         or ``none`` when no transition built the word's final
                         arc: the word was headless at the end and attached to
                         0 by default (as are the roots of the systems whose
                         root arcs are implicit), or single-rooting moved it.
                         A word that deprojectivization (pseudo-projective
                         models) moved keeps the transition that built its
                         lifted arc.
    HeadHistory=h1,h2    only on words some transition re-headed: the heads
                         transitions gave the word before its last one, in
                         order (a head deleted by covington-nm to break a
                         cycle counts; post-processing never adds one).

The tenth column is MISC in CoNLL-U and PDEPREL in CoNLL-X; the record goes
there in both.  `from_misc` reads it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arcwise.core.corpus import Sentence
from arcwise.core.errors import NOT_TRANSITION_BASED  # noqa: F401 (where callers look)
from arcwise.io.conllu import misc

TRANSITION = "Transition"
HEAD_HISTORY = "HeadHistory"
NO_TRANSITION = "none"


@dataclass(frozen=True)
class Trace:
    """One sentence's record, n + 1 entries each (entry 0, the root: None and ()).

    transition[d]: the name of the action that built word d's final arc, None
    if none did.  head_history[d]: the heads transitions gave d before its
    last one, in order.
    """

    transition: tuple[str | None, ...]
    head_history: tuple[tuple[int, ...], ...]

    def misc(self) -> list[dict[str, str | None]]:
        """The MISC attributes of each word (`arcwise.io.conllu.with_misc`): a word without
        a history gets its HeadHistory deleted, so a re-parsed file keeps none stale."""
        return [{}] + [
            {
                TRANSITION: NO_TRANSITION if transition is None else transition,
                HEAD_HISTORY: ",".join(map(str, history)) if history else None,
            }
            for transition, history in zip(self.transition[1:], self.head_history[1:])
        ]


def attributes(text: str) -> dict[str, str]:
    """The ``Name=value`` attributes of one MISC value (``_``: none)."""
    return dict(item.split("=", 1) for item in text.split("|") if "=" in item)


def from_misc(sentence: Sentence) -> Trace:
    """The record in a sentence's MISC column (a word without one: None and ())."""
    transitions: list[str | None] = [None]
    histories: list[tuple[int, ...]] = [()]
    for text in misc(sentence)[1:]:
        attributes_ = attributes(text)
        transition = attributes_.get(TRANSITION)
        transitions.append(None if transition == NO_TRANSITION else transition)
        history = attributes_.get(HEAD_HISTORY)
        histories.append(tuple(int(h) for h in history.split(",")) if history else ())
    return Trace(tuple(transitions), tuple(histories))


def of_parse(
    actions: Sequence[str], built_by: Sequence[int], reheadings: Sequence[Sequence[int]],
) -> Trace:
    """The record of one parse: built_by[d] = the action id that built word d's final arc
    (-1: none), reheadings = the (word, previous head) pairs in the order they happened."""
    histories: list[list[int]] = [[] for _ in built_by]
    for word, head in reheadings:
        histories[word].append(int(head))
    return Trace(
        (None, *(None if a < 0 else actions[a] for a in list(built_by)[1:])),
        tuple(tuple(h) for h in histories),
    )
