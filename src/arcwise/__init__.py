"""arcwise: data-driven dependency parsing (transition-based and graph-based).

The public entry points are small: `arcwise.systems.get(name)` for transition
systems and their oracles, `arcwise.io.conllu` for reading and writing
treebanks, `arcwise.eval` for scores, and the `arcwise` command line.
"""

import os as _os

from arcwise.core.version import __version__


def _numba_cache_dir() -> str | None:
    """Where numba should cache compiled functions when it cannot write beside the sources
    (a read-only install): None if it can, or the user set NUMBA_CACHE_DIR; else
    $XDG_CACHE_HOME/arcwise/numba or ~/.cache/arcwise/numba, or a per-user folder in
    the temporary directory when home is not writable either."""
    import tempfile

    if _os.environ.get("NUMBA_CACHE_DIR"):
        return None
    here = _os.path.dirname(_os.path.abspath(__file__))
    pycache = _os.path.join(here, "__pycache__")
    if _os.access(pycache if _os.path.isdir(pycache) else here, _os.W_OK):
        return None
    base = _os.environ.get("XDG_CACHE_HOME") or _os.path.join(_os.path.expanduser("~"), ".cache")
    uid = getattr(_os, "getuid", lambda: "user")()
    for candidate in (_os.path.join(base, "arcwise", "numba"),
                      _os.path.join(tempfile.gettempdir(), f"arcwise-numba-{uid}")):
        try:
            _os.makedirs(candidate, mode=0o700, exist_ok=True)
        except OSError:
            continue
        if _os.access(candidate, _os.W_OK):
            return candidate
    return None


def _use_numba_cache_dir() -> None:
    directory = _numba_cache_dir()
    if directory is None:
        return
    _os.environ["NUMBA_CACHE_DIR"] = directory  # numba reads it when first imported
    import sys

    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba was imported before arcwise
        config.CACHE_DIR = directory


_use_numba_cache_dir()


def load(path):
    """Load a trained model as a `arcwise.pipeline.pipeline.Pipeline`:
    ``nlp = arcwise.load("en_ewt"); doc = nlp("Raw text.")``.  `path` is a model file, or
    the name of an installed model package (`arcwise package`, `arcwise.models.packages`),
    whose card and language the pipeline then carries.  Every model file is
    one: a pipeline file (tokenizer, tagger, parser, each optional) or a parser alone
    (transition-based with a perceptron or a BiLSTM, graph-based, or guided by another:
    stacking), which is a one-stage pipeline that still has the parser's ``parse`` and
    ``parse_file``.  The file says which kind it holds (`arcwise.models.kinds`);
    ``nlp.parser`` is the parser itself."""
    from arcwise.pipeline.pipeline import load as load_pipeline

    return load_pipeline(path)


def corpus_parse(model, sources, outdir, **options):
    """Parse many input files (files, folders, glob patterns) into the folder `outdir`,
    mirrored, resumable, as `arcwise parse -m MODEL IN [IN ...] -o OUTDIR` does:
    ``arcwise.corpus_parse("en_ewt", ["texts/"], "parsed/", input_format="text",
    workers=2, resume=True)``; the options and what it returns are those of
    `arcwise.pipeline.corpus.corpus_parse`."""
    from arcwise.pipeline.corpus import corpus_parse as parse_corpus

    return parse_corpus(model, sources, outdir, **options)


def _find_moved_modules() -> None:
    """The module paths before the 0.1 redesign keep importing, with a warning
    (`arcwise.moved`)."""
    from arcwise import moved

    moved.install()


_find_moved_modules()
