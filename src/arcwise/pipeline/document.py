"""What the pipeline gives back: a document of sentences of words.

>>> doc = nlp("The cat sat. It purred.")
>>> for sentence in doc.sentences:
...     for word in sentence.words:
...         print(word.id, word.form, word.upos, word.head, word.deprel, word.head_word)
>>> doc.to_conllu(); doc.to_json()

JSON schema of `Document.to_json` (version 1)::

    {"schema": "arcwise-document", "version": 1,
     "sentences": [{"id": str | null, "text": str | null,
                    "tokens": [{"form": str, "words": [int, ...], "space_after": bool}],
                    "words": [{"id": int, "form": str, "lemma": str, "upos": str,
                               "xpos": str, "feats": str, "head": int | null,
                               "deprel": str, "misc": str}]}]}

Word ids count from 1 within a sentence; head 0 is the root, null unknown; a
value the pipeline did not fill is ``"_"``; a token's ``words`` are the ids
of its words (several for a multiword token).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arcwise.core.corpus import Sentence
from arcwise.core.errors import ArcwiseError
from arcwise.core.extras import required
from arcwise.io import conllu

SCHEMA, SCHEMA_VERSION = "arcwise-document", 1


@dataclass(frozen=True)
class Word:
    """One syntactic word of a parsed sentence."""

    sentence: DocumentSentence
    id: int
    form: str
    lemma: str
    upos: str
    xpos: str
    feats: str
    head: int | None  # 0 = the root, None = unknown
    deprel: str

    @property
    def head_word(self) -> Word | None:
        """The word this one depends on (None for the root's dependents and unknown heads)."""
        if not self.head:
            return None
        return self.sentence.words[self.head - 1]

    def __repr__(self) -> str:
        return f"Word({self.id}, {self.form!r}, {self.upos}, head={self.head}, {self.deprel})"


class DocumentSentence:
    """A sentence of a document: its words, tokens and text, over an `arcwise.core.corpus.Sentence`."""

    def __init__(self, sentence: Sentence):
        self.sentence = sentence
        s = sentence
        self.words = [
            Word(self, i, s.form[i], s.lemma[i], s.upos[i], s.xpos[i], s.feats[i],
                 None if s.head[i] < 0 else int(s.head[i]), s.deprel[i])
            for i in range(1, s.n + 1)
        ]

    def comment(self, key: str) -> str | None:
        """The value of a ``# key = value`` comment, or None."""
        for line in self.sentence.lines:
            if line.startswith(f"# {key} = "):
                return line[len(key) + 5:]
        return None

    @property
    def text(self) -> str | None:
        return self.comment("text")

    @property
    def id(self) -> str | None:
        return self.comment("sent_id")

    def tokens(self) -> list[dict[str, Any]]:
        """[{"form", "words", "space_after"}] in order (see the module docstring)."""
        from arcwise.pipeline.stages.tokenizer import sentence_tokens

        out, at = [], 1
        for surface, words, space in sentence_tokens(self.sentence):
            out.append({"form": surface, "words": list(range(at, at + len(words))),
                        "space_after": space})
            at += len(words)
        return out

    def to_json(self) -> dict[str, Any]:
        """{"id", "text", "tokens", "words"}: one sentence of `Document.to_json`."""
        misc = conllu.misc(self.sentence)
        return {"id": self.id, "text": self.text, "tokens": self.tokens(),
                "words": [{"id": w.id, "form": w.form, "lemma": w.lemma, "upos": w.upos,
                           "xpos": w.xpos, "feats": w.feats, "head": w.head,
                           "deprel": w.deprel, "misc": misc[w.id]} for w in self.words]}

    def __iter__(self):
        return iter(self.words)

    def __len__(self) -> int:
        return len(self.words)

    def __repr__(self) -> str:
        return f"DocumentSentence({' '.join(w.form for w in self.words)!r})"


class Document:
    """The sentences of one input (a text, a list of words, ...), annotated."""

    def __init__(self, sentences: Sequence[Sentence], text: str | None = None,
                 lang: str | None = None):
        self.sentences = [DocumentSentence(s) for s in sentences]
        self._text = text
        self.lang = lang  # the language code of the model that made it, if known

    @property
    def text(self) -> str:
        """The text the document was made from, or, made from words, its tokens with the
        spaces between them (SpaceAfter), the sentences separated by a space."""
        if self._text is not None:
            return self._text
        return " ".join("".join(t["form"] + (" " if t["space_after"] else "")
                                for t in s.tokens()).rstrip(" ") for s in self.sentences)

    @property
    def words(self) -> list[Word]:
        return [w for s in self.sentences for w in s.words]

    def __iter__(self):
        return iter(self.sentences)

    def __len__(self) -> int:
        return len(self.sentences)

    def __repr__(self) -> str:
        return f"Document({len(self.sentences)} sentences, {len(self.words)} words)"

    def to_conllu(self) -> str:
        """The document as CoNLL-U text (each sentence followed by a blank line)."""
        return "".join(conllu.format_sentence(s.sentence) for s in self.sentences)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict in the schema of the module docstring."""
        return {"schema": SCHEMA, "version": SCHEMA_VERSION,
                "sentences": [s.to_json() for s in self.sentences]}

    def to_json_text(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    def to_spacy(self, nlp_or_vocab: Any = None) -> Any:
        """The document as a spaCy ``Doc`` over the vocabulary of a spaCy pipeline (or a
        ``Vocab``; default: a blank pipeline of the model's language, ``spacy.blank``, or
        of spaCy's multi-language class "xx" when unknown): its syntactic words, with
        their spaces (a multiword token's words are written together; none after the
        last), UPOS, XPOS, FEATS, lemmas and, when every word has a head, the trees (a
        root heads itself and keeps its label, "root"); else the sentence starts.  Needs
        spaCy (``pip install spacy``)."""
        required("spacy", "spacy", "Document.to_spacy")
        import spacy
        from spacy.tokens import Doc

        if nlp_or_vocab is None:
            try:
                nlp_or_vocab = spacy.blank(self.lang or "xx")
            except ImportError:  # a language spaCy does not have
                nlp_or_vocab = spacy.blank("xx")
        vocab = getattr(nlp_or_vocab, "vocab", nlp_or_vocab)

        def known(value: str) -> str:
            return "" if value == "_" else value

        columns: dict[str, list] = {k: [] for k in ("words", "spaces", "pos", "tags", "morphs",
                                                     "lemmas", "heads", "deps", "sent_starts")}
        for sentence in self.sentences:
            first = len(columns["words"])
            space = {}
            for token in sentence.tokens():
                for k, word in enumerate(token["words"]):
                    space[word] = token["space_after"] and k == len(token["words"]) - 1
            for w in sentence.words:
                columns["words"].append(w.form)
                columns["spaces"].append(space.get(w.id, True))
                columns["pos"].append(known(w.upos))
                columns["tags"].append(known(w.xpos))
                columns["morphs"].append(known(w.feats))
                columns["lemmas"].append(known(w.lemma))
                columns["heads"].append(None if w.head is None
                                        else first + (w.head or w.id) - 1)
                columns["deps"].append(known(w.deprel))
                columns["sent_starts"].append(w.id == 1)
        if columns["spaces"]:
            columns["spaces"][-1] = False
        if None in columns["heads"]:
            del columns["heads"], columns["deps"]
        else:
            del columns["sent_starts"]
        return Doc(vocab, **columns)
