"""The BiLSTM scorer of Kiperwasser & Goldberg (2016), as the 2018 paper trains it: a
BiLSTM over the words, the feature words' vectors concatenated, an MLP scoring every
labeled transition (`BiLSTMScorer`, behind `arcwise.transition.scorers.scorer.Scorer`).

Non-local Covington (covington-nl; Fernández-González & Gómez-Rodríguez 2018) scores each
candidate k from its own words: the MLPs score the kinds (shift, left-arc, right-arc) with
their labels at a row of positions per candidate, the configuration's own for shift and
k = 1, that of the configuration with FOCUS = i_k for k >= 2
(`arcwise.transition.candidates.CandidateRows`); every legal k is scored."""

from __future__ import annotations

import copy
from dataclasses import asdict
from typing import Any

import numpy as np

from arcwise.core.device import current_device
from arcwise.core.errors import ArcwiseError
from arcwise.features import words as wc
from arcwise.features.templates import DEFAULT_NEURAL_FEATURES, neural_addresses
from arcwise.learn.neural import (
    Encoder,
    Sizes,
    char_vocabulary,
    configured,
    decayed,
    encoder_inputs,
    form_counts,
    need_torch,
    nn,
    pretrained_arrays,
    pretrained_meta,
    saved_pretrained,
    state_arrays,
    torch,
    vocabulary_sizes,
)
from arcwise.transition.candidates import CandidateRows
from arcwise.transition.steps import best_legal

try:
    import torch
    from torch import nn
except ImportError:  # pragma: no cover - the neural extra is not installed
    torch = None
    nn = None


class Network(nn.Module if nn is not None else object):
    """The encoder and the two MLPs (see the module docstring)."""

    def __init__(self, vocabulary_sizes: list[int], n_bases: int, n_columns: int,
                 n_slots: int, sizes: Sizes, chars: str = "", guide_labels: int = 0,
                 pretrained=None):
        super().__init__()
        self.encoder = Encoder(vocabulary_sizes, sizes, sizes.dropout, chars, guide_labels,
                               pretrained)
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
        hidden = shares[index, torch.arange(self.n_bases, device=index.device)].sum(1)
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
        # positions and scores of the last `scores` call, for `learn`
        self.last_positions: np.ndarray | CandidateRows | None = None
        self.last_scores: np.ndarray | None = None
        # (positions, right classes, wrong classes) of each `learn` call's configurations
        self.learned: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        # a parameterised system's: (positions, class) of each learned configuration's best
        # right decision, then of its best wrong one
        self.pairs: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self.configurations = 0


