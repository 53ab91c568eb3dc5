"""arcwise: data-driven dependency parsing (transition-based and graph-based).

The public entry points are small: `arcwise.systems.get(name)` for transition
systems and their oracles, `arcwise.io.conllu` for reading and writing
treebanks, `arcwise.eval` for scores, and the `arcwise` command line.
"""

__version__ = "0.1.0"


def load(path):
    """Load a trained parser, transition-based, graph-based or guided (stacking):
    ``arcwise.load("model.arcwise").parse(sentences)`` or ``.parse_file(input, output)``."""
    from arcwise.models.modelfile import read_meta

    meta = read_meta(path)
    if "guide" in meta:
        from arcwise.stacking import GuidedParser

        return GuidedParser.load(path)
    if meta["system"] == "mst":
        from arcwise.graph.mst_parser import GraphParser

        return GraphParser.load(path)
    from arcwise.parse import Parser

    return Parser.load(path)
