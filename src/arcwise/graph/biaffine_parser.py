"""A neural graph-based parser: biaffine scores (`arcwise.graph.biaffine`) decoded with
Chu-Liu-Edmonds or Eisner, as the 2011 paper's MST parser decodes its linear scores.

The decoder reads each word's log-probability of every head, so the tree it
returns is the most probable one under the arc model (one root by default, as
UD demands); each word then gets its best label for the head it got.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arcwise.core.corpus import ROOT, Sentence, as_sentences, nothing_to_learn
from arcwise.core.errors import NOT_TRANSITION_BASED, ArcwiseError
from arcwise.core.vocab import Vocabularies, check_tagged
from arcwise.graph.chu_liu_edmonds import chu_liu_edmonds
from arcwise.graph.eisner import eisner
from arcwise.io import annotate
from arcwise.learn.embeddings import DEFAULT_EXTRA, vectors_of, with_pretrained
from arcwise.learn.neural import (
    char_vocabulary,
    configured,
    decayed,
    device_of,
    encoder_inputs,
    form_counts,
    need_torch,
    pretrained_arrays,
    pretrained_meta,
    saved_pretrained,
    state_arrays,
    vocabulary_sizes,
)
from arcwise.models import modelfile
from arcwise.trees.projectivity import is_well_formed

DECODERS = ("projective", "non-projective")
PARSE_SENTENCES = 256  # sentences per network call when parsing


class BiaffineParser:
    """A trained biaffine graph-based parser (see the module docstring).

    >>> parser = arcwise.load("en.biaffine")
    >>> head, deprel = parser.parse(sentence)
    """

    system = "mst"
    kind = "biaffine"
    transition_based = False  # no transitions to trace

    def __init__(self, decoder: str, vocabularies: Vocabularies, labels: Sequence[str],
                 network, sizes, hyperparameters: dict[str, Any] | None = None,
                 scores: dict[str, Any] | None = None,
                 training_data_sha256: str | None = None, command_line: Sequence[str] = ()):
        if decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {', '.join(DECODERS)}, not {decoder!r}")
        self.decoder = decoder
        self.vocabularies = vocabularies
        self.labels = tuple(labels)
        self.network = network
        self.sizes = sizes
        self.hyperparameters = dict(hyperparameters or {})
        self.scores = dict(scores or {})
        self.training_data_sha256 = training_data_sha256
        self.command_line = list(command_line)

    def __repr__(self) -> str:
        return f"BiaffineParser(decoder={self.decoder!r}, {len(self.labels)} labels)"

    @property
    def guided(self) -> bool:
        """Does it parse with a guide's trees (stacking, 2011 paper §5.3)?"""
        return self.network.guided

    def parse(self, sentences, single_root: bool = True, guide=None, trace: bool = False):
        """The (head, deprel) of a sentence, or the list of them for a sequence of sentences
        (as `arcwise.graph.mst_parser.GraphParser.parse`; no trace).  guide: the guide
        parser's trees of the sentences, for a guided model."""
        import torch

        from arcwise.features.batch import Batch

        if trace:
            raise ArcwiseError(NOT_TRANSITION_BASED)
        if (guide is not None) != self.guided:
            raise ArcwiseError("guide trees given to a model trained without a guide"
                               if guide is not None else "this model parses with a guide's trees")
        sentences, single = as_sentences(sentences)
        if single:
            return self.parse(sentences, single_root,
                              guide=None if guide is None else [guide])[0]
        check_tagged(sentences, self.vocabularies)
        decode = eisner if self.decoder == "projective" else chu_liu_edmonds
        trees = [None] * len(sentences)
        self.network.eval()
        device = device_of(self.network)
        # sentences of similar lengths together: the score matrices are padded to the longest
        by_length = np.argsort([s.n for s in sentences], kind="stable")
        for start in range(0, len(sentences), PARSE_SENTENCES):
            chosen = by_length[start : start + PARSE_SENTENCES]
            batch = Batch([sentences[k] for k in chosen], self.vocabularies,
                          None if guide is None else [guide[k] for k in chosen])
            inputs = encoder_inputs(batch, None, 0, None, chars=bool(self.sizes.chars),
                                    device=device)
            lengths = inputs.lengths
            with torch.no_grad():
                arcs, label_dependent, label_head = self.network(inputs)
                arcs = arcs.masked_fill(~padding_mask(lengths, device)[:, None, :],
                                        float("-inf"))
                log_probabilities = torch.log_softmax(arcs, -1).double().cpu().numpy()
                heads = np.zeros(inputs.shape, dtype=np.int64)
                for s, size in enumerate(lengths.tolist()):
                    heads[s, :size] = decode(
                        np.ascontiguousarray(log_probabilities[s, :size, :size].T), single_root)
                labels = self.network.label_scores(label_dependent, label_head,
                                                   inputs.tensor(heads),
                                                   inputs).argmax(-1).cpu().numpy()
            for s, size in enumerate(lengths.tolist()):
                head = heads[s, :size].astype(np.int32)
                head[0] = -1
                trees[chosen[s]] = (head, (ROOT, *(self.labels[k] for k in labels[s, 1:size])))
        return trees

    def parse_file(self, input, output, *, format: str | None = None,
                   single_root: bool | None = None,
                   progress: Callable[[int], Any] | None = None,
                   batch_sentences: int = 4096, trace: bool = False) -> int:
        """Parse a treebank into another, streaming; as `arcwise.transition.parser.Parser.parse_file`."""
        if trace:
            raise ArcwiseError(NOT_TRANSITION_BASED)
        return annotate(input, output, self.parse, format=format, single_root=single_root,
                        batch_sentences=batch_sentences, progress=progress)

    def training_options(self) -> dict[str, Any]:
        """The options that train a parser like this one (`arcwise.models.kinds.train_system`
        of "mst"): what jackknifing retrains it with."""
        hp = self.hyperparameters
        neural = {**hp["sizes"], "batch_sentences": hp["batch_sentences"],
                  "threads": hp["threads"]}
        pretrained = self.network.encoder.pretrained_table  # its vectors, not the file
        embeddings = ({} if pretrained is None else
                      {"embeddings": pretrained.as_vectors(self.vocabularies.lower)})
        return dict(model="biaffine", decoder=self.decoder, epochs=hp["epochs"],
                    seed=hp["seed"], neural=neural, **embeddings)

    # --- model files -------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        embeddings = pretrained_meta(self.network.encoder)
        return {
            **({} if embeddings is None else {"embeddings": embeddings}),
            "system": self.system,
            "model": self.kind,
            "options": {"decoder": self.decoder},
            "labels": list(self.labels),
            "vocabularies": self.vocabularies.to_dict(),
            "chars": self.network.encoder.chars_vocabulary,
            "guided": self.guided,
            "sizes": dataclasses.asdict(self.sizes),
            "training_data_sha256": self.training_data_sha256,
            "scores": self.scores,
            "hyperparameters": self.hyperparameters,
            "command_line": self.command_line,
        }

    def saved(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """What the model file holds: the network's float32 arrays (and its pretrained
        vectors, float16) and the metadata."""
        return ({**state_arrays(self.network), **pretrained_arrays(self.network.encoder)},
                self.meta())

    def save(self, path: str | os.PathLike) -> None:
        modelfile.save(path, *self.saved())

    @classmethod
    def load(cls, path: str | os.PathLike, mapped: bool = False) -> BiaffineParser:
        return cls.from_saved(*modelfile.load(path, mapped=mapped), os.fspath(path))

    @classmethod
    def from_saved(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any],
                   source: str) -> BiaffineParser:
        """A parser from a model file's (arrays, metadata); any problem is an ArcwiseError."""
        import torch

        from arcwise.graph.biaffine import BiaffineNetwork, BiaffineSizes

        need_torch()
        modelfile.check_parser_meta(meta, arrays, source)
        try:
            sizes = BiaffineSizes(**meta["sizes"])
            vocabularies = Vocabularies.from_dict(meta["vocabularies"])
            pretrained = saved_pretrained(arrays, meta.get("embeddings"), source,
                                          rows=len(vocabularies.lower))
            network = BiaffineNetwork(
                vocabulary_sizes(vocabularies, pretrained), len(meta["labels"]), sizes,
                str(meta.get("chars", "")), len(vocabularies.deprel) if meta.get("guided") else 0,
                pretrained)
            parser = cls(meta["options"]["decoder"], vocabularies, meta["labels"], network,
                         sizes, meta["hyperparameters"], meta["scores"],
                         meta["training_data_sha256"], meta["command_line"])
        except (KeyError, TypeError, ValueError) as error:
            raise ArcwiseError(f"{source}: bad model metadata ({error})") from None
        expected = network.state_dict()
        state = {}
        for name, tensor in expected.items():
            array = arrays.get("net__" + name.replace(".", "__"))
            if array is None or tuple(array.shape) != tuple(tensor.shape):
                raise ArcwiseError(f"{source}: corrupt model file (the network's arrays differ "
                                   "from its recorded sizes)")
            state[name] = torch.from_numpy(np.array(array, dtype=np.float32))
        network.load_state_dict(state)
        return parser


