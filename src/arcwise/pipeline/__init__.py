"""From raw text to trees: a trained tokenizer and sentence splitter, a tagger, and the
pipeline that runs them before a parser (`arcwise.load` of a pipeline model file)."""
