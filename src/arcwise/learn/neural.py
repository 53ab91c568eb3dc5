"""A BiLSTM scorer of transitions (Kiperwasser & Goldberg 2016, §3 and §5).

Every word is the concatenation of embeddings of its lowercased form, its
suffix and shape (`arcwise.core.vocab.form_signature`: what an unknown word
still has), optionally the final states of a BiLSTM over its characters
(`Sizes.chars`; Ballesteros et al. 2015, Dozat et al. 2017), and its UPOS,
XPOS and FEATS, and optionally a pretrained vector of its lowercased form
(`arcwise.learn.embeddings`: a fixed table, see `Encoder`); a 2-layer BiLSTM reads the
sentence; a configuration is the concatenation of the BiLSTM vectors of the
words its feature set names (`arcwise.features.templates.neural_addresses`; a learned
vector where there is no word); two MLPs score it, one per transition and
one per (arc transition, label), and a labeled class scores the sum.

Training minimizes the hinge loss max(0, 1 - max right + max wrong) over
the legal classes, the right ones being the oracle's zero-cost classes; a
form is replaced by the unknown word with probability a / (a + count)
(word dropout, a = 0.25).  Parameters are saved as float32 numpy arrays in
the model file, never as a pickle.  Needs the neural extra (torch).

Devices: a network is built on the CPU (so that a seed gives the same initial
weights everywhere) and then moved to `arcwise.core.device.current_device()`, the
CPU unless `arcwise.core.device.use_device` chose a GPU; every tensor a model makes
follows its network's device (`device_of`), and what it reads back or saves is
copied to the CPU first (`state_arrays`).  The device is a runtime choice, never
stored in a model file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from arcwise.core.device import current_device
from arcwise.core.errors import ArcwiseError
from arcwise.features import words as wc
from arcwise.learn.embeddings import Pretrained

try:
    import torch
    from torch import nn
except ImportError:  # pragma: no cover - the neural extra is not installed
    torch = None
    nn = None

# the words-matrix columns embedded, in order
EMBEDDED = (wc.LOWER, wc.SUFFIX, wc.SHAPE, wc.UPOS, wc.XPOS, wc.FEATS)
# `EncoderInputs.columns`: EMBEDDED's, then the row of the pretrained vector (the lowercased
# form's id again, for word dropout to drop apart)
PRETRAINED = len(EMBEDDED)
UNKNOWN = 0  # `arcwise.core.vocab.UNKNOWN`
# a word that word dropout replaces by the unknown word loses its pretrained vector too
# with this probability (Kiperwasser & Goldberg's code, bist-parser: the external
# embedding is kept half the time), so that both what a test word outside training meets
# (its vector, the unknown word's embedding) and a word without a vector are trained
PRETRAINED_DROPOUT = 0.5


def need_torch() -> None:
    """ArcwiseError unless torch (the neural extra) is installed."""
    if torch is None:
        raise ArcwiseError("the bilstm model needs torch: pip install 'arcwise[neural]'")


def device_of(module) -> Any:
    """The torch device a network's parameters are on."""
    return next(module.parameters()).device


def state_arrays(module, prefix: str = "") -> dict[str, np.ndarray]:
    """A network's parameters as float32 CPU arrays named PREFIXnet__MODULE__PARAM, as a
    model file stores them."""
    return {f"{prefix}net__" + name.replace(".", "__"):
            p.detach().cpu().numpy().astype(np.float32)
            for name, p in module.state_dict().items()}