def padding_mask(lengths, device="cpu"):
    """bool [sentences, longest] on `device`: is the position a word (or the root) of its
    sentence."""
    import torch

    return (torch.arange(int(lengths.max()), device=device)[None, :]
            < lengths.to(device)[:, None])


def train_biaffine(
    train_sentences: Sequence[Sentence],
    dev_sentences: Sequence[Sentence] | None = None,
    *,
    decoder: str = "non-projective",
    epochs: int | None = None,
    seed: int = 0,
    progress: Callable[[dict[str, Any]], Any] | None = None,
    neural: dict[str, Any] | None = None,
    guide: Sequence[Sentence] | None = None,
    dev_guide: Sequence[Sentence] | None = None,
    embeddings: Any = None,
    embeddings_extra: int = DEFAULT_EXTRA,
) -> tuple[BiaffineParser, dict[str, Any]]:
    """Train a biaffine parser; returns (the parser of the best dev epoch, the log).

    epochs: None = `arcwise.training.epochs.default_epochs` (by the updates they make).
    neural: `BiaffineSizes` fields, batch_sentences (sentences per update, 32)
    and threads (torch's).  Trees that are not well formed are skipped.  guide,
    dev_guide: a guide parser's trees of the train and dev sentences (jackknifed for
    train: `arcwise.combination.stacking.jackknife`) to train a guided parser.
    embeddings: pretrained word vectors, a vectors file or
    `arcwise.learn.embeddings.Vectors` already read (of a file, the training
    vocabulary's and the first embeddings_extra other words' are kept, in the model).
    """
    import torch

    from arcwise.features.batch import Batch
    from arcwise.graph.biaffine import BiaffineNetwork, BiaffineSizes
    from arcwise.training.data import data_sha256, score_parser
    from arcwise.training.epochs import default_epochs, log_header, run_epochs

    need_torch()
    if decoder not in DECODERS:
        raise ValueError(f"decoder must be one of {', '.join(DECODERS)}, not {decoder!r}")
    options = dict(neural or {})
    batch_sentences = int(options.pop("batch_sentences", 32))
    sizes, threads = configured(options, BiaffineSizes)
    torch.manual_seed(seed)
    sentences = list(train_sentences)
    if epochs is None:
        epochs = default_epochs("biaffine", len(sentences), batch_sentences)
    dev = list(dev_sentences or [])
    well_formed = [k for k, s in enumerate(sentences)
                   if is_well_formed(np.asarray(s.head, dtype=np.int32))]
    usable = np.array([k for k in well_formed if sentences[k].n >= 1], dtype=np.int64)
    if not any(sentences[k].n >= 2 for k in usable):
        raise ArcwiseError(nothing_to_learn(len(sentences), len(sentences) - len(well_formed),
                                            0, len(usable)))
    if guide is not None and dev and dev_guide is None:
        raise ValueError("a guided parser needs the guide's trees of the dev sentences too")
    vocabularies = Vocabularies.build(sentences)
    pretrained = None
    if embeddings is not None:  # their words join the lowercased forms' vocabulary
        vectors = vectors_of(embeddings, vocabularies.lower, embeddings_extra)
        vocabularies, pretrained = with_pretrained(vocabularies, vectors)
    labels = list(vocabularies.deprel)
    batch = Batch(sentences, vocabularies, guide)
    chars = char_vocabulary(batch.forms) if sizes.chars else ""
    network = BiaffineNetwork(vocabulary_sizes(vocabularies, pretrained), len(labels), sizes,
                              chars, len(vocabularies.deprel) if guide is not None else 0,
                              pretrained)
    optimizer = torch.optim.Adam(network.parameters(), lr=sizes.learning_rate, betas=(0.9, 0.9))
    schedule = decayed(optimizer, sizes)
    log = log_header("mst", sentences, len(sentences) - len(well_formed), 0, list(usable), None,
                     {"model": "biaffine", "decoder": decoder, "epochs": epochs, "seed": seed,
                      "sizes": dataclasses.asdict(sizes), "batch_sentences": batch_sentences,
                      "guided": guide is not None,
                      "threads": threads or torch.get_num_threads(),
                      **({} if pretrained is None else
                         {"embeddings": pretrained.info["source"],
                          "embeddings_extra": embeddings_extra})})
    parser = BiaffineParser(decoder, vocabularies, labels, network, sizes,
                            log["hyperparameters"], training_data_sha256=data_sha256(sentences))
    epochs_of = BiaffineEpochs(network, optimizer, schedule, batch, usable, len(labels), sizes,
                               batch_sentences, seed, form_counts(batch.words, vocabularies))
    return run_epochs(epochs_of, parser, log, epochs=epochs, trained_sentences=len(usable),
                      score_dev=(lambda: score_parser(parser, dev, guide=dev_guide))
                      if dev else None, progress=progress)


