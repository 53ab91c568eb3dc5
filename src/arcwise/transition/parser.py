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
built each word's arc and which arcs later ones replaced (`arcwise.transition.trace`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import IO, Any

import numpy as np

from arcwise import systems as registry
from arcwise.core import interrupts
from arcwise.core.corpus import ROOT, Sentence, as_sentences
from arcwise.core.errors import ArcwiseError
from arcwise.core.vocab import Vocabularies, check_tagged
from arcwise.features import FeatureTable
from arcwise.features.batch import Batch
from arcwise.features.templates import compile_addresses, compile_candidate_table
from arcwise.io import annotate
from arcwise.io.annotations import tree_annotations
from arcwise.learn import perceptron as pc
from arcwise.models import modelfile
from arcwise.models.kinds import scorer_class
from arcwise.transition import candidates, stepped
from arcwise.transition.kernels import parse_batch
from arcwise.transition.trace import of_parse as trace_of_parse
from arcwise.trees.pseudoprojective import (
    ENCODINGS,
    LIFTED,
    ON_PATH,
    deprojectivize,
    split_label,
)
from arcwise.trees.roots import single_rooted

BATCH_SENTENCES = 4096  # sentences per compiled call (bounds the flat arrays)


# Label of a word moved under the kept root by `single_root` (the first the model knows):
# in UD, juxtaposed clauses (what a second root usually is) are parataxis.
REATTACH_LABELS = ("parataxis", "dep")