@dataclass(frozen=True)
class Sizes:
    """The network's dimensions and its training constants (recorded in the model file)."""

    word: int = 100  # lowercased form
    suffix: int = 32
    shape: int = 16
    tag: int = 25  # UPOS, XPOS and FEATS each
    lstm: int = 125  # per direction
    layers: int = 2
    hidden: int = 100  # each MLP's hidden layer
    word_dropout: float = 0.25  # a in a / (a + count)
    learning_rate: float = 1e-3
    # the rate after t updates: learning_rate * decay ** (t / decay_updates) (Dozat &
    # Manning 2017: 0.75 and 5,000); 1.0 keeps it constant
    decay: float = 1.0
    decay_updates: int = 5000
    # dropout on the embeddings, between the BiLSTM layers and on its output while
    # training (Dozat & Manning 2017: 0.33; 0 = none, as Kiperwasser & Goldberg 2016, who
    # overfit small treebanks: bench/RESULTS.md, "neural-defaults")
    dropout: float = 0.33
    # a character BiLSTM of this size per direction adds its final states to each
    # word's vector (0 = none); its characters are embedded in char_embedding dimensions
    chars: int = 0
    char_embedding: int = 32

    def __post_init__(self):
        if not 0 < self.decay <= 1 or self.decay_updates < 1:
            raise ValueError(f"decay {self.decay} every {self.decay_updates} updates: "
                             "use a decay in (0, 1] and at least 1 update")
        if not 0 <= self.dropout < 1:
            raise ValueError(f"dropout {self.dropout}: use a rate in [0, 1)")
        if self.chars < 0 or self.char_embedding < 1:
            raise ValueError(f"chars {self.chars}, char_embedding {self.char_embedding}: "
                             "use chars >= 0 and char_embedding >= 1")


def checked_sizes(options: dict[str, Any], sizes_class: type = Sizes) -> Any:
    """``sizes_class(**options)`` (``threads`` aside), or ValueError naming an unknown option
    or a value out of range; needs no torch, so options are checked before any work."""
    options = {k: v for k, v in options.items() if k != "threads"}
    try:
        return sizes_class(**options)
    except TypeError as error:
        raise ValueError(f"unknown neural option ({error})") from None


def configured(options: dict[str, Any], sizes_class: type) -> tuple[Any, int]:
    """``(sizes_class(**options), threads)`` of a neural model's options, with torch set to
    that many threads (``threads``; 0: torch's default) and, training on the CPU,
    deterministic algorithms (on a GPU, cuDNN's LSTM and some index operations have
    none: a GPU run is not bit for bit repeatable)."""
    threads = int(options.get("threads", 0))
    sizes = checked_sizes(options, sizes_class)
    if threads:
        torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(current_device() == "cpu")
    return sizes, threads


def decayed(optimizer, sizes: Sizes):
    """The scheduler that decays the optimizer's learning rate as `sizes` says (step it
    after each update), or None when the rate stays constant."""
    if sizes.decay == 1.0:
        return None
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda updates: sizes.decay ** (updates / sizes.decay_updates))


MAX_CHARS = 32  # a longer form is read as its first and last MAX_CHARS // 2 characters


def char_vocabulary(forms) -> str:
    """The characters of a training set's forms, sorted (saved in the model file)."""
    return "".join(sorted(set().union(*map(set, forms))))