class BiaffineEpochs:
    """The biaffine parser's epochs (`arcwise.training.epochs.EpochTrainer`): Adam on the cross
    entropy of each word's head and of its gold arc's label, over batches of sentences
    of similar lengths; snapshots are copies of the network's weights."""

    def __init__(self, network, optimizer, schedule, batch, usable: np.ndarray, n_labels: int,
                 sizes, batch_sentences: int, seed: int, counts: np.ndarray):
        self.network, self.optimizer, self.batch, self.usable = network, optimizer, batch, usable
        self.schedule = schedule  # of the learning rate (`bilstm.decayed`), or None
        self.n_labels, self.sizes, self.batch_sentences = n_labels, sizes, batch_sentences
        self.seed, self.counts = seed, counts
        self.lengths = np.array([batch.offsets[k + 1] - batch.offsets[k] - 1 for k in usable])

    def train_epoch(self, epoch: int) -> dict[str, Any]:
        import torch
        import torch.nn.functional as F

        from arcwise.features.batch import sub_batch
        from arcwise.training.data import length_batches

        network, batch, usable = self.network, self.batch, self.usable
        device = device_of(network)
        rng = np.random.default_rng([self.seed, epoch])
        total_loss = 0.0
        network.train()
        for indices in length_batches(self.lengths, self.batch_sentences, rng):
            part = sub_batch(batch, usable[indices])
            inputs = encoder_inputs(part, self.counts, self.sizes.word_dropout, rng,
                                    chars=bool(self.sizes.chars), device=device,
                                    pretrained=network.encoder.pretrained_table is not None)
            sentence, where = inputs.tensor(inputs.sentence), inputs.tensor(inputs.where)
            arcs, label_dependent, label_head = network(inputs)
            mask = padding_mask(inputs.lengths, device)
            arcs = arcs.masked_fill(~mask[:, None, :], float("-inf"))
            gold_heads = torch.full(inputs.shape, -100, dtype=torch.int64, device=device)
            gold_labels = torch.full(inputs.shape, -100, dtype=torch.int64, device=device)
            heads = np.concatenate([batch.head[batch.offsets[k] : batch.offsets[k + 1]]
                                    for k in usable[indices]])
            gold_heads[sentence, where] = inputs.tensor(heads.astype(np.int64))
            gold_labels[sentence, where] = inputs.tensor(part.deprel.astype(np.int64) - 2)
            gold_heads[:, 0] = gold_labels[:, 0] = -100  # the root has no head
            arc_loss = F.cross_entropy(arcs.reshape(-1, arcs.shape[2]), gold_heads.reshape(-1),
                                       ignore_index=-100)
            label_scores = network.label_scores(label_dependent, label_head, gold_heads,
                                                inputs)
            label_loss = F.cross_entropy(label_scores.reshape(-1, self.n_labels),
                                         gold_labels.reshape(-1), ignore_index=-100)
            loss = arc_loss + label_loss
            self.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(network.parameters(), 5.0)
            self.optimizer.step()
            if self.schedule is not None:
                self.schedule.step()
            total_loss += float(loss.detach()) * len(indices)
        network.eval()
        return {"loss": round(total_loss / max(len(usable), 1), 6)}

    def snapshot(self) -> dict:
        return copy.deepcopy(self.network.state_dict())

    def restore(self, snapshot: dict) -> None:
        self.network.load_state_dict(snapshot)
        self.network.eval()
