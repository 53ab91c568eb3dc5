"""The pipeline's text API on a plain parser: a parser model is a one-stage pipeline.

>>> nlp = arcwise.load("en.arcwise")          # a parser model file, no tokenizer or tagger
>>> doc = nlp(["The", "cat", "sat", "."])      # a `Document`, as a pipeline gives
>>> doc = nlp("The cat sat .\\nIt purred .")   # no tokenizer: a sentence per line, split at spaces
>>> for doc in nlp.pipe(texts): ...
>>> nlp.parse(sentences)                       # the parser's own API is unchanged

The parsers (`arcwise.parse.TransitionParser` and so the perceptron's and the BiLSTM's,
`arcwise.graph.mst_parser.GraphParser`, `arcwise.graph.biaffine_parser.BiaffineParser`,
`arcwise.stacking.GuidedParser`) inherit `AnnotatesText`; their ``nlp(...)`` is
``Pipeline(parser=nlp)(...)``.  A parser trained with tags refuses words without tags
(`arcwise.vocab.check_tagged`) and names the remedy, a pipeline with a tagger.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arcwise.pipeline.document import Document
    from arcwise.pipeline.pipeline import Pipeline


class AnnotatesText:
    """``nlp(given)`` and ``nlp.pipe(inputs)`` of a parser: those of a pipeline of it alone."""

    def as_pipeline(self) -> Pipeline:
        """A pipeline of this parser alone (no tokenizer, no tagger)."""
        from arcwise.pipeline.pipeline import Pipeline

        return Pipeline(parser=self)

    def __call__(self, given: Any) -> Document:
        """The `Document` of a list of words (one sentence), of word lists or Sentences, or
        of a text of one sentence per line, words separated by whitespace."""
        return self.as_pipeline()(given)

    def pipe(self, inputs: Iterable[Any], batch_size: int = 64) -> Iterator[Document]:
        """A Document per input, parsed in batches (`Pipeline.pipe`)."""
        return self.as_pipeline().pipe(inputs, batch_size)
