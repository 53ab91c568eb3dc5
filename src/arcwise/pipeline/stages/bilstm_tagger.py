"""A BiLSTM tagger: UPOS, XPOS and FEATS from the BiLSTM parser's word encoder (Plank et
al. 2016; the tagger of UDPipe 2, Straka 2018).

Each word is read as the BiLSTM parser reads it (`arcwise.learn.neural.Encoder`: the
embeddings of its lowercased form, suffix and shape, by default a character BiLSTM's
final states, and pretrained word vectors if given: `arcwise.learn.embeddings`), without
tags; a 2-layer BiLSTM reads the sentence and one linear layer per column scores that
column's tags (FEATS: one class per feature string seen in training, as
`arcwise.pipeline.stages.tagger.Tagger`).  Training: Adam on the summed
cross-entropy of the three columns over batches of sentences of similar lengths, with
word dropout and dropout; the epoch with the best mean dev accuracy is kept.  It tags as
`Tagger` does (the same interface and lemmatizer); saved as float32 arrays (pretrained
vectors: float16) and JSON.
Needs the neural extra (torch).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from arcwise.core import interrupts
from arcwise.core.corpus import Sentence
from arcwise.core.device import current_device
from arcwise.core.errors import ArcwiseError, MissingArray
from arcwise.core.vocab import TAG_COLUMNS, Vocabularies, Vocabulary
from arcwise.features import words as wc
from arcwise.learn.embeddings import DEFAULT_EXTRA, vectors_of, with_pretrained
from arcwise.learn.neural import (
    Encoder,
    Sizes,
    char_vocabulary,
    configured,
    decayed,
    device_of,
    encoder_inputs,
    form_counts,
    need_torch,
    nn,
    pretrained_arrays,
    pretrained_meta,
    saved_pretrained,
    state_arrays,
    torch,
)
from arcwise.pipeline.lemmatizer import Lemmatizer
from arcwise.pipeline.stages.tagger import lemma_accuracy, with_tags
from arcwise.training.epochs import epochs_for_updates

DEFAULTS = {"chars": 50, "dropout": 0.33, "learning_rate": 0.003}  # unless given (`Sizes` fields)
WORD_COLUMNS = ("lower", "suffix", "shape")  # the words' vocabularies the encoder embeds
TAG_IDS = (wc.UPOS, wc.XPOS, wc.FEATS)  # the gold tag ids' columns in the words matrix
FIRST_TAG = 2  # a tag vocabulary's ids 0 and 1 are the unknown value and the root's
TAG_SENTENCES = 256  # sentences per network call when tagging
# default epochs: enough for UPDATES updates, within these bounds (`auto_epochs`)
UPDATES, MIN_EPOCHS, MAX_EPOCHS = 4000, 10, 100


def auto_epochs(sentences: int, batch_sentences: int) -> int:
    """The epochs that make at least `UPDATES` updates of batch_sentences sentences, at
    least MIN_EPOCHS and at most MAX_EPOCHS: a fixed number of epochs leaves a small
    treebank's tagger untrained (Czech-CLTT, 467 sentences, 10 epochs: 150 updates)."""
    return epochs_for_updates(sentences, batch_sentences, UPDATES, MIN_EPOCHS, MAX_EPOCHS)


class TaggerNetwork(nn.Module if nn is not None else object):
    """The word encoder and one linear layer of tag scores per column."""

    def __init__(self, word_vocabulary_sizes: list[int], n_tags: list[int], sizes: Sizes,
                 chars: str = "", pretrained=None):
        super().__init__()
        self.encoder = Encoder(word_vocabulary_sizes, sizes, sizes.dropout, chars,
                               pretrained=pretrained)
        self.heads = nn.ModuleList(nn.Linear(self.encoder.width, n) for n in n_tags)

    def forward(self, inputs) -> list:
        """The tag scores [words, tags] of each column for a batch's words."""
        vectors = self.encoder(inputs)
        return [head(vectors) for head in self.heads]


