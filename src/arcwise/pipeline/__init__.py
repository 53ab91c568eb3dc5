"""From raw text to trees: a trained tokenizer and sentence splitter, a tagger, and the
pipeline that runs them before a parser (`arcwise.load` of a pipeline model file)."""

# what a parser trains on: gold tags, jackknifed predicted tags, or none (it reads words only)
TAGS = ("gold", "predicted", "none")