class CharEncoder(nn.Module if nn is not None else object):
    """Each distinct form's vector: the final states of a BiLSTM over its characters
    (a character not in the vocabulary is one shared unknown character)."""

    def __init__(self, chars: str, sizes: Sizes):
        super().__init__()
        self.ids = {c: k + 2 for k, c in enumerate(chars)}  # 0: padding, 1: unknown
        self.embedding = nn.Embedding(len(chars) + 2, sizes.char_embedding, padding_idx=0)
        self.lstm = nn.LSTM(sizes.char_embedding, sizes.chars, bidirectional=True,
                            batch_first=True)
        self.width = 2 * sizes.chars

    def forward(self, forms: np.ndarray) -> torch.Tensor:
        """The vectors [..., width] of an array of forms (any shape)."""
        types, inverse = np.unique(forms.ravel(), return_inverse=True)
        clipped = [f if len(f) <= MAX_CHARS else f[: MAX_CHARS // 2] + f[-MAX_CHARS // 2:]
                   for f in types.tolist()]
        lengths = np.array([max(len(f), 1) for f in clipped], dtype=np.int64)
        ids = np.zeros((len(clipped), int(lengths.max())), dtype=np.int64)
        for k, form in enumerate(clipped):
            ids[k, : len(form)] = [self.ids.get(c, 1) for c in form]
        device = self.embedding.weight.device
        packed = nn.utils.rnn.pack_padded_sequence(  # the lengths stay on the CPU
            self.embedding(torch.from_numpy(ids).to(device)), torch.from_numpy(lengths),
            batch_first=True, enforce_sorted=False)
        _, (final, _) = self.lstm(packed)  # final: [2 directions, types, chars]
        vectors = torch.cat([final[0], final[1]], -1)
        return vectors[torch.from_numpy(inverse.reshape(-1)).to(device)].reshape(
            *forms.shape, -1)


class EncoderInputs(NamedTuple):
    """A batch as the encoder reads it, one row per batch word (no padding): the word ids
    [words, 7] (`EMBEDDED`'s and `PRETRAINED`'s; on `device`), the sentence lengths (on
    the CPU, where packing reads them), (sentence, position) of each word, the forms (or None), and for a guided model
    (stacking) each word's guide head (-1: none) and guide label id [words, 2] (or None).
    `padded` lays any per-word rows out as [sentences, longest, ...]; `tensor` puts an
    array on the device."""

    columns: Any
    lengths: Any
    sentence: np.ndarray
    where: np.ndarray
    forms: np.ndarray | None
    guide: np.ndarray | None = None
    device: Any = "cpu"

    def tensor(self, array: np.ndarray):
        """The array as a tensor on the batch's device."""
        return torch.from_numpy(array).to(self.device)

    @property
    def shape(self) -> tuple[int, int]:
        """(sentences, longest)."""
        return len(self.lengths), int(self.lengths.max()) if len(self.lengths) else 0

    def padded(self, rows, fill=0):
        """Per-word rows (a tensor or an array) as [sentences, longest, ...], `fill` between."""
        if isinstance(rows, np.ndarray):
            out = np.full((*self.shape, *rows.shape[1:]), fill, dtype=rows.dtype)
            out[self.sentence, self.where] = rows
            return out
        out = torch.full((*self.shape, *rows.shape[1:]), fill, dtype=rows.dtype,
                         device=rows.device)
        return out.index_put((self.tensor(self.sentence), self.tensor(self.where)), rows)

    def padded_guide(self) -> np.ndarray | None:
        """A guided batch's (guide head, guide label id) [sentences, longest, 2], (-1, 0)
        between sentences; None unguided."""
        if self.guide is None:
            return None
        guide = self.padded(self.guide, -1)
        guide[:, :, 1] = np.maximum(guide[:, :, 1], 0)
        return guide


def packed(rows: torch.Tensor, inputs: EncoderInputs):
    """The batch's word rows as a `PackedSequence` of its sentences, built directly (no
    padded copy), and the index of each word's row in its data.  The sentences are
    ordered as `pack_padded_sequence` orders them, so the LSTM sees the same data (the
    batch sizes on the CPU, the indices on the rows' device, as it puts them)."""
    lengths, sorted_indices = torch.sort(inputs.lengths, descending=True)
    unsorted_indices = torch.empty_like(sorted_indices)
    unsorted_indices[sorted_indices] = torch.arange(len(sorted_indices))
    batch_sizes = (lengths[None, :] > torch.arange(int(lengths[0]))[:, None]).sum(1)
    starts = torch.cumsum(batch_sizes, 0) - batch_sizes
    row = (starts[torch.from_numpy(inputs.where)]
           + unsorted_indices[torch.from_numpy(inputs.sentence)]).to(rows.device)
    data = torch.empty_like(rows).index_copy(0, row, rows)
    return nn.utils.rnn.PackedSequence(data, batch_sizes, sorted_indices.to(rows.device),
                                       unsorted_indices.to(rows.device)), row


class Encoder(nn.Module if nn is not None else object):
    """Embeddings of each word's columns (`EMBEDDED`, or its first columns: one per
    vocabulary size), its pretrained vector if given, its characters' vector if
    `Sizes.chars`, its guide label's if guided (guide_labels: the deprel vocabulary's
    size), and a BiLSTM over the sentence.

    pretrained (`arcwise.learn.embeddings.Pretrained`): a fixed table, row k the vector
    of lowercased-form id k, concatenated to the trained embedding (as Kiperwasser &
    Goldberg 2016 concatenate their external embedding), and never updated (as Dozat &
    Manning 2017 keep theirs), so that a word outside the training vocabulary (an id
    from `Pretrained.trained_words` on, which has no trained row: it gets the unknown
    word's) finds its vector in the same space as the training words' (a table tuned
    in training would move those and leave the others behind).  Its dimension is the
    file's: no size has to match.  It is a buffer outside the state dict: saved as
    float16 by the model (`pretrained_arrays`), not copied by snapshots."""

    def __init__(self, vocabulary_sizes: list[int], sizes: Sizes, dropout: float = 0.0,
                 chars: str = "", guide_labels: int = 0, pretrained: Pretrained | None = None):
        super().__init__()
        # the first len(vocabulary_sizes) columns of `EMBEDDED` (a tagger's: the first 3)
        dims = (sizes.word, sizes.suffix, sizes.shape, sizes.tag, sizes.tag,
                sizes.tag)[: len(vocabulary_sizes)]
        self.embeddings = nn.ModuleList(
            nn.Embedding(max(v, 2), d) for v, d in zip(vocabulary_sizes, dims))
        self.chars = CharEncoder(chars, sizes) if sizes.chars else None
        self.chars_vocabulary = chars if sizes.chars else ""
        self.guide_label = nn.Embedding(guide_labels, sizes.tag) if guide_labels else None
        self.pretrained_table = pretrained  # what the model file saves (or None)
        self.trained_words = vocabulary_sizes[0]  # word ids with a trained embedding
        if pretrained is not None:
            self.register_buffer("pretrained", torch.from_numpy(
                pretrained.vectors.astype(np.float32)), persistent=False)
        width = (sum(dims) + (self.chars.width if self.chars is not None else 0)
                 + (sizes.tag if guide_labels else 0)
                 + (pretrained.dimension if pretrained is not None else 0))
        self.dropout = nn.Dropout(dropout)
        self.lstm = nn.LSTM(width, sizes.lstm, num_layers=sizes.layers,
                            bidirectional=True, batch_first=True,
                            dropout=dropout if sizes.layers > 1 else 0.0)
        self.width = 2 * sizes.lstm

    def forward(self, inputs: EncoderInputs) -> torch.Tensor:
        """BiLSTM vectors [words, width] of a batch's words, in its order."""
        columns = inputs.columns
        if self.pretrained_table is not None:  # the words it added: the unknown word's row
            words = columns[:, 0]
            columns = torch.cat([torch.where(words < self.trained_words, words, UNKNOWN)[:, None],
                                 columns[:, 1:]], 1)
        embedded = [e(columns[:, k]) for k, e in enumerate(self.embeddings)]
        if self.pretrained_table is not None:
            embedded.append(self.pretrained[columns[:, PRETRAINED]])
        if self.chars is not None:
            embedded.append(self.chars(inputs.forms))
        if self.guide_label is not None:
            embedded.append(self.guide_label(inputs.tensor(inputs.guide[:, 1])))
        sequences, row = packed(self.dropout(torch.cat(embedded, -1)), inputs)
        out, _ = self.lstm(sequences)
        return self.dropout(out.data[row])


def vocabulary_sizes(vocabularies, pretrained: Pretrained | None = None) -> list[int]:
    """The embedding table sizes of the `EMBEDDED` columns (`arcwise.core.vocab.Vocabularies`);
    with pretrained vectors, the lowercased forms' is the training vocabulary's
    (`Pretrained.trained_words`: the words the vectors added have no trained row)."""
    sizes = [len(getattr(vocabularies, c)) for c in
             ("lower", "suffix", "shape", "upos", "xpos", "feats")]
    if pretrained is not None:
        sizes[0] = pretrained.trained_words
    return sizes


def pretrained_arrays(encoder, prefix: str = "") -> dict[str, np.ndarray]:
    """The encoder's pretrained table as a model file stores it (float16, under
    PREFIX + `Pretrained.ARRAY`), or nothing."""
    table = encoder.pretrained_table
    return {} if table is None else {prefix + Pretrained.ARRAY: table.vectors}


def pretrained_meta(encoder) -> dict[str, Any] | None:
    """What a model's metadata records of its encoder's pretrained table (None: none)."""
    table = encoder.pretrained_table
    return None if table is None else table.meta()


def saved_pretrained(arrays: dict[str, np.ndarray], meta: Any, source: str,
                     prefix: str = "", rows: int | None = None) -> Pretrained | None:
    """The pretrained table of a model file (`Pretrained.from_saved`) whose metadata
    records one (`meta`: its "embeddings" entry, None without), for a lowercased-form
    vocabulary of `rows` words if given; ArcwiseError for an array without a record."""
    if meta is None:
        if prefix + Pretrained.ARRAY in arrays:
            raise ArcwiseError(f"{source}: corrupt model file (pretrained vectors without "
                               "their metadata)")
        return None
    return Pretrained.from_saved(arrays, meta, source, prefix, rows)


def form_counts(words: np.ndarray, vocabularies) -> np.ndarray:
    """How often each lowercased form occurs in a words matrix (for word dropout)."""
    return np.bincount(words[:, wc.LOWER], minlength=len(vocabularies.lower)).astype(np.float64)


def encoder_inputs(batch, form_counts: np.ndarray | None, word_dropout: float,
                   rng: np.random.Generator | None, chars: bool = False,
                   device: Any = "cpu", pretrained: bool = False) -> EncoderInputs:
    """The `EncoderInputs` of a batch (`arcwise.features.batch.Batch` or `arcwise.features.batch.sub_batch`;
    its forms only if chars, its guide's tree if it has one) for a network on `device`
    (`device_of`).  With form_counts and rng, a
    form is replaced by the unknown word with probability a / (a + its count) (word
    dropout; its characters stay), and for a network with pretrained vectors, its
    vector too with probability `PRETRAINED_DROPOUT`."""
    words, offsets = batch.words, batch.offsets
    columns = words[:, (*EMBEDDED, wc.LOWER)].astype(np.int64)
    if rng is not None and form_counts is not None:
        counts = form_counts[np.minimum(columns[:, 0], len(form_counts) - 1)]
        drop = rng.random(len(columns)) < word_dropout / (word_dropout + counts)
        drop &= columns[:, 0] > 1  # never the root
        columns[drop, 0] = UNKNOWN
        if pretrained:
            columns[drop & (rng.random(len(columns)) < PRETRAINED_DROPOUT),
                    PRETRAINED] = UNKNOWN
    sizes = np.diff(offsets)
    where = (np.concatenate([np.arange(s) for s in sizes]) if len(sizes)
             else np.zeros(0, dtype=np.int64))
    sentence = np.repeat(np.arange(len(sizes)), sizes)
    forms = np.asarray(batch.forms, dtype=object) if chars else None
    guide = (words[:, [wc.GUIDE_HEAD, wc.GUIDE_LABEL]].astype(np.int64) if batch.guided
             else None)
    return EncoderInputs(torch.from_numpy(columns).to(device), torch.from_numpy(sizes), sentence,
                         where, forms, guide, device)


