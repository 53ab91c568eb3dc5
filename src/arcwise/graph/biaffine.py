"""Biaffine arc and label scorers over a BiLSTM (Dozat & Manning 2017, §2).

The encoder is the transition scorer's (`arcwise.learn.neural.Encoder`, with
dropout).  Each word gets four smaller vectors from ReLU MLPs of its BiLSTM
vector: as a dependent and as a head, for arcs and for labels.  The score of
the arc h -> d is a biaffine function of d's and h's arc vectors (a bilinear
term plus a term of the head alone); the score of label l on h -> d a
biaffine function of their label vectors.  Training minimizes the
cross-entropy of each word's gold head among all words, and of its gold label
given the gold head.

A guided network (stacking, 2011 paper §5.3, as a neural graph-based parser
guided by a transition-based one) also reads the guide's tree: each word's
guide label is embedded into the encoder's input, the arc h -> d gains a
learned weight when the guide made it, and label l on it a learned weight per
(guide label, l).
"""

from __future__ import annotations

from dataclasses import dataclass

from arcwise.core.device import current_device
from arcwise.learn.neural import Encoder, Sizes, need_torch

try:
    import torch
    from torch import nn
except ImportError:  # pragma: no cover - the neural extra is not installed
    torch = None
    nn = None


@dataclass(frozen=True)
class BiaffineSizes(Sizes):
    """`Sizes` of the encoder, and the biaffine scorers' own."""

    arc: int = 100  # the arc MLPs' output
    label: int = 50  # the label MLPs' output
    dropout: float = 0.33
    learning_rate: float = 2e-3


def mlp(width: int, out: int, dropout: float):
    return nn.Sequential(nn.Linear(width, out), nn.ReLU(), nn.Dropout(dropout))


class BiaffineNetwork(nn.Module if nn is not None else object):
    """Encoder, the four MLPs and the two biaffine scorers (see the module docstring), on
    `arcwise.core.device.current_device()`."""

    def __init__(self, vocabulary_sizes: list[int], n_labels: int, sizes: BiaffineSizes,
                 chars: str = "", guide_labels: int = 0, pretrained=None):
        """pretrained: the encoder's `arcwise.learn.embeddings.Pretrained` table, or None."""
        need_torch()
        super().__init__()
        self.encoder = Encoder(vocabulary_sizes, sizes, sizes.dropout, chars, guide_labels,
                               pretrained)
        self.guided = bool(guide_labels)  # guide_labels: the deprel vocabulary's size
        width = self.encoder.width
        self.arc_dependent = mlp(width, sizes.arc, sizes.dropout)
        self.arc_head = mlp(width, sizes.arc, sizes.dropout)
        self.label_dependent = mlp(width, sizes.label, sizes.dropout)
        self.label_head = mlp(width, sizes.label, sizes.dropout)
        self.arc_weight = nn.Parameter(torch.zeros(sizes.arc, sizes.arc))
        self.arc_head_weight = nn.Parameter(torch.zeros(sizes.arc))
        self.label_weight = nn.Parameter(torch.zeros(n_labels, sizes.label + 1, sizes.label + 1))
        if self.guided:
            self.guide_arc = nn.Parameter(torch.zeros(()))
            self.guide_label = nn.Parameter(torch.zeros(guide_labels, n_labels))
        self.to(current_device())

    def forward(self, inputs):
        """(arc scores [s, dependent, head], label vectors [words, label + 1] of each word
        as a dependent and as a head, in the batch's word order) of
        `arcwise.learn.neural.EncoderInputs`."""
        words = self.encoder(inputs)
        dependent = inputs.padded(self.arc_dependent(words))
        head = inputs.padded(self.arc_head(words))
        arcs = (dependent @ self.arc_weight) @ head.transpose(1, 2)  # [s, dependent, head]
        arcs = arcs + (head @ self.arc_head_weight)[:, None, :]
        if self.guided:
            guide_heads = inputs.tensor(inputs.padded_guide()[:, :, 0])
            made = guide_heads[:, :, None] == torch.arange(arcs.shape[2],
                                                           device=arcs.device)[None, None, :]
            arcs = arcs + self.guide_arc * made
        ones = torch.ones(len(words), 1, device=words.device)
        label_dependent = torch.cat([self.label_dependent(words), ones], -1)
        label_head = torch.cat([self.label_head(words), ones], -1)
        return arcs, label_dependent, label_head

    def label_scores(self, label_dependent, label_head, heads: torch.Tensor,
                     inputs) -> torch.Tensor:
        """Label scores [s, dependent, labels] of each word's arc from heads[s, dependent]
        (on the network's device), 0 where there is no word: only the batch's words are
        scored, not the padding."""
        sentence, where = inputs.tensor(inputs.sentence), inputs.tensor(inputs.where)
        lengths = inputs.lengths.to(heads.device)
        first_row = torch.cumsum(lengths, 0) - lengths  # of each sentence
        word_heads = heads[sentence, where]
        chosen = label_head[first_row[sentence] + word_heads.clamp(min=0)]
        scores = nn.functional.bilinear(label_dependent, chosen,  # faster than einsum
                                        self.label_weight)
        if self.guided:
            guide = inputs.tensor(inputs.guide)  # [words, (guide head, guide label)]
            as_guide = (word_heads == guide[:, 0]) & (word_heads >= 0)
            scores = scores + self.guide_label[guide[:, 1].clamp(min=0)] * as_guide[:, None]
        return inputs.padded(scores)
