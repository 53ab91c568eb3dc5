"""A BiLSTM scorer of transitions (Kiperwasser & Goldberg 2016, §3 and §5).

Every word is the concatenation of embeddings of its lowercased form, its
suffix and shape (`arcwise.vocab.form_signature`: what an unknown word
still has), optionally the final states of a BiLSTM over its characters
(`Sizes.chars`; Ballesteros et al. 2015, Dozat et al. 2017), and its UPOS,
XPOS and FEATS; a 2-layer BiLSTM reads the
sentence; a configuration is the concatenation of the BiLSTM vectors of the
words at the system's base positions (`SystemKernels.bases`; a learned
vector where there is no word); two MLPs score it, one per transition and
one per (arc transition, label), and a labeled class scores the sum.

Training minimizes the hinge loss max(0, 1 - max right + max wrong) over
the legal classes, the right ones being the oracle's zero-cost classes; a
form is replaced by the unknown word with probability a / (a + count)
(word dropout, a = 0.25).  Parameters are saved as float32 numpy arrays in
the model file, never as a pickle.  Needs the neural extra (torch).
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple

import numpy as np

from arcwise.errors import ArcwiseError
from arcwise.features import words as wc
from arcwise.features.addresses import BASE_NAMES
from arcwise.steps import best_legal

try:
    import torch
    from torch import nn
except ImportError:  # pragma: no cover - the neural extra is not installed
    torch = None
    nn = None

# the words-matrix columns embedded, in order
EMBEDDED = (wc.LOWER, wc.SUFFIX, wc.SHAPE, wc.UPOS, wc.XPOS, wc.FEATS)
UNKNOWN = 0  # `arcwise.vocab.UNKNOWN`


def need_torch() -> None:
    """ArcwiseError unless torch (the neural extra) is installed."""
    if torch is None:
        raise ArcwiseError("the bilstm model needs torch: pip install 'arcwise[neural]'")


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
    # training (Dozat & Manning 2017: 0.33); 0 = none, as Kiperwasser & Goldberg 2016
    dropout: float = 0.0
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


def configured(options: dict[str, Any], sizes_class: type) -> tuple[Any, int]:
    """``(sizes_class(**options), threads)`` of a neural model's options, with torch set to
    that many threads (``threads``; 0: torch's default) and deterministic algorithms."""
    options = dict(options)
    threads = int(options.pop("threads", 0))
    try:
        sizes = sizes_class(**options)
    except TypeError as error:
        raise ValueError(f"unknown neural option ({error})") from None
    if threads:
        torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
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
        packed = nn.utils.rnn.pack_padded_sequence(
            self.embedding(torch.from_numpy(ids)), torch.from_numpy(lengths),
            batch_first=True, enforce_sorted=False)
        _, (final, _) = self.lstm(packed)  # final: [2 directions, types, chars]
        vectors = torch.cat([final[0], final[1]], -1)
        return vectors[torch.from_numpy(inverse.reshape(-1))].reshape(*forms.shape, -1)


class EncoderInputs(NamedTuple):
    """A batch as the encoder reads it, one row per batch word (no padding): the word ids
    [words, 6], the sentence lengths, (sentence, position) of each word, the forms (or
    None), and for a guided model (stacking) each word's guide head (-1: none) and guide
    label id [words, 2] (or None).  `padded` lays any per-word rows out as
    [sentences, longest, ...]."""

    columns: Any
    lengths: Any
    sentence: np.ndarray
    where: np.ndarray
    forms: np.ndarray | None
    guide: np.ndarray | None = None

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
        out = torch.full((*self.shape, *rows.shape[1:]), fill, dtype=rows.dtype)
        return out.index_put((torch.from_numpy(self.sentence), torch.from_numpy(self.where)),
                             rows)

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
    ordered as `pack_padded_sequence` orders them, so the LSTM sees the same data."""
    lengths, sorted_indices = torch.sort(inputs.lengths, descending=True)
    unsorted_indices = torch.empty_like(sorted_indices)
    unsorted_indices[sorted_indices] = torch.arange(len(sorted_indices))
    batch_sizes = (lengths[None, :] > torch.arange(int(lengths[0]))[:, None]).sum(1)
    starts = torch.cumsum(batch_sizes, 0) - batch_sizes
    row = (starts[torch.from_numpy(inputs.where)]
           + unsorted_indices[torch.from_numpy(inputs.sentence)])
    data = torch.empty_like(rows).index_copy(0, row, rows)
    return nn.utils.rnn.PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices), row


class Encoder(nn.Module if nn is not None else object):
    """Embeddings of each word's columns (`EMBEDDED`, or its first columns: one per
    vocabulary size), its characters' vector if
    `Sizes.chars`, its guide label's if guided (guide_labels: the deprel vocabulary's
    size), and a BiLSTM over the sentence."""

    def __init__(self, vocabulary_sizes: list[int], sizes: Sizes, dropout: float = 0.0,
                 chars: str = "", guide_labels: int = 0):
        super().__init__()
        # the first len(vocabulary_sizes) columns of `EMBEDDED` (a tagger's: the first 3)
        dims = (sizes.word, sizes.suffix, sizes.shape, sizes.tag, sizes.tag,
                sizes.tag)[: len(vocabulary_sizes)]
        self.embeddings = nn.ModuleList(
            nn.Embedding(max(v, 2), d) for v, d in zip(vocabulary_sizes, dims))
        self.chars = CharEncoder(chars, sizes) if sizes.chars else None
        self.chars_vocabulary = chars if sizes.chars else ""
        self.guide_label = nn.Embedding(guide_labels, sizes.tag) if guide_labels else None
        width = (sum(dims) + (self.chars.width if self.chars is not None else 0)
                 + (sizes.tag if guide_labels else 0))
        self.dropout = nn.Dropout(dropout)
        self.lstm = nn.LSTM(width, sizes.lstm, num_layers=sizes.layers,
                            bidirectional=True, batch_first=True,
                            dropout=dropout if sizes.layers > 1 else 0.0)
        self.width = 2 * sizes.lstm

    def forward(self, inputs: EncoderInputs) -> torch.Tensor:
        """BiLSTM vectors [words, width] of a batch's words, in its order."""
        columns = inputs.columns
        embedded = [e(columns[:, k]) for k, e in enumerate(self.embeddings)]
        if self.chars is not None:
            embedded.append(self.chars(inputs.forms))
        if self.guide_label is not None:
            embedded.append(self.guide_label(torch.from_numpy(inputs.guide[:, 1])))
        sequences, row = packed(self.dropout(torch.cat(embedded, -1)), inputs)
        out, _ = self.lstm(sequences)
        return self.dropout(out.data[row])