class TransitionParser:
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
        (head, deprel, `arcwise.transition.trace.Trace`)."""
        heads, label_ids, made, *record = self.parse_encoded(batch, trace)
        labels = self.classes.labels
        offsets = batch.offsets.tolist()
        if trace:  # the action names by id (covington-nl's up to left-arc-n)
            longest = int(np.diff(batch.offsets).max(initial=1)) - 1
            names = [self.kernels.action_name(a)
                     for a in range(self.kernels.action_count(longest))]
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
                    names, built,
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
        a list of words (`arcwise.core.corpus.as_sentences`).  A model trained with
        tags refuses words without any (`arcwise.core.vocab.check_tagged`).

        Every parse is a tree with exactly one word attached to 0, as UD
        demands (`single_rooted`); single_root=False gives the tree the
        parser built, in which several words may hang from 0.
        guide: a guided model's input, the guide parser's output on the same
        sentence(s) (only head and deprel are read).  trace=True gives
        (head, deprel, trace) instead: what the transitions did
        (`arcwise.transition.trace.Trace`); the trees are the same.
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
        (and with trace, the `arcwise.transition.trace` attributes merged into MISC).
        single_root: one root per sentence (see `parse`); None = the default
        of the format (`arcwise.io.one_root_by_default`: CoNLL-U yes, CoNLL-X
        no).  progress(k) is called after each batch of k sentences is
        written.  If anything fails on the way (bad input, an interrupt), no
        output file is left and an existing one is untouched.
        """
        return annotate(
            input, output,
            lambda batch, single_root: tree_annotations(
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

    @staticmethod
    def common_of(meta: dict[str, Any]) -> dict[str, Any]:
        """The keyword arguments every transition parser reads back from its model file's
        metadata (what `meta` wrote of them; pseudo_projective aside, which each checks)."""
        return dict(hyperparameters=meta["hyperparameters"], scores=meta["scores"],
                    training_data_sha256=meta["training_data_sha256"],
                    command_line=meta["command_line"])

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

    def __init__(self, system: str, vocabularies: Vocabularies, table: FeatureTable,
                 classes: pc.ClassSet, weights: pc.Weights, root_label: str,
                 candidate_table: FeatureTable | None = None, **common: Any):
        """candidate_table: a parameterised system's (covington-nl's arcs with k >= 2,
        `arcwise.transition.candidates`), and only its; common: `TransitionParser`'s other
        arguments (hyperparameters, scores, ...)."""
        super().__init__(system, vocabularies, classes, root_label, **common)
        if (candidate_table is None) != (self.kernels.parameterised is None):
            raise ValueError(f"{system} parses with a candidate table" if candidate_table
                             is None else f"{system} has no candidates to score")
        self.table = table
        self.candidate_table = candidate_table
        self.weights = weights

    def parse_encoded(self, batch: Batch, trace: bool = False) -> tuple[np.ndarray, ...]:
        """`parse_batch` on an encoded batch: the model's raw flat (heads, label ids, made),
        with trace followed by (built_by, reheadings, reheading_offsets)."""
        if self.guided != batch.guided:
            raise ArcwiseError(
                "this model is guided (stacking): it parses with the guide's trees"
                if self.guided else "guide trees given to a model trained without a guide"
            )
        with interrupts.deferred():  # never raise while the threads parse
            if self.candidate_table is not None:
                return candidates.parse_batch(
                    self.kernels.system_id, self.kernels.options, self.table.program,
                    self.candidate_table.program, self.weights,
                    self.classes.labels.index(self.root_label), batch.offsets, batch.words,
                    trace)
            return parse_batch(
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

    @property
    def guided(self) -> bool:
        """Whether the model reads a guide parser's trees (stacking, 2011 paper §5.3)."""
        return self.table.guided

    def training_options(self) -> dict[str, Any]:
        """The options that train a parser like this one (`arcwise.models.kinds.train_system`
        of its system): what jackknifing retrains it with."""
        hp = self.hyperparameters
        return dict(oracle=hp["oracle"], bound=hp["bound"], epochs=hp["epochs"],
                    explore_from=hp["explore_from"], explore_p=hp["explore_p"], seed=hp["seed"],
                    table=self.table, transition_buckets=hp["transition_buckets"],
                    label_buckets=hp["label_buckets"], pseudo_projective=hp["pseudo_projective"],
                    **hp.get("oracle_options", {}))

    def meta(self) -> dict[str, Any]:
        """The model file's metadata (see `arcwise.models.modelfile`)."""
        candidate_features = ({} if self.candidate_table is None else
                              {"candidate_features": self.candidate_table.to_json()})
        return {**super().meta(), "features": self.table.to_json(), **candidate_features}

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
            candidate_table = None
            if kernels.parameterised is not None:
                candidate_table = FeatureTable.from_json(
                    meta["candidate_features"], system, source,
                    compile=compile_candidate_table)
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
        weights = pc.from_arrays(arrays, classes, source)
        recorded = [meta["hyperparameters"].get(f"{t}_buckets") for t in pc.TABLES]
        if ("buckets" in arrays or "scales" in arrays) and recorded != [None, None] \
                and recorded != [len(weights.transition), len(weights.label)]:
            raise ArcwiseError(f"{source}: corrupt model file (table sizes differ from the "
                               f"recorded {recorded[0]} and {recorded[1]} buckets)")
        return cls(
            system,
            vocabularies,
            table,
            classes,
            weights,
            root_label,
            candidate_table=candidate_table,
            pseudo_projective=pseudo_projective,
            **cls.common_of(meta),
        )


def load(path: str | os.PathLike) -> Parser:
    """`Parser.load`."""
    return Parser.load(path)


class ScorerParser(TransitionParser):
    """A greedy transition-based parser whose transitions a stepped `Scorer` scores
    (the BiLSTM of `arcwise.learn.neural`; a perceptron trained step by step becomes
    an `arcwise.transition.parser.Parser` with its fused loops)."""

    def __init__(self, system: str, vocabularies: Vocabularies, classes: pc.ClassSet,
                 scorer, root_label: str, **common: Any):
        super().__init__(system, vocabularies, classes, root_label, **common)
        self.scorer = scorer

    @property
    def guided(self) -> bool:
        """Whether the model reads a guide parser's trees (stacking, 2011 paper §5.3)."""
        return getattr(self.scorer, "guided", False)

    def parse_encoded(self, batch: Batch, trace: bool = False) -> tuple[np.ndarray, ...]:
        if batch.guided != self.guided:
            raise ArcwiseError("guide trees given to a model trained without a guide"
                               if batch.guided else "this model parses with a guide's trees")
        return stepped.parse(self.scorer, self.kernels, self.classes, batch,
                     self.classes.labels.index(self.root_label), trace)

    def meta(self) -> dict[str, Any]:
        layout = candidates.layout(self.kernels)  # how a parameterised system's are scored
        return {**super().meta(), "model": self.scorer.kind, "scorer": self.scorer.meta(),
                **({} if layout is None else {"candidates": layout})}

    def training_options(self) -> dict[str, Any]:
        """The options that train a parser like this one (`Parser.training_options`)."""
        hp = self.hyperparameters
        neural = {**hp["sizes"], "batch_sentences": hp["batch_sentences"],
                  "aggressive_p": hp["aggressive_p"], "threads": hp["threads"]}
        pretrained = getattr(self.scorer, "pretrained", None)  # its vectors, not the file
        embeddings = ({} if pretrained is None else
                      {"embeddings": pretrained.as_vectors(self.vocabularies.lower)})
        return dict(oracle=hp["oracle"], bound=hp["bound"], epochs=hp["epochs"],
                    explore_from=hp["explore_from"], explore_p=hp["explore_p"], seed=hp["seed"],
                    pseudo_projective=hp["pseudo_projective"], model=hp["model"], neural=neural,
                    **embeddings, **hp.get("oracle_options", {}))

    def saved(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        return self.scorer.arrays(), self.meta()

    @classmethod
    def from_saved(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                   source: str) -> ScorerParser:
        """A parser from a model file's (arrays, metadata); `source` names it in errors."""
        modelfile.check_parser_meta(meta, arrays, source)
        try:
            system = meta["system"]
            kernels = registry.get(system).kernels
            classes = pc.ClassSet.for_system(kernels, meta["labels"])
            if classes.to_json() != meta["classes"]:
                raise ArcwiseError(f"{source}: the model's classes differ from {system}'s")
            layout = candidates.layout(kernels)
            if meta.get("candidates") != layout:
                raise ArcwiseError(f"{source}: the model scores {system}'s candidates as "
                                   f"{meta.get('candidates')}, this arcwise as {layout}")
            vocabularies = Vocabularies.from_dict(meta["vocabularies"])
            scorer_meta = meta["scorer"]
            make_scorer = scorer_class(meta["model"], source)
        except ArcwiseError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ArcwiseError(f"{source}: bad model metadata ({error})") from None
        scorer = make_scorer.from_saved(arrays, scorer_meta, classes, source)
        if scorer.addresses:
            try:
                compile_addresses(scorer.addresses, kernels.system_id, "its neural features")
            except ValueError as error:
                raise ArcwiseError(f"{source}: bad model metadata ({error})") from None
        pretrained = getattr(scorer, "pretrained", None)
        if pretrained is not None and len(pretrained.vectors) != len(vocabularies.lower):
            raise ArcwiseError(f"{source}: corrupt model file (pretrained vectors for "
                               f"{len(pretrained.vectors)} words, a vocabulary of "
                               f"{len(vocabularies.lower)})")
        return cls(system, vocabularies, classes, scorer, meta["root_label"],
                   pseudo_projective=meta.get("pseudo_projective"), **cls.common_of(meta))