class BiLSTMScorer:
    """The `arcwise.transition.scorers.scorer.Scorer` of a BiLSTM (see the module docstring)."""

    kind = "bilstm"

    def __init__(self, addresses: tuple[str, ...], classes, vocabulary_sizes: list[int],
                 sizes: Sizes = Sizes(), seed: int = 0, chars: str = "", guide_labels: int = 0,
                 pretrained=None, features: str = DEFAULT_NEURAL_FEATURES):
        """addresses: the words it reads (`neural_addresses`), features: their set's name (or
        the addresses as given); pretrained: an `arcwise.learn.embeddings.Pretrained` table
        (or None)."""
        need_torch()
        torch.manual_seed(seed)
        self.addresses = tuple(addresses)
        self.features = features
        self.sizes = sizes
        self.vocabulary_sizes = list(vocabulary_sizes)
        self.n_unlabeled = classes.n_unlabeled
        self.device = torch.device(current_device())
        self.network = Network(self.vocabulary_sizes, len(self.addresses), classes.n_columns,
                               classes.n_slots, sizes, chars, guide_labels,
                               pretrained).to(self.device)
        self.guide_labels = guide_labels
        # class c's transition score is column `column_of_class[c]` of the transition MLP
        column = {int(a): k for k, a in enumerate(classes.column_action)}
        self.column_of_class = torch.tensor([column[int(a)] for a in classes.transition],
                                            device=self.device)
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=sizes.learning_rate)
        self.schedule = decayed(self.optimizer, sizes)
        self.form_counts: np.ndarray | None = None
        self.rng = np.random.default_rng(seed)

    @classmethod
    def for_training(cls, run, options: dict[str, Any]) -> BiLSTMScorer:
        """A new scorer for a training run (`arcwise.transition.train.TrainingRun`, its
        pretrained vectors too) with options `Sizes` fields, features (the words it reads: a
        set name of the system's, or addresses; `arcwise.features.templates.neural_addresses`)
        and threads (torch's; 0: its default); records them in the log."""
        options = dict(options)
        features = options.pop("features", DEFAULT_NEURAL_FEATURES)
        addresses = neural_addresses(run.ts.kernels.system_id, features)
        sizes, threads = configured(options, Sizes)
        chars = char_vocabulary(run.batch.forms) if sizes.chars else ""
        guide_labels = len(run.vocabularies.deprel) if run.batch.guided else 0
        scorer = cls(addresses, run.classes,
                     vocabulary_sizes(run.vocabularies, run.pretrained), sizes, run.seed, chars,
                     guide_labels, run.pretrained, features)
        scorer.form_counts = form_counts(run.batch.words, run.vocabularies)
        run.log["hyperparameters"].update(sizes=asdict(sizes), features=features,
                                          addresses=list(addresses),
                                          threads=threads or torch.get_num_threads())
        return scorer

    @property
    def guided(self) -> bool:
        """Does it score with a guide's trees (stacking, 2011 paper §5.3)?"""
        return bool(self.guide_labels)

    @property
    def pretrained(self):
        """Its `arcwise.learn.embeddings.Pretrained` table, or None."""
        return self.network.encoder.pretrained_table

    # --- the Scorer protocol -----------------------------------------------

    def encode(self, batch, train: bool) -> Context:
        """The BiLSTM vectors of a `arcwise.features.batch.Batch`'s words."""
        self.network.train(train)
        inputs = encoder_inputs(batch, self.form_counts, self.sizes.word_dropout,
                                self.rng if train else None, chars=bool(self.sizes.chars),
                                device=self.device, pretrained=self.pretrained is not None)
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
        index = torch.from_numpy(np.where(positions >= 0, positions, missing)).to(self.device)
        pairs = None
        if context.guide_heads is not None:
            heads = np.where(positions >= 0, context.guide_heads[np.maximum(positions, 0)], -2)
            pairs = torch.from_numpy(((heads[:, :, None] == positions[:, None, :])
                                      & (positions[:, None, :] >= 0))
                                     .reshape(len(positions), -1).astype(np.float32)
                                     ).to(self.device)
        transition, label = self.network.mlp_scores(context.shares, index, pairs)
        transition = transition[:, self.column_of_class]
        n_labeled = transition.shape[1] - self.n_unlabeled
        if n_labeled:
            transition = transition + torch.cat(
                [torch.zeros(len(positions), self.n_unlabeled, device=self.device),
                 label[:, :n_labeled]], 1)
        return transition

    def scores(self, context: Context, states: np.ndarray, rows: np.ndarray,
               positions: np.ndarray | CandidateRows, legal: np.ndarray) -> np.ndarray:
        """Class scores of the configurations (positions: -1 = no word -> missing vector);
        with `CandidateRows`, decision scores, each from its candidate's row."""
        candidate = isinstance(positions, CandidateRows)
        with torch.no_grad():
            scores = self.class_scores(context, positions.positions if candidate else positions)
        scores = scores.cpu().numpy().astype(np.float64)
        if candidate:
            scores = positions.spread(scores)
        context.last_positions, context.last_scores = positions, scores
        return scores

    def best(self, context: Context, scores: np.ndarray, legal: np.ndarray) -> np.ndarray:
        return best_legal(scores, legal)

    def learn(self, context: Context, target: np.ndarray, zero_cost: np.ndarray,
              legal: np.ndarray) -> None:
        """Keep the last scored configurations that have a right and a wrong class, for
        `update`'s hinge loss."""
        wrong = legal & ~zero_cost
        has = zero_cost.any(1) & wrong.any(1)
        context.configurations += len(zero_cost)
        if not has.any():
            return
        positions = context.last_positions
        if isinstance(positions, CandidateRows):
            # the hinge's gradient reaches the best right and the best wrong decision
            # only: keep their rows, not every candidate's
            scores, rows = context.last_scores[has], np.flatnonzero(has)
            right = positions.cells(rows, best_legal(scores, zero_cost[has]))
            worst = positions.cells(rows, best_legal(scores, wrong[has]))
            context.pairs.append((positions.positions[right[0]], right[1],
                                  positions.positions[worst[0]], worst[1]))
        else:
            context.learned.append((positions[has], zero_cost[has], wrong[has]))

    def update(self, context: Context) -> float:
        """One Adam step on the hinge loss of the batch's learned configurations (the best
        right class 1 above the best wrong one), summed and averaged over all its scored
        configurations; returns that loss.  The scores are computed again, all at once,
        with gradients: the network does not change within a batch (a parameterised
        system's: the rows of the best right and the best wrong decision, `learn`)."""
        if context.pairs:
            right, right_class, wrong, wrong_class = (np.concatenate(k)
                                                      for k in zip(*context.pairs))
            scores = self.class_scores(context, np.concatenate([right, wrong]))
            rows = torch.arange(len(right), device=self.device)
            best_right = scores[rows, torch.from_numpy(right_class).to(self.device)]
            best_wrong = scores[len(right) + rows, torch.from_numpy(wrong_class).to(self.device)]
        elif context.learned:
            positions, right, wrong = (np.concatenate(k) for k in zip(*context.learned))
            scores = self.class_scores(context, positions)
            low = torch.finfo(scores.dtype).min
            best_right = scores.masked_fill(~torch.from_numpy(right).to(self.device),
                                            low).max(1).values
            best_wrong = scores.masked_fill(~torch.from_numpy(wrong).to(self.device),
                                            low).max(1).values
        else:
            return 0.0
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
        """The network's parameters as float32 arrays named net__MODULE__PARAM (and its
        pretrained vectors, float16)."""
        return {**state_arrays(self.network), **pretrained_arrays(self.network.encoder)}

    def meta(self) -> dict[str, Any]:
        meta = {"features": self.features, "addresses": list(self.addresses),
                "sizes": asdict(self.sizes),
                "vocabulary_sizes": self.vocabulary_sizes,
                "chars": self.network.encoder.chars_vocabulary,
                "guide_labels": self.guide_labels}
        if self.pretrained is not None:
            meta["embeddings"] = pretrained_meta(self.network.encoder)
        return meta

    @classmethod
    def from_saved(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any], classes,
                   source: str) -> BiLSTMScorer:
        """The scorer a model file holds; ArcwiseError if its arrays do not fit its sizes."""
        pretrained = saved_pretrained(arrays, meta.get("embeddings"), source)
        try:
            sizes = Sizes(**meta["sizes"])
            # "bases": a model file written before feature sets (the words alone)
            addresses = tuple(meta["addresses"] if "addresses" in meta else meta["bases"])
            scorer = cls(addresses, classes, list(meta["vocabulary_sizes"]), sizes,
                         chars=str(meta.get("chars", "")),
                         guide_labels=int(meta.get("guide_labels", 0)), pretrained=pretrained,
                         features=str(meta.get("features", " ".join(addresses))))
        except (KeyError, TypeError, ValueError) as error:
            raise ArcwiseError(f"{source}: bad bilstm metadata ({error})") from None
        if pretrained is not None and pretrained.trained_words != scorer.vocabulary_sizes[0]:
            raise ArcwiseError(f"{source}: corrupt model file (pretrained vectors for "
                               f"{pretrained.trained_words} training words, a word table of "
                               f"{scorer.vocabulary_sizes[0]})")
        expected = state_arrays(scorer.network)
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