def vocabulary_sizes(vocabularies) -> list[int]:
    """The embedding table sizes of the `EMBEDDED` columns (`arcwise.vocab.Vocabularies`)."""
    return [len(getattr(vocabularies, c)) for c in
            ("lower", "suffix", "shape", "upos", "xpos", "feats")]


def form_counts(words: np.ndarray, vocabularies) -> np.ndarray:
    """How often each lowercased form occurs in a words matrix (for word dropout)."""
    return np.bincount(words[:, wc.LOWER], minlength=len(vocabularies.lower)).astype(np.float64)


def encoder_inputs(batch, form_counts: np.ndarray | None, word_dropout: float,
                   rng: np.random.Generator | None, chars: bool = False) -> EncoderInputs:
    """The `EncoderInputs` of a batch (`arcwise.parse.Batch` or `arcwise.stepped.sub_batch`;
    its forms only if chars, its guide's tree if it has one).  With form_counts and rng, a
    form is replaced by the unknown word with probability a / (a + its count) (word
    dropout; its characters stay)."""
    words, offsets = batch.words, batch.offsets
    columns = words[:, EMBEDDED].astype(np.int64)
    if rng is not None and form_counts is not None:
        counts = form_counts[np.minimum(columns[:, 0], len(form_counts) - 1)]
        drop = rng.random(len(columns)) < word_dropout / (word_dropout + counts)
        columns[drop & (columns[:, 0] > 1), 0] = UNKNOWN  # never the root
    sizes = np.diff(offsets)
    where = (np.concatenate([np.arange(s) for s in sizes]) if len(sizes)
             else np.zeros(0, dtype=np.int64))
    sentence = np.repeat(np.arange(len(sizes)), sizes)
    forms = np.asarray(batch.forms, dtype=object) if chars else None
    guide = (words[:, [wc.GUIDE_HEAD, wc.GUIDE_LABEL]].astype(np.int64) if batch.guided
             else None)
    return EncoderInputs(torch.from_numpy(columns), torch.from_numpy(sizes), sentence, where,
                         forms, guide)


