"""Greedy parsing with a trained model: one compiled call parses a whole batch.

`parse_batch` takes many sentences as flat id arrays (each sentence's n + 1
entries, root first, concatenated; `offsets[k]` is where sentence k starts)
and, per configuration, extracts the hashed features, scores the legal
labeled classes with the averaged weights and applies the best one, until
the configuration is terminal.  Words still headless at the end are
attached to 0 with the most frequent label of root arcs in the training
data (`root_label`), so the output is always a well-formed tree.

`Parser` is the Python face: a system, vocabularies, feature table, classes
and averaged weights, saved to and loaded from one model file
(`arcwise.models.modelfile`).  Its output goes through two optional steps:

- pseudo-projective parsing (Nivre & Nilsson 2005): a model trained on
  projectivized trees (`projectivized`, `arcwise train --pseudo-projective`)
  records its encoding, and its output is deprojectivized, so every parse
  carries the original labels (`arcwise.trees.pseudoprojective`);
- `single_root`: the parse gets exactly one word attached to 0, labeled
  `root_label` (see `arcwise.trees.roots.single_rooted`): the default of
  `Parser.parse`, and of `Parser.parse_file` for CoNLL-U output (a UD tree
  has one root); ``single_root=False`` gives the tree the parser built,
  maybe with several roots (the default for CoNLL-X output).

With trace=True the parse also records what the transitions did: which one
built each word's arc and which arcs later ones replaced (`arcwise.trace`).
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, Any

import numpy as np
from numba import njit, prange

from arcwise import interrupts
from arcwise import systems as registry
from arcwise.corpus import ROOT, Sentence, as_sentences
from arcwise.errors import ArcwiseError
from arcwise.features import FeatureTable, batch_matrix, extract
from arcwise.io import annotate, conllu, read_treebank
from arcwise.io.conllu import with_tree
from arcwise.models import modelfile
from arcwise.models import perceptron as pc
from arcwise.pipeline.text_api import AnnotatesText
from arcwise.systems import dispatch as systems
from arcwise.systems import state as st
from arcwise.trace import of_parse as trace_of_parse
from arcwise.trees.projectivity import is_well_formed
from arcwise.trees.roots import single_rooted
from arcwise.trees.pseudoprojective import (
    ENCODINGS,
    LIFTED,
    ON_PATH,
    deprojectivize,
    projectivize,
    split_label,
)
from arcwise.vocab import Vocabularies, check_tagged

BATCH_SENTENCES = 4096  # sentences per compiled call (bounds the flat arrays)


@njit(cache=True)
def max_steps(n):
    """A bound on the transitions of an n-word sentence in any system (a guard, never reached)."""
    return 4 * (n + 1) * (n + 1) + 16


@njit(cache=True)
def final_tree(state, root_label, heads_out, labels_out):
    """The tree of a (terminal) configuration into heads_out, labels_out (n + 1 entries).

    Headless words go to 0 with root_label; a cycle (which no system should
    leave) is broken by attaching the word where it is found to 0, so the
    result is always a tree rooted at 0.
    """
    n = state[st.N]
    heads = st.region(state, st.HEADS)
    labels = st.region(state, st.LABELS)
    heads_out[0] = -1
    labels_out[0] = -1
    for d in range(1, n + 1):
        if heads[d] < 0 or heads[d] > n:
            heads_out[d] = 0
            labels_out[d] = root_label
        else:
            heads_out[d] = heads[d]
            labels_out[d] = labels[d] if labels[d] >= 0 else root_label
    # 0 = not seen, k = on the path walked from word k, -1 = known to reach 0
    seen = np.zeros(n + 1, dtype=np.int64)
    seen[0] = -1
    for d in range(1, n + 1):
        w = d
        while seen[w] == 0:
            seen[w] = d
            w = heads_out[w]
        if seen[w] == d:  # back on this path: a cycle through w
            heads_out[w] = 0
            labels_out[w] = root_label
        w = d
        while seen[w] == d:
            seen[w] = -1
            w = heads_out[w]


@njit(cache=True, inline="always")  # a call per configuration costs ~1 µs: its many arrays
def best_legal_class(
    system_id, state, program, weights, class_transition, words,
    mask, legal, features, label_features, scores,
):
    """The model's best legal labeled transition in `state` (-1 if none); fills the
    work arrays mask, legal, features, label_features and scores on the way."""
    mask[:] = False
    systems.legal(system_id, state, mask)
    pc.legal_classes(class_transition, mask, legal)
    extract(system_id, state, program, words, features, label_features)
    return pc.best_class(weights, features, label_features, legal, scores)


@njit(cache=True)
def parse_sentence(
    system_id, options, program, weights, class_transition, class_label, root_label,
    words, heads_out, labels_out, made_out, trace, built_by, reheadings,
):
    """Parse one sentence (its words matrix, n + 1 rows) greedily into heads_out, labels_out.

    made_out[d] tells whether word d's arc was made by a transition (False:
    `final_tree` attached it to 0).  With trace, built_by[d] gets the action
    id of the transition that gave word d its head at the end of the
    transitions (-1: none), and reheadings the (word, head) pairs of every
    arc a later transition replaced or deleted, in order (at most
    `reheadings_bound(n)` rows); returns how many there were (0 without trace).
    """
    n = words.shape[0] - 1
    n_classes = class_transition.shape[0]
    state = systems.initial(system_id, n, options)
    mask = np.zeros(systems.n_actions(system_id), dtype=np.bool_)
    legal = np.zeros(n_classes, dtype=np.bool_)
    scores = np.zeros(n_classes, dtype=np.float64)
    features = np.zeros(program.template_values.shape[0], dtype=np.uint64)
    label_features = np.zeros(program.label_templates.shape[0], dtype=np.uint64)
    if trace:
        built_by[:] = -1
    replaced = np.int64(0)  # not a literal 0: traced_apply would also compile for Literal[int](0)
    limit = max_steps(n)
    steps = 0
    while not systems.is_terminal(system_id, state) and steps < limit:
        c = best_legal_class(
            system_id, state, program, weights, class_transition, words,
            mask, legal, features, label_features, scores,
        )
        if c < 0:
            break
        if trace:
            replaced = traced_apply(system_id, state, class_transition[c], class_label[c],
                                    built_by, reheadings, replaced)
        else:
            systems.apply(system_id, state, class_transition[c], class_label[c])
        steps += 1
    final_tree(state, root_label, heads_out, labels_out)
    heads = st.region(state, st.HEADS)
    made_out[0] = False
    for d in range(1, n + 1):
        made_out[d] = heads[d] == heads_out[d]
    return replaced


@njit(cache=True)
def reheadings_bound(n):
    """Rows of the re-heading record an n-word sentence may need in any system.

    Every re-heading undoes an arc a transition built.  arc-eager-nm replaces
    a word's head at most once (LEFT-ARC pops it), covington-nm builds at most
    one arc per pair of positions (the focus pair never repeats), and the
    other systems never replace arcs: n(n + 1) / 2 bounds them all.
    """
    return n * (n + 1) // 2


@njit(cache=True)
def traced_apply(system_id, state, action, label, built_by, reheadings, count):
    """Apply action to state, recording what it did to the arcs; returns the new length
    of the re-heading record (`parse_sentence`).

    An arc transition built its dependent's arc (built_by), and the arcs it
    replaced (the dependent's previous one) or deleted (the head's own, when
    covington-nm breaks a cycle) go to the record as (word, previous head).
    Those two words are the only ones whose heads an action changes (`systems.arc`).
    """
    head, dependent = systems.arc(system_id, state, action)
    heads = st.region(state, st.HEADS)
    head_was = heads[head] if head > 0 else -1
    dependent_was = heads[dependent] if dependent > 0 else -1
    systems.apply(system_id, state, action, label)
    if dependent <= 0:
        return count
    built_by[dependent] = action
    if dependent_was >= 0 and heads[dependent] != dependent_was:
        count = record_reheading(reheadings, count, dependent, dependent_was)
    if head_was >= 0 and heads[head] != head_was:
        built_by[head] = -1
        count = record_reheading(reheadings, count, head, head_was)
    return count


@njit(cache=True)
def record_reheading(reheadings, count, word, head):
    """Append (word, head) to the re-heading record; returns its new length."""
    if count >= reheadings.shape[0]:
        raise RuntimeError("more re-headings than reheadings_bound allows")
    reheadings[count, 0] = word
    reheadings[count, 1] = head
    return count + 1


@njit(cache=True, parallel=True, nogil=True)  # a server parses while it reads requests
def parse_batch(
    system_id, options, program, weights, class_transition, class_label, root_label,
    offsets, words, trace=False,
):
    """Parse every sentence of a batch; returns (heads, labels, made), a row of `words` each,
    and with trace also (built_by, reheadings, reheading_offsets).

    Sentences are shared among numba's threads (`numba.set_num_threads`; all
    cores by default); each is parsed alone, so the output does not depend
    on the number of threads.

    offsets: int64 [sentences + 1]; sentence k is rows offsets[k] ..
    offsets[k+1] - 1 of words (the words matrices, root first).
    heads[offsets[k] + d] is word d's head (-1 for the root entry);
    labels holds label ids (indices of the model's labels, -1 at the root);
    made tells which arcs a transition made (the others: `final_tree`).
    With trace (`parse_sentence`): built_by, a row of `words` each, holds the
    action id that built each word's arc (-1: none), and sentence k's
    re-headings, (word, previous head) in order, are rows
    reheading_offsets[k] .. reheading_offsets[k+1] - 1 of reheadings.
    Without trace, built_by and reheadings are empty and reheading_offsets all 0.
    """
    sentences = offsets.shape[0] - 1
    heads = np.empty(words.shape[0], dtype=np.int32)
    labels = np.empty(words.shape[0], dtype=np.int32)
    made = np.empty(words.shape[0], dtype=np.bool_)
    built_by = np.empty(words.shape[0] if trace else 0, dtype=np.int32)
    room = np.zeros(sentences + 1, dtype=np.int64)  # where each sentence's record starts
    if trace:
        for k in range(sentences):
            room[k + 1] = room[k] + reheadings_bound(offsets[k + 1] - offsets[k] - 1)
    reheadings = np.empty((room[sentences], 2), dtype=np.int32)
    counts = np.zeros(sentences, dtype=np.int64)
    for k in prange(sentences):
        a, b = offsets[k], offsets[k + 1]
        counts[k] = parse_sentence(
            system_id, options, program, weights, class_transition, class_label, root_label,
            words[a:b], heads[a:b], labels[a:b], made[a:b],
            trace, built_by[a:b], reheadings[room[k] : room[k + 1]],
        )
    if not trace:
        return heads, labels, made, built_by, reheadings, room
    # pack the records: sentence k's rows follow sentence k - 1's
    reheading_offsets = np.zeros(sentences + 1, dtype=np.int64)
    for k in range(sentences):
        reheading_offsets[k + 1] = reheading_offsets[k] + counts[k]
    packed = np.empty((reheading_offsets[sentences], 2), dtype=np.int32)
    for k in range(sentences):  # row by row: a slice assignment's shape check compiles slowly
        for r in range(counts[k]):
            packed[reheading_offsets[k] + r, 0] = reheadings[room[k] + r, 0]
            packed[reheading_offsets[k] + r, 1] = reheadings[room[k] + r, 1]
    return heads, labels, made, built_by, packed, reheading_offsets


class Batch:
    """Sentences encoded as the words matrix the compiled loops read (sentence k:
    rows offsets[k] .. offsets[k+1] - 1), with their gold deprel ids and heads.

    guide: the guide parser's output on the same sentences (a guided parser's
    input; only head and deprel are read).
    """

    def __init__(
        self,
        sentences: Sequence[Sentence],
        vocabularies: Vocabularies,
        guide: Sequence[Sentence] | None = None,
    ):
        encoded = [vocabularies.encode(s) for s in sentences]
        sizes = np.array([len(e.form) for e in encoded], dtype=np.int64)
        self.offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.offsets[1:])
        self.words = batch_matrix(encoded, vocabularies, guide)
        self.guided = guide is not None

        def flat(column: str) -> np.ndarray:
            if not encoded:
                return np.zeros(0, dtype=np.int32)
            return np.ascontiguousarray(np.concatenate([getattr(e, column) for e in encoded]))

        self.deprel = flat("deprel")
        self.head = flat("head")
        self._sentences = sentences
        self._forms: np.ndarray | None = None

    @property
    def forms(self) -> np.ndarray:
        """Every row's form (an object array; made when first asked: only character
        models read it)."""
        if self._forms is None:
            self._forms = np.array([f for s in self._sentences for f in s.form], dtype=object)
        return self._forms

    def __len__(self) -> int:
        return len(self.offsets) - 1


def projectivized(
    sentences: Iterable[Sentence], encoding: str
) -> tuple[list[Sentence], dict[str, int]]:
    """The sentences with projectivized trees, their lifts encoded in the labels.

    PROJECTIVIZE of Nivre & Nilsson 2005 with `encoding` ("head", "path" or
    "head+path"; see `arcwise.trees.pseudoprojective`).  A sentence whose
    tree is not well formed is passed through unchanged.  Only `head` and
    `deprel` change: `lines` keep the original text.  Also returns the counts
    {"trees": trees changed, "arcs": arcs lifted, "lifts": single LIFT steps}.
    """
    out, counts = [], {"trees": 0, "arcs": 0, "lifts": 0}
    for s in sentences:
        head = np.asarray(s.head, dtype=np.int32)
        if not is_well_formed(head):
            out.append(s)
            continue
        p = projectivize(head, s.deprel, encoding)
        if p.lifted:
            counts["trees"] += 1
            counts["arcs"] += p.lifted
            counts["lifts"] += p.lifts
            s = dataclasses.replace(s, head=p.heads, deprel=p.deprels)
        out.append(s)
    return out, counts


def annotations(trees: list) -> list:
    """Parses as `arcwise.io.annotate` takes them: (head, deprel), or for a traced
    parse (head, deprel, its trace's MISC attributes)."""
    return [tree if len(tree) == 2 else (*tree[:2], tree[2].misc()) for tree in trees]


# Label of a word moved under the kept root by `single_root` (the first the model knows):
# in UD, juxtaposed clauses (what a second root usually is) are parataxis.
REATTACH_LABELS = ("parataxis", "dep")


class TransitionParser(AnnotatesText):
    """What every greedy transition-based parser shares, whatever scores its transitions:
    the system, vocabularies, classes and root label, the post-processing of its trees
    (deprojectivization, one root, traces), parse / parse_file, and the model file's
    common metadata.  A subclass gives `parse_encoded` and its own arrays and metadata.

    A parse is (head, deprel): n + 1 entries each like a Sentence's columns
    (head[0] == -1, deprel[0] == ROOT), ready for `arcwise.io.conllu.with_tree`.
    A model trained on pseudo-projective trees (`pseudo_projective` is its
    encoding) deprojectivizes its output: the labels are the original ones.
    """

    transition_based = True

    def __init__(
        self,
        system: str,
        vocabularies: Vocabularies,
        classes: pc.ClassSet,
        root_label: str,
        hyperparameters: dict[str, Any] | None = None,
        scores: dict[str, Any] | None = None,
        training_data_sha256: str | None = None,
        command_line: Sequence[str] = (),
        pseudo_projective: str | None = None,
    ):
        self.system = system
        self.kernels = registry.get(system).kernels
        self.vocabularies = vocabularies
        self.classes = classes
        if root_label not in classes.labels:
            raise ValueError(f"root label {root_label!r} is not one of the model's labels")
        self.root_label = root_label
        if pseudo_projective is not None and pseudo_projective not in ENCODINGS:
            raise ValueError(
                f"pseudo_projective must be None or one of {', '.join(ENCODINGS)}, "
                f"not {pseudo_projective!r}"
            )
        self.pseudo_projective = pseudo_projective
        # label id -> does the label carry a pseudo-projective mark (then deprojectivize)
        self.marked = np.array(
            [LIFTED in label or ON_PATH in label for label in classes.labels], dtype=np.bool_
        )
        original = {split_label(label)[0] for label in classes.labels}
        self.reattach_label = next((lb for lb in REATTACH_LABELS if lb in original), None)
        self.hyperparameters = dict(hyperparameters or {})
        self.scores = dict(scores or {})
        self.training_data_sha256 = training_data_sha256
        self.command_line = list(command_line)  # what the CLI records of the run that made it

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.system!r}, {self.classes!r})"

    def parse_encoded(self, batch: Batch, trace: bool = False) -> tuple[np.ndarray, ...]:
        """The model's raw flat (heads, label ids, made) of an encoded batch, with trace
        followed by (built_by, reheadings, reheading_offsets) (see `parse_batch`)."""
        raise NotImplementedError

    def trees(
        self, batch: Batch, *, single_root: bool = False, trace: bool = False
    ) -> list[tuple[Any, ...]]:
        """The (head, deprel) of every sentence of an encoded batch, deprojectivized
        if the model is pseudo-projective, then single-rooted if asked; with trace,
        (head, deprel, `arcwise.trace.Trace`)."""
        heads, label_ids, made, *record = self.parse_encoded(batch, trace)
        labels = self.classes.labels
        offsets = batch.offsets.tolist()
        trees = []
        for i, (a, b) in enumerate(zip(offsets, offsets[1:])):
            head = heads[a:b].copy()
            ids = label_ids[a + 1 : b]
            deprel = (ROOT, *(labels[k] for k in ids.tolist()))
            if self.pseudo_projective is not None and self.marked[ids].any():
                head, deprel = deprojectivize(head, deprel, self.pseudo_projective)
            if single_root:
                several_roots = head
                head, deprel = single_rooted(
                    head, deprel, made[a:b], self.root_label, self.reattach_label
                )
            if trace:
                built_by, reheadings, reheading_offsets = record
                built = np.where(made[a:b], built_by[a:b], -1)
                if single_root:
                    built[head != several_roots] = -1  # moved under the kept root
                trees.append((head, deprel, trace_of_parse(
                    self.kernels.actions, built,
                    reheadings[reheading_offsets[i] : reheading_offsets[i + 1]].tolist(),
                )))
            else:
                trees.append((head, deprel))
        return trees

    @property
    def guided(self) -> bool:
        """Whether the model reads a guide parser's trees (stacking, 2011 paper §5.3)."""
        return False

    def parse(
        self,
        sentences: Sentence | Sequence[Sentence],
        *,
        single_root: bool = True,
        guide: Sentence | Sequence[Sentence] | None = None,
        trace: bool = False,
    ) -> Any:
        """The (head, deprel) of a sentence, or the list of them for a sequence of sentences.

        A sentence is a `Sentence`, a string of words separated by whitespace or
        a list of words (`arcwise.corpus.as_sentences`).  A model trained with
        tags refuses words without any (`arcwise.vocab.check_tagged`).

        Every parse is a tree with exactly one word attached to 0, as UD
        demands (`single_rooted`); single_root=False gives the tree the
        parser built, in which several words may hang from 0.
        guide: a guided model's input, the guide parser's output on the same
        sentence(s) (only head and deprel are read).  trace=True gives
        (head, deprel, trace) instead: what the transitions did
        (`arcwise.trace.Trace`); the trees are the same.
        """
        sentences, single = as_sentences(sentences)
        if single:
            guides = None if guide is None else [guide]
            return self.parse(sentences, single_root=single_root, guide=guides, trace=trace)[0]
        check_tagged(sentences, self.vocabularies)
        trees = []
        for start in range(0, len(sentences), BATCH_SENTENCES):
            end = start + BATCH_SENTENCES
            batch = Batch(sentences[start:end], self.vocabularies,
                          None if guide is None else guide[start:end])
            trees.extend(self.trees(batch, single_root=single_root, trace=trace))
        return trees

    def parse_file(
        self,
        input: str | os.PathLike | IO,
        output: str | os.PathLike | IO,
        *,
        format: str | None = None,
        single_root: bool | None = None,
        progress: Callable[[int], Any] | None = None,
        batch_sentences: int = BATCH_SENTENCES,
        trace: bool = False,
    ) -> int:
        """Parse a treebank into another, streaming in batches; returns the sentence count.

        input: a CoNLL-U or CoNLL-X path (plain or gzip), ``-`` for stdin, or
        an open stream; `format` as in `arcwise.io.read_treebank` (default:
        from the extension, else CoNLL-U).  output: a path, written
        atomically (gzip if it ends in ``.gz``), ``-`` for stdout, or an open
        stream; it gets the input's lines with only HEAD, DEPREL and DEPS replaced
        (and with trace, the `arcwise.trace` attributes merged into MISC).
        single_root: one root per sentence (see `parse`); None = the default
        of the format (`arcwise.io.one_root_by_default`: CoNLL-U yes, CoNLL-X
        no).  progress(k) is called after each batch of k sentences is
        written.  If anything fails on the way (bad input, an interrupt), no
        output file is left and an existing one is untouched.
        """
        return annotate(
            input, output,
            lambda batch, single_root: annotations(
                self.parse(batch, single_root=single_root, trace=trace)),
            format=format, single_root=single_root,
            batch_sentences=batch_sentences, progress=progress,
        )

    # --- model files -------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """The model file's metadata common to every transition parser (`arcwise.models.modelfile`)."""
        base, *extensions = self.system.split("+")
        return {
            "system": self.system,
            "options": {"extensions": extensions, "option_bits": self.kernels.options},
            "labels": list(self.classes.labels),
            "root_label": self.root_label,
            "pseudo_projective": self.pseudo_projective,
            "classes": self.classes.to_json(),
            "vocabularies": self.vocabularies.to_dict(),
            "training_data_sha256": self.training_data_sha256,
            "scores": self.scores,
            "hyperparameters": self.hyperparameters,
            "command_line": self.command_line,
        }

    def saved(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """What the model file holds: (arrays, metadata)."""
        raise NotImplementedError

    def save(self, path: str | os.PathLike) -> None:
        """Write the model file, atomically."""
        modelfile.save(path, *self.saved())

    @classmethod
    def load(cls, path: str | os.PathLike, mapped: bool = False) -> TransitionParser:
        """A parser from a model file; any problem with the file is an `ArcwiseError`."""
        return cls.from_saved(*modelfile.load(path, mapped=mapped), os.fspath(path))


class Parser(TransitionParser):
    """A trained greedy transition-based parser scored by an averaged perceptron.

    >>> parser = Parser.load("en.model")
    >>> head, deprel = parser.parse(sentence)        # or parser.parse([s1, s2, ...])
    >>> parser.parse_file("test.conllu", "parsed.conllu")

    Its fused compiled loop (`parse_batch`) extracts hashed features and scores
    them in one call per batch; everything else is `TransitionParser`'s.
    """

    def __init__(
        self,
        system: str,
        vocabularies: Vocabularies,
        table: FeatureTable,
        classes: pc.ClassSet,
        weights: pc.Weights,
        root_label: str,
        hyperparameters: dict[str, Any] | None = None,
        scores: dict[str, Any] | None = None,
        training_data_sha256: str | None = None,
        command_line: Sequence[str] = (),
        pseudo_projective: str | None = None,
    ):
        super().__init__(system, vocabularies, classes, root_label, hyperparameters, scores,
                         training_data_sha256, command_line, pseudo_projective)
        self.table = table
        self.weights = weights

    def parse_encoded(self, batch: Batch, trace: bool = False) -> tuple[np.ndarray, ...]:
        """`parse_batch` on an encoded batch: the model's raw flat (heads, label ids, made),
        with trace followed by (built_by, reheadings, reheading_offsets)."""
        if self.guided != batch.guided:
            raise ArcwiseError(
                "this model is guided (stacking): it parses with the guide's trees"
                if self.guided else "guide trees given to a model trained without a guide"
            )
        with interrupts.deferred():  # never raise inside the parallel compiled loop
            parsed = parse_batch(
                self.kernels.system_id,
                self.kernels.options,
                self.table.program,
                self.weights,
                self.classes.transition,
                self.classes.label,
                self.classes.labels.index(self.root_label),
                batch.offsets,
                batch.words,
                trace,
            )
        return parsed if trace else parsed[:3]

    @property
    def guided(self) -> bool:
        """Whether the model reads a guide parser's trees (stacking, 2011 paper §5.3)."""
        return self.table.guided

    def retrained(self, sentences: Sequence[Sentence], dev: Sequence[Sentence] | None = None):
        """A new parser trained on `sentences` with this one's options (jackknifing)."""
        from arcwise.train import train

        hp = self.hyperparameters
        parser, _ = train(
            self.system, sentences, dev, oracle=hp["oracle"], bound=hp["bound"],
            epochs=hp["epochs"], explore_from=hp["explore_from"], explore_p=hp["explore_p"],
            seed=hp["seed"], table=self.table, transition_buckets=hp["transition_buckets"],
            label_buckets=hp["label_buckets"], pseudo_projective=hp["pseudo_projective"],
            **hp.get("oracle_options", {}))
        return parser

    def meta(self) -> dict[str, Any]:
        """The model file's metadata (see `arcwise.models.modelfile`)."""
        return {**super().meta(), "features": self.table.to_json()}

    def saved(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """What the model file holds: (arrays, metadata)."""
        return pc.to_arrays(self.weights), self.meta()

    @classmethod
    def from_saved(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                   source: str) -> Parser:
        """A parser from a model file's (arrays, metadata); `source` names it in errors."""
        modelfile.check_parser_meta(meta, arrays, source)
        try:
            system = meta["system"]
            kernels = registry.get(system).kernels
            if meta["options"].get("option_bits") != kernels.options:
                raise ArcwiseError(f"{source}: the model's system options differ from {system}'s")
            classes = pc.ClassSet.for_system(kernels, meta["labels"])
            if classes.to_json() != meta["classes"]:
                raise ArcwiseError(f"{source}: the model's classes differ from {system}'s")
            table = FeatureTable.from_json(meta["features"], system, source)
            vocabularies = Vocabularies.from_dict(meta["vocabularies"])
            root_label = meta["root_label"]
            pseudo_projective = meta.get("pseudo_projective")  # absent in older files: None
            if pseudo_projective is not None and pseudo_projective not in ENCODINGS:
                raise ArcwiseError(
                    f"{source}: unknown pseudo-projective encoding {pseudo_projective!r}"
                )
        except ArcwiseError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ArcwiseError(f"{source}: bad model metadata ({error})") from None
        recorded = [meta["hyperparameters"].get(f"{t}_buckets") for t in pc.TABLES]
        if "buckets" in arrays and recorded != [None, None] \
                and recorded != arrays["buckets"].tolist():
            raise ArcwiseError(f"{source}: corrupt model file (table sizes differ from the "
                               f"recorded {recorded[0]} and {recorded[1]} buckets)")
        weights = pc.from_arrays(arrays, classes, source)
        return cls(
            system,
            vocabularies,
            table,
            classes,
            weights,
            root_label,
            hyperparameters=meta["hyperparameters"],
            scores=meta["scores"],
            training_data_sha256=meta["training_data_sha256"],
            command_line=meta["command_line"],
            pseudo_projective=pseudo_projective,
        )


def load(path: str | os.PathLike) -> Parser:
    """`Parser.load`."""
    return Parser.load(path)
