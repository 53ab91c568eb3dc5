"""arcwise: data-driven dependency parsing (transition-based and graph-based).

The public entry points are small: `arcwise.systems.get(name)` for transition
systems and their oracles, `arcwise.io.conllu` for reading and writing
treebanks, `arcwise.eval` for scores, and the `arcwise` command line.
"""

__version__ = "0.1.0"


def load(path):
    """Load a trained parser, transition-based or graph-based:
    ``arcwise.load("model.arcwise").parse(sentences)`` or ``.parse_file(input, output)``."""
    from arcwise.models.modelfile import read_meta

    if read_meta(path)["system"] == "mst":
        from arcwise.graph.mst_parser import GraphParser

        return GraphParser.load(path)
    from arcwise.parse import Parser

    return Parser.load(path)