class Network(nn.Module if nn is not None else object):
    """The encoder and the two MLPs (see the module docstring)."""

    def __init__(self, vocabulary_sizes: list[int], n_bases: int, n_columns: int,
                 n_slots: int, sizes: Sizes, chars: str = "", guide_labels: int = 0):
        super().__init__()
        self.encoder = Encoder(vocabulary_sizes, sizes, sizes.dropout, chars, guide_labels)
        width = self.encoder.width
        self.missing = nn.Parameter(torch.zeros(width))
        self.transition = nn.Sequential(nn.Linear(n_bases * width, sizes.hidden), nn.Tanh(),
                                        nn.Linear(sizes.hidden, n_columns))
        self.label = nn.Sequential(nn.Linear(n_bases * width, sizes.hidden), nn.Tanh(),
                                   nn.Linear(sizes.hidden, max(n_slots, 1)))
        self.n_bases, self.width = n_bases, width
        # guided (stacking): which base's guide head is which base, into both first layers
        self.guide_pairs = (nn.Linear(n_bases * n_bases, 2 * sizes.hidden, bias=False)
                            if guide_labels else None)

    def first_layers(self, vectors: torch.Tensor) -> torch.Tensor:
        """Each word's share of both MLPs' first layers, at each base position:
        [words, bases, 2 hidden].  A configuration's first layers are then the sum
        over its bases of its words' shares (plus the biases), instead of a product
        of the concatenated vectors per configuration (Chen & Manning 2014, §3.2)."""
        shares = [layer[0].weight.reshape(-1, self.n_bases, self.width)
                  for layer in (self.transition, self.label)]
        return torch.einsum("nw,hkw->nkh", vectors, torch.cat(shares, 0))

    def mlp_scores(self, shares: torch.Tensor, index: torch.Tensor,
                   guide_pairs: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """(transition scores, label scores) of configurations whose words at the bases are
        index [configurations, bases] (rows of `first_layers`' shares); guide_pairs
        [configurations, bases * bases], a guided network's: is base b the guide head of
        base a."""
        hidden = shares[index, torch.arange(self.n_bases)].sum(1)
        if guide_pairs is not None:
            hidden = hidden + self.guide_pairs(guide_pairs)
        size = self.transition[0].out_features
        transition = self.transition[2](torch.tanh(hidden[:, :size] + self.transition[0].bias))
        label = self.label[2](torch.tanh(hidden[:, size:] + self.label[0].bias))
        return transition, label


class Context:
    """One batch's BiLSTM vectors (flat: a row per batch word, then the missing vector) and,
    in training, the configurations to learn from, gathered while stepping through it."""

    def __init__(self, vectors: torch.Tensor, shares: torch.Tensor, train: bool,
                 guide_heads: np.ndarray | None = None):
        self.train = train
        self.guide_heads = guide_heads  # a guided batch's: each word's guide head's row, or -1
        self.vectors = vectors
        self.shares = shares  # `Network.first_layers` of the vectors
        self.last_positions: np.ndarray | None = None  # of the last `scores` call, for `learn`
        # (positions, right classes, wrong classes) of each `learn` call's configurations
        self.learned: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.configurations = 0


class BiLSTMScorer:
    """The `arcwise.models.scorer.Scorer` of a BiLSTM (see the module docstring)."""

    kind = "bilstm"

    def __init__(self, bases: tuple[str, ...], classes, vocabulary_sizes: list[int],
                 sizes: Sizes = Sizes(), seed: int = 0, chars: str = "", guide_labels: int = 0):
        need_torch()
        torch.manual_seed(seed)
        self.bases = tuple(bases)
        self.base_codes = np.array([BASE_NAMES.index(b) for b in self.bases], dtype=np.int64)
        self.sizes = sizes
        self.vocabulary_sizes = list(vocabulary_sizes)
        self.n_unlabeled = classes.n_unlabeled
        self.network = Network(self.vocabulary_sizes, len(self.bases), classes.n_columns,
                               classes.n_slots, sizes, chars, guide_labels)
        self.guide_labels = guide_labels
        # class c's transition score is column `column_of_class[c]` of the transition MLP
        column = {int(a): k for k, a in enumerate(classes.column_action)}
        self.column_of_class = torch.tensor([column[int(a)] for a in classes.transition])
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=sizes.learning_rate)
        self.schedule = decayed(self.optimizer, sizes)
        self.form_counts: np.ndarray | None = None
        self.rng = np.random.default_rng(seed)

    @classmethod
    def for_training(cls, run, options: dict[str, Any]) -> BiLSTMScorer:
        """A new scorer for a training run (`arcwise.train.TrainingRun`) with options
        `Sizes` fields and threads (torch's; 0: its default); records them in the log."""
        sizes, threads = configured(options, Sizes)
        chars = char_vocabulary(run.batch.forms) if sizes.chars else ""
        guide_labels = len(run.vocabularies.deprel) if run.batch.guided else 0
        scorer = cls(run.ts.kernels.bases, run.classes, vocabulary_sizes(run.vocabularies),
                     sizes, run.seed, chars, guide_labels)
        scorer.form_counts = form_counts(run.batch.words, run.vocabularies)
        run.log["hyperparameters"].update(sizes=asdict(sizes),
                                          threads=threads or torch.get_num_threads())
        return scorer

    @property
    def guided(self) -> bool:
        """Does it score with a guide's trees (stacking, 2011 paper §5.3)?"""
        return bool(self.guide_labels)

    # --- the Scorer protocol -----------------------------------------------

    def encode(self, batch, train: bool) -> Context:
        """The BiLSTM vectors of a `arcwise.parse.Batch`'s words."""
        self.network.train(train)
        inputs = encoder_inputs(batch, self.form_counts, self.sizes.word_dropout,
                                self.rng if train else None, chars=bool(self.sizes.chars))
        with torch.set_grad_enabled(train):
            flat = torch.cat([self.network.encoder(inputs), self.network.missing[None, :]])
            shares = self.network.first_layers(flat)
        guide_heads = None
        if self.guided:
            head = batch.words[:, wc.GUIDE_HEAD].astype(np.int64)
            first = np.repeat(batch.offsets[:-1], np.diff(batch.offsets))
            guide_heads = np.where(head >= 0, first + head, -1)
        return Context(flat, shares, train, guide_heads)

    def class_scores(self, context: Context, positions: np.ndarray) -> torch.Tensor:
        """Class scores [configurations, classes] of configurations whose words at the bases
        are `positions` (-1 = no word -> the missing vector)."""
        missing = context.vectors.shape[0] - 1
        index = torch.from_numpy(np.where(positions >= 0, positions, missing))
        pairs = None
        if context.guide_heads is not None:
            heads = np.where(positions >= 0, context.guide_heads[np.maximum(positions, 0)], -2)
            pairs = torch.from_numpy(((heads[:, :, None] == positions[:, None, :])
                                      & (positions[:, None, :] >= 0))
                                     .reshape(len(positions), -1).astype(np.float32))
        transition, label = self.network.mlp_scores(context.shares, index, pairs)
        transition = transition[:, self.column_of_class]
        n_labeled = transition.shape[1] - self.n_unlabeled
        if n_labeled:
            transition = transition + torch.cat(
                [torch.zeros(len(positions), self.n_unlabeled), label[:, :n_labeled]], 1)
        return transition

    def scores(self, context: Context, states: np.ndarray, rows: np.ndarray,
               positions: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Class scores of the configurations (positions: -1 = no word -> missing vector)."""
        with torch.no_grad():
            scores = self.class_scores(context, positions)
        context.last_positions = positions
        return scores.numpy().astype(np.float64)

    def best(self, context: Context, scores: np.ndarray, legal: np.ndarray) -> np.ndarray:
        return best_legal(scores, legal)

    def learn(self, context: Context, target: np.ndarray, zero_cost: np.ndarray,
              legal: np.ndarray) -> None:
        """Keep the last scored configurations that have a right and a wrong class, for
        `update`'s hinge loss."""
        wrong = legal & ~zero_cost
        has = zero_cost.any(1) & wrong.any(1)
        context.configurations += len(zero_cost)
        if has.any():
            context.learned.append((context.last_positions[has], zero_cost[has], wrong[has]))

    def update(self, context: Context) -> float:
        """One Adam step on the hinge loss of the batch's learned configurations (the best
        right class 1 above the best wrong one), summed and averaged over all its scored
        configurations; returns that loss.  The scores are computed again, all at once,
        with gradients: the network does not change within a batch."""
        if not context.learned:
            return 0.0
        positions, right, wrong = (np.concatenate(k) for k in zip(*context.learned))
        scores = self.class_scores(context, positions)
        low = torch.finfo(scores.dtype).min
        best_right = scores.masked_fill(~torch.from_numpy(right), low).max(1).values
        best_wrong = scores.masked_fill(~torch.from_numpy(wrong), low).max(1).values
        loss = torch.clamp(1 - best_right + best_wrong, min=0).sum() / max(
            context.configurations, 1)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        if self.schedule is not None:
            self.schedule.step()
        return float(loss.detach())

    def snapshot(self) -> dict:
        return copy.deepcopy(self.network.state_dict())

    def restore(self, snapshot: dict) -> None:
        self.network.load_state_dict(snapshot)
        self.network.eval()

    # --- model files -------------------------------------------------------

    def arrays(self) -> dict[str, np.ndarray]:
        """The network's parameters as float32 arrays named net__MODULE__PARAM."""
        return {
            "net__" + name.replace(".", "__"): p.detach().numpy().astype(np.float32)
            for name, p in self.network.state_dict().items()
        }

    def meta(self) -> dict[str, Any]:
        return {"bases": list(self.bases), "sizes": asdict(self.sizes),
                "vocabulary_sizes": self.vocabulary_sizes,
                "chars": self.network.encoder.chars_vocabulary,
                "guide_labels": self.guide_labels}

    @classmethod
    def from_saved(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any], classes,
                   source: str) -> BiLSTMScorer:
        """The scorer a model file holds; ArcwiseError if its arrays do not fit its sizes."""
        try:
            sizes = Sizes(**meta["sizes"])
            scorer = cls(tuple(meta["bases"]), classes, list(meta["vocabulary_sizes"]), sizes,
                         chars=str(meta.get("chars", "")),
                         guide_labels=int(meta.get("guide_labels", 0)))
        except (KeyError, TypeError, ValueError) as error:
            raise ArcwiseError(f"{source}: bad bilstm metadata ({error})") from None
        expected = scorer.arrays()
        if set(expected) != {k for k in arrays if k.startswith("net__")}:
            raise ArcwiseError(f"{source}: corrupt model file (the network's arrays differ "
                               "from its recorded sizes)")
        state = {}
        for name, array in expected.items():
            if arrays[name].shape != array.shape:
                raise ArcwiseError(f"{source}: corrupt model file (array {name!r} has shape "
                                   f"{arrays[name].shape}, not {array.shape})")
            state[name[5:].replace("__", ".")] = torch.from_numpy(
                np.array(arrays[name], dtype=np.float32))
        scorer.network.load_state_dict(state)
        scorer.network.eval()
        return scorer
