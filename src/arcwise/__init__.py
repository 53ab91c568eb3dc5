"""arcwise: data-driven dependency parsing (transition-based and graph-based).

The public entry points are small: `arcwise.systems.get(name)` for transition
systems and their oracles, `arcwise.io.conllu` for reading and writing
treebanks, `arcwise.eval` for scores, and the `arcwise` command line.
"""

__version__ = "0.1.0"


def load(path):
    """Load a trained parser: ``arcwise.load("model.arcwise").parse(sentences)``."""
    from arcwise.parse import Parser

    return Parser.load(path)