class BiLSTMTagger:
    """UPOS, XPOS and FEATS of words by a BiLSTM (see the module docstring).

    >>> tagger = BiLSTMTagger.train(treebank_sentences, dev)
    >>> tagged = tagger.tag(sentences)  # new Sentences; only the tag columns (and _ lemmas)
    """

    model = "bilstm"

    def __init__(self, vocabularies: Vocabularies, sizes: Sizes, chars: str = "",
                 hyperparameters: dict[str, Any] | None = None,
                 scores: dict[str, Any] | None = None, *,
                 lemmatizer: Lemmatizer | None = None, seed: int = 0, pretrained=None):
        """pretrained: an `arcwise.learn.embeddings.Pretrained` table of the lowercased
        forms' vocabulary, or None."""
        need_torch()
        torch.manual_seed(seed)
        self.vocabularies = vocabularies
        self.sizes = sizes
        word_sizes = [len(getattr(vocabularies, c)) for c in WORD_COLUMNS]
        if pretrained is not None:
            word_sizes[0] = pretrained.trained_words  # the added words have no trained row
        self.network = TaggerNetwork(word_sizes,
                                     [len(getattr(vocabularies, c)) for c in TAG_COLUMNS],
                                     sizes, chars, pretrained).to(current_device())
        self.network.eval()
        self.hyperparameters = dict(hyperparameters or {})
        self.scores = dict(scores or {})
        self.lemmatizer = lemmatizer  # fills LEMMA where it is _, from the form and tags

    @property
    def tagsets(self) -> list[tuple[str, ...]]:
        """The tags of each column (UPOS, XPOS, FEATS), in id order."""
        return [tuple(getattr(self.vocabularies, c)) for c in TAG_COLUMNS]

    def __repr__(self) -> str:
        sizes = ", ".join(f"{len(t)} {c.upper()}" for c, t in zip(TAG_COLUMNS, self.tagsets))
        return f"BiLSTMTagger({sizes})"

    @classmethod
    def train(cls, sentences: Iterable[Sentence], dev: Iterable[Sentence] | None = None, *,
              epochs: int | None = None, seed: int = 0,
              progress: Callable[[dict], Any] | None = None,
              neural: dict[str, Any] | None = None, embeddings: Any = None,
              embeddings_extra: int = DEFAULT_EXTRA) -> BiLSTMTagger:
        """Train on tagged sentences; with dev, keep the epoch of best mean accuracy over the
        three columns.  epochs: default `auto_epochs` (a small treebank gets more).  neural:
        `arcwise.learn.neural.Sizes` fields (default `DEFAULTS`), batch_sentences
        (sentences per update, 32) and threads (torch's).  embeddings: pretrained word
        vectors, a vectors file or `arcwise.learn.embeddings.Vectors` already read (of a
        file, the training vocabulary's and the first embeddings_extra other words' are
        kept, in the model).  progress(entry) after each epoch."""
        from arcwise.features.batch import Batch, sub_batch
        from arcwise.training.data import length_batches

        need_torch()
        sentences = [s for s in sentences if s.n]
        if not sentences:
            raise ArcwiseError("no training sentences: the training file is empty")
        options = {**DEFAULTS, **(neural or {})}
        batch_sentences = int(options.pop("batch_sentences", 32))
        sizes, threads = configured(options, Sizes)
        every = Vocabularies.build(sentences)
        vocabularies = Vocabularies(**{c: getattr(every, c)
                                       for c in WORD_COLUMNS + TAG_COLUMNS}).freeze()
        pretrained = None
        if embeddings is not None:  # their words join the lowercased forms' vocabulary
            vectors = vectors_of(embeddings, vocabularies.lower, embeddings_extra)
            vocabularies, pretrained = with_pretrained(vocabularies, vectors)
        batch = Batch(sentences, vocabularies)
        epochs = epochs or auto_epochs(len(sentences), batch_sentences)
        hyperparameters = {"epochs": epochs, "seed": seed, "sizes": dataclasses.asdict(sizes),
                           "batch_sentences": batch_sentences,
                           "threads": threads or torch.get_num_threads()}
        if pretrained is not None:
            hyperparameters.update(embeddings=pretrained.info["source"],
                                   embeddings_extra=embeddings_extra)
        tagger = cls(vocabularies, sizes, char_vocabulary(batch.forms) if sizes.chars else "",
                     hyperparameters, lemmatizer=Lemmatizer.train(sentences), seed=seed,
                     pretrained=pretrained)
        network = tagger.network
        device = device_of(network)
        optimizer = torch.optim.Adam(network.parameters(), lr=sizes.learning_rate,
                                     betas=(0.9, 0.9))
        schedule = decayed(optimizer, sizes)
        counts = form_counts(batch.words, every)
        lengths = np.diff(batch.offsets) - 1
        dev = [s for s in dev or () if s.n]
        best, kept, log = -1.0, None, []
        for epoch in range(epochs):
            rng = np.random.default_rng([seed, epoch])
            total = 0.0
            network.train()
            with interrupts.deferred():
                for indices in length_batches(lengths, batch_sentences, rng):
                    part = sub_batch(batch, indices)
                    inputs = encoder_inputs(part, counts, sizes.word_dropout, rng,
                                            chars=bool(sizes.chars), device=device,
                                            pretrained=pretrained is not None)
                    gold = inputs.tensor(part.words[:, TAG_IDS].astype(np.int64))
                    gold[inputs.tensor(inputs.where == 0)] = -100  # the root has no tags
                    loss = sum(nn.functional.cross_entropy(scores, gold[:, k], ignore_index=-100)
                               for k, scores in enumerate(network(inputs)))
                    optimizer.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(network.parameters(), 5.0)
                    optimizer.step()
                    if schedule is not None:
                        schedule.step()
                    total += float(loss.detach()) * len(indices)
            network.eval()
            entry = {"epoch": epoch + 1, "loss": round(total / len(sentences), 6)}
            if dev:
                entry.update(tagger.accuracy(dev))
            log.append(entry)
            if progress is not None:
                progress(entry)
            score = np.mean([entry[f"dev_{c}"] for c in TAG_COLUMNS]) if dev else epoch
            if score > best:
                best, kept = score, copy.deepcopy(network.state_dict())
        network.load_state_dict(kept)
        network.eval()
        tagger.scores = {"epochs": log}
        return tagger

    def tag_ids(self, sentences: Sequence[Sentence]) -> list[np.ndarray]:
        """The predicted tag ids [3, n] (rows: UPOS, XPOS, FEATS; ids into `tagsets`) of
        each sentence's words."""
        from arcwise.features.batch import Batch

        out: list[np.ndarray] = [np.zeros((3, 0), dtype=np.int64)] * len(sentences)
        by_length = np.argsort([s.n for s in sentences], kind="stable")
        for start in range(0, len(sentences), TAG_SENTENCES):
            chosen = [k for k in by_length[start : start + TAG_SENTENCES] if sentences[k].n]
            if not chosen:
                continue
            batch = Batch([sentences[k] for k in chosen], self.vocabularies)
            inputs = encoder_inputs(batch, None, 0, None, chars=bool(self.sizes.chars),
                                    device=device_of(self.network))
            with torch.no_grad():
                ids = torch.stack([s[:, FIRST_TAG:].argmax(1) for s in self.network(inputs)])
            ids = ids.cpu().numpy()
            for k, a, b in zip(chosen, batch.offsets[:-1], batch.offsets[1:]):
                out[k] = ids[:, a + 1 : b]  # after the root
        return out

    def tag(self, sentences: Sentence | Sequence[Sentence]) -> Any:
        """The sentences with the predicted UPOS, XPOS and FEATS, and lemmas where they have
        none (``_``) when the tagger has a lemmatizer (the rest unchanged)."""
        if isinstance(sentences, Sentence):
            return self.tag([sentences])[0]
        sentences = list(sentences)
        tagsets = self.tagsets
        return [with_tags(s, [[tags[i] for i in row.tolist()] for row, tags in zip(ids, tagsets)],
                          self.lemmatizer)
                for s, ids in zip(sentences, self.tag_ids(sentences))]

    def tagged(self, sentences: Sequence[Sentence]) -> tuple[list[Sentence], list[Sentence]]:
        """(read, written) as the perceptron tagger's `tagged`: here the same tags."""
        tagged = self.tag(sentences)
        return tagged, tagged

    def accuracy(self, sentences: Sequence[Sentence]) -> dict[str, float]:
        """{"dev_upos", "dev_xpos", "dev_feats"}: the share of words given the gold tag (%);
        with a lemmatizer also "dev_lemma", lemmas from the predicted UPOS and FEATS."""
        sentences = list(sentences)
        predicted = self.tag_ids(sentences)
        tagsets = self.tagsets
        words = max(sum(s.n for s in sentences), 1)
        scores = {f"dev_{c}": 100.0 * sum(
            sum(tags[i] == t for i, t in zip(ids[j].tolist(), getattr(s, c)[1:]))
            for s, ids in zip(sentences, predicted)) / words
            for j, (c, tags) in enumerate(zip(TAG_COLUMNS, tagsets))}
        if self.lemmatizer is not None:
            tags = [[[tagsets[j][i] for i in ids[j].tolist()] for j in (0, 2)]  # UPOS, FEATS
                    for ids in predicted]
            scores.update(lemma_accuracy(self.lemmatizer, sentences, tags))
        return scores

    # --- model files ---------------------------------------------------------------

    def saved(self, prefix: str = "") -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """(arrays, metadata) of this tagger in a model file; array names prefixed."""
        arrays = {**state_arrays(self.network, prefix),
                  **pretrained_arrays(self.network.encoder, prefix)}
        meta = {"kind": "tagger", "model": self.model,
                "tagsets": {c: list(t) for c, t in zip(TAG_COLUMNS, self.tagsets)},
                "vocabularies": {c: getattr(self.vocabularies, c).to_dict()
                                 for c in WORD_COLUMNS + TAG_COLUMNS},
                "chars": self.network.encoder.chars_vocabulary,
                "sizes": dataclasses.asdict(self.sizes),
                "hyperparameters": self.hyperparameters, "scores": self.scores}
        if self.lemmatizer is not None:
            meta["lemmatizer"] = self.lemmatizer.to_json()
        if (embeddings := pretrained_meta(self.network.encoder)) is not None:
            meta["embeddings"] = embeddings
        return arrays, meta

    @classmethod
    def from_saved(cls, arrays, meta: dict[str, Any], source: str,
                   prefix: str = "") -> BiLSTMTagger:
        """The tagger of a model file's (arrays, metadata); any problem is an ArcwiseError."""
        need_torch()
        try:
            if meta.get("kind") != "tagger" or meta.get("model") != cls.model:
                raise ValueError("not a bilstm tagger")
            vocabularies = Vocabularies(**{c: Vocabulary.from_dict(meta["vocabularies"][c])
                                           for c in WORD_COLUMNS + TAG_COLUMNS}).freeze()
            pretrained = saved_pretrained(arrays, meta.get("embeddings"), source, prefix,
                                          rows=len(vocabularies.lower))
            tagger = cls(vocabularies, Sizes(**meta["sizes"]), str(meta.get("chars", "")),
                         meta.get("hyperparameters"), meta.get("scores"),
                         lemmatizer=Lemmatizer.from_json(meta["lemmatizer"], source)
                         if meta.get("lemmatizer") is not None else None,
                         pretrained=pretrained)
        except (AttributeError, KeyError, TypeError, ValueError) as error:
            raise ArcwiseError(f"{source}: corrupt model file (bad tagger metadata: "
                               f"{error})") from None
        state = {}
        for name, tensor in tagger.network.state_dict().items():
            array_name = f"{prefix}net__" + name.replace(".", "__")
            array = arrays.get(array_name)
            if array is None:
                raise MissingArray(source, array_name)
            if tuple(array.shape) != tuple(tensor.shape):
                raise ArcwiseError(f"{source}: corrupt model file (the tagger's arrays differ "
                                   "from its recorded sizes)")
            state[name] = torch.from_numpy(np.array(array, dtype=np.float32))
        tagger.network.load_state_dict(state)
        tagger.network.eval()
        return tagger
