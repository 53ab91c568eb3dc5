"""Pretrained word vectors (`arcwise.learn.embeddings`, issue #42 item 2).

- The reader takes word2vec text and binary, fastText .vec and GloVe .txt, gzipped or not
  (whatever the file's name), keeps the training words (an exact lowercase entry, else the
  first cased variant) and the first N others, in bounded memory, and stops a malformed
  file with its file and line.
- Every neural model (the BiLSTM transition parser, the biaffine parser, the BiLSTM
  tagger) trains with them; the model file holds them (float16, format 3), loads without
  the vectors file, and a word never seen in training reads its own vector; the same seed
  gives the same file; a damaged table is refused.
- The command line and an experiment grid take them, and refuse them where no neural
  model reads them.
"""

import gzip
import io
import struct
import tracemalloc

import numpy as np
import pytest

from arcwise.core.errors import ArcwiseError, InputError
from arcwise.core.vocab import Vocabularies, form_signature
from arcwise.learn.embeddings import (
    Vectors,
    coverage,
    read_header,
    read_vectors,
    with_pretrained,
)
from arcwise.learn.embeddings import write_vectors as write_text_vectors
from arcwise.models import modelfile
from tests.ewt import NO_JIT, train_and_dev

WORDS = ["the", "Paris", "paris", "Berlin", "BERLIN", "dog", "naïve"]


def matrix(rows: int, dimension: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((rows, dimension)).astype(np.float32)


def write_vectors(path, words, vectors, kind="text", gz=False):
    """Write vectors as word2vec/fastText text (a header, fastText's trailing space), GloVe
    (no header) or word2vec binary (a header, then WORD, a space, little-endian float32)."""
    out = io.BytesIO()
    if kind != "glove":
        out.write(f"{len(words)} {vectors.shape[1]}\n".encode())
    for word, vector in zip(words, vectors):
        if kind == "binary":
            out.write(word.encode() + b" " + struct.pack(f"<{len(vector)}f", *vector) + b"\n")
        else:
            numbers = " ".join(f"{x:.6f}" for x in vector)
            out.write(f"{word} {numbers}{' ' if kind == 'text' else ''}\n".encode())
    data = out.getvalue()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


# --- the reader --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["text", "glove", "binary"])
@pytest.mark.parametrize("gz", [False, True])
def test_every_format_gives_the_same_vectors(tmp_path, kind, gz):
    vectors = matrix(len(WORDS), 5)
    path = write_vectors(tmp_path / "vectors.vec", WORDS, vectors, kind, gz)  # .vec even if gzipped
    header = read_header(path)
    assert header.dimension == 5 and header.gzipped == gz
    assert header.format == {"text": "word2vec text", "glove": "glove",
                             "binary": "word2vec binary"}[kind]
    read = read_vectors(path, wanted={"paris", "berlin"}, extra=2)
    # the wanted words and the first 2 others in file order; keys lowercased
    assert read.words == ("the", "paris", "berlin", "dog")
    assert read.read == len(WORDS) and read.dimension == 5
    rows = [0, 2, 3, 5]  # "paris": its exact lowercase entry; "berlin": the first variant
    np.testing.assert_allclose(read.matrix, vectors[rows], atol=1e-6)


def test_an_exact_lowercase_entry_wins_over_a_cased_variant_whatever_the_order(tmp_path):
    words = ["Apple", "APPLE", "apple", "Pear", "PEAR"]
    vectors = matrix(len(words), 3)
    read = read_vectors(write_vectors(tmp_path / "v.txt", words, vectors, "glove"),
                        wanted={"apple", "pear"}, extra=0)
    assert read.words == ("apple", "pear")
    np.testing.assert_allclose(read.matrix, vectors[[2, 3]], atol=1e-6)


def test_extra_counts_distinct_lowercased_words_outside_the_training_vocabulary(tmp_path):
    words = ["a", "B", "b", "c", "train", "d", "e"]
    read = read_vectors(write_vectors(tmp_path / "v.vec", words, matrix(7, 2)),
                        wanted={"train", "zzz"}, extra=3)
    assert read.words == ("a", "b", "c", "train")  # b once; "d" and "e" past the 3 others
    assert read_vectors(tmp_path / "v.vec", wanted=(), extra=0).words == ()


def test_a_glove_word_with_spaces_and_blank_lines_are_read(tmp_path):
    path = tmp_path / "glove.txt"
    path.write_text("the 1 2 3\n. . . 4 5 6\n\nend 7 8 9\n")
    read = read_vectors(path, wanted={". . .", "end"})
    assert read.words == ("the", ". . .", "end")
    np.testing.assert_array_equal(read.matrix[1], [4, 5, 6])


def test_a_utf8_byte_order_mark_and_crlf_lines_are_read(tmp_path):
    path = tmp_path / "bom.vec"
    path.write_bytes(b"\xef\xbb\xbf2 2\r\nx 1 2\r\ny 3 4\r\n")
    assert read_vectors(path).words == ("x", "y")


@pytest.mark.parametrize("content,line,message", [
    (b"3 2\nthe 1 2\ncat 1\ndog 1 2\n", 3, "1 values, expected 2"),
    (b"3 2\nthe 1 2\ncat 1 2 3\ndog 1 2\n", 3, "3 values, expected 2"),
    (b"the 1 2\ncat 1 x\n", 2, "'x' is not a number"),
    (b"the 1 2\ncat 1 nan\n", 2, "not a finite number"),
    (b"3 2\nthe 1 2\ncat 1 2\n", 3, "announces 3 vectors, the file has 2"),
    (b"the\n", 1, "neither a header"),
])
def test_a_malformed_text_file_names_its_line(tmp_path, content, line, message):
    path = tmp_path / "bad.vec"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as caught:
        read_vectors(path, wanted={"cat"})
    assert (caught.value.path, caught.value.line) == (str(path), line)
    assert str(caught.value).startswith(f"{path}:{line}: ")


def test_empty_truncated_and_foreign_files_are_refused(tmp_path):
    empty = tmp_path / "empty.vec"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        read_header(empty)
    blank = tmp_path / "blank.vec.gz"
    blank.write_bytes(gzip.compress(b"\n\n"))
    with pytest.raises(InputError, match="empty"):
        read_vectors(blank)
    with pytest.raises(InputError, match="no vectors"):
        read_vectors(write_vectors(tmp_path / "none.vec", [], np.zeros((0, 3))))
    binary = write_vectors(tmp_path / "v.bin", WORDS, matrix(len(WORDS), 4), "binary")
    data = binary.read_bytes()
    binary.write_bytes(data[:-10])  # the last vector cut short
    with pytest.raises(InputError, match="vector 7 is cut short") as caught:
        read_vectors(binary)
    assert caught.value.line == len(WORDS) + 1  # the header is line 1
    binary.write_bytes(data + b"extra 1 2 3")
    with pytest.raises(InputError, match="more data after the 7 vectors"):
        read_vectors(binary)
    gz = tmp_path / "v.vec.gz"
    gz.write_bytes(gzip.compress(b"2 2\nx 1 2\ny 3 4\n")[:-12])  # gzip stream cut short
    with pytest.raises(InputError, match="gzip"):
        read_vectors(gz)
    fasttext_model = tmp_path / "model.bin"
    fasttext_model.write_bytes(struct.pack("<ii", 793712314, 12) + b"\0" * 64)
    with pytest.raises(InputError, match="fastText model"):
        read_header(fasttext_model)
    with pytest.raises(ArcwiseError, match="no such vectors file"):
        read_vectors(tmp_path / "missing.vec")
    with pytest.raises(ArcwiseError, match="is a directory"):
        read_vectors(tmp_path)


def test_a_binary_file_is_told_from_text_by_its_bytes_or_a_flag(tmp_path):
    vectors = matrix(3, 4)
    binary = write_vectors(tmp_path / "vectors.txt", ["a", "b", "c"], vectors, "binary")
    assert read_header(binary).format == "word2vec binary"
    np.testing.assert_array_equal(read_vectors(binary).matrix, vectors)
    text = write_vectors(tmp_path / "vectors.bin", ["a", "b", "c"], vectors, "text")
    assert read_header(text).format == "word2vec text"
    assert read_header(binary, binary=False).format == "word2vec text"
    glove = write_vectors(tmp_path / "glove.txt", ["a", "b", "c"], vectors, "glove")
    with pytest.raises(InputError, match="starts with a header"):
        read_header(glove, binary=True)


@pytest.mark.parametrize("name", ["written.vec", "written.vec.gz"])
def test_written_vectors_read_back_exactly(tmp_path, name):
    vectors = matrix(4, 7, seed=5)
    write_text_vectors(tmp_path / name, ["a", "Bé", "c", "d"], vectors)
    read = read_vectors(tmp_path / name, wanted={"bé"}, extra=3)
    assert read.words == ("a", "bé", "c", "d") and read.format == "word2vec text"
    np.testing.assert_array_equal(read.matrix, vectors)
    with pytest.raises(ValueError, match="whitespace"):
        write_text_vectors(tmp_path / name, ["a b"], vectors[:1])


def test_reading_keeps_what_it_keeps_in_memory_not_the_file(tmp_path):
    """A file of 30,000 vectors (~18 MB) read for 5 words: the peak of Python's allocations
    stays a fraction of the file (the buffer of one chunk, what is kept)."""
    rng = np.random.default_rng(1)
    path = tmp_path / "big.vec"
    with open(path, "w") as f:
        f.write("30000 64\n")
        row = " ".join(f"{x:.6f}" for x in rng.standard_normal(64))
        f.writelines(f"w{k} {row}\n" for k in range(30000))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        read = read_vectors(path, wanted={"w29999", "w7"}, extra=3)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert read.words == ("w0", "w1", "w2", "w7", "w29999")
    assert size > 15e6 and peak < 5e6, (size, peak)


def test_the_vocabulary_grows_by_the_words_the_vectors_add(tmp_path):
    sentences, _ = train_and_dev(5, 0)
    vocabularies = Vocabularies.build(sentences)
    known = list(vocabularies.lower)[:3]
    vectors = Vectors((known[0], "zebra", known[1], "yak"), matrix(4, 3, seed=2), "v.vec")
    extended, pretrained = with_pretrained(vocabularies, vectors)
    assert list(extended.lower)[: len(known)] == known  # the training ids stay
    assert len(extended.lower) == len(vocabularies.lower) + 2
    assert pretrained.trained_words == len(vocabularies.lower)
    assert pretrained.vectors.dtype == np.float16
    zebra = extended.lower.id("zebra")
    assert zebra >= pretrained.trained_words and vocabularies.lower.id("zebra") == 0
    scale = pretrained.info["scale"]
    np.testing.assert_allclose(pretrained.vectors[zebra], vectors.matrix[1] * scale, rtol=1e-3)
    assert not pretrained.vectors[[0, 1]].any()  # the unknown word and the root: none
    assert not pretrained.vectors[extended.lower.id(known[2])].any()  # not in the file
    assert pretrained.info["training_words_found"] == 2
    assert pretrained.info["added_words"] == 2
    # the other columns are the same vocabularies
    assert extended.deprel is vocabularies.deprel and extended.suffix is vocabularies.suffix
    again = pretrained.as_vectors(extended.lower)
    assert set(again.words) == {known[0], known[1], "zebra", "yak"}


def test_coverage_counts_what_the_vectors_add():
    sentences, _ = train_and_dev(5, 0)
    vocabularies = Vocabularies.build(sentences)
    known = list(vocabularies.lower)[:2]
    vectors = Vectors((known[0], "zebra"), matrix(2, 3), "v.vec")
    extended, pretrained = with_pretrained(vocabularies, vectors)
    words = [known[0], known[1], "zebra", "unheard-of"]
    assert coverage(extended.lower, pretrained, words) == {
        "words": 4, "trained": 2, "with_vector": 2, "unseen_with_vector": 1}
    assert coverage(vocabularies.lower, None, words) == {
        "words": 4, "trained": 2, "with_vector": 0, "unseen_with_vector": 0}


def test_the_model_file_stores_float16_as_format_3(tmp_path):
    meta = {"system": "x", "options": {}, "labels": [], "vocabularies": {},
            "training_data_sha256": None, "scores": {}, "hyperparameters": {},
            "command_line": []}
    half = np.arange(6, dtype=np.float16).reshape(2, 3)
    modelfile.save(tmp_path / "m", {"pretrained_vectors": half}, meta)
    arrays, read_meta = modelfile.load(tmp_path / "m")
    assert read_meta["format_version"] == 3 and arrays["pretrained_vectors"].dtype == np.float16
    np.testing.assert_array_equal(arrays["pretrained_vectors"], half)
    modelfile.save(tmp_path / "n", {"w": half.astype(np.float32)}, meta)
    assert modelfile.read_meta(tmp_path / "n")["format_version"] == 2


# --- the neural models -------------------------------------------------------------------

TINY = {"word": 8, "suffix": 4, "shape": 4, "tag": 4, "lstm": 8, "hidden": 8, "threads": 1,
        "batch_sentences": 4}


@pytest.fixture(scope="module")
def data():
    return train_and_dev(8 if NO_JIT else 40, 4 if NO_JIT else 20)


@pytest.fixture(scope="module")
def vectors_file(data, tmp_path_factory):
    """A .vec file (gzipped, named .vec) of every training and dev word, a dev word never
    seen in training first (`unseen`), then 5 words in no treebank; its vectors."""
    train, dev = data
    seen = {form_signature(f)[0] for s in train for f in s.form[1:]}
    dev_words = [form_signature(f)[0] for s in dev for f in s.form[1:]]
    unseen = next(w for w in dev_words if w not in seen and w.isalpha())
    words = [unseen, *sorted(seen), *sorted(set(dev_words) - seen - {unseen}),
             "xylophone", "quark", "zephyr", "gnu", "yak"]
    vectors = matrix(len(words), 6, seed=3)
    path = write_vectors(tmp_path_factory.mktemp("vectors") / "ewt.vec", words, vectors,
                         gz=True)
    return path, unseen, vectors[0]


def trained(model, data, vectors, seed=1, **options):
    """A model of each kind trained for one epoch with the vectors."""
    train_sentences, dev = data
    if model == "bilstm":
        from arcwise.transition.train import train

        return train("arc-hybrid", train_sentences, dev, oracle="static", epochs=1, seed=seed,
                     model="bilstm", neural=TINY, embeddings=vectors, **options)[0]
    if model == "biaffine":
        from arcwise.graph.biaffine_parser import train_biaffine

        return train_biaffine(train_sentences, dev, epochs=1, seed=seed,
                              neural={**TINY, "arc": 8, "label": 4}, embeddings=vectors,
                              **options)[0]
    from arcwise.models.kinds import train_tagger

    return train_tagger(train_sentences, dev, model="bilstm", epochs=1, seed=seed,
                        neural={**TINY, "chars": 0}, embeddings=vectors, **options)


def encoder_of(model):
    network = model.scorer.network if hasattr(model, "scorer") else model.network
    return network.encoder


@pytest.mark.parametrize("model", ["bilstm", "biaffine", "tagger"])
def test_each_neural_model_keeps_the_vectors_in_its_file(model, data, vectors_file, tmp_path):
    pytest.importorskip("torch")
    from arcwise.features.batch import Batch
    from arcwise.learn.neural import PRETRAINED, encoder_inputs
    from arcwise.models import kinds
    from arcwise.pipeline.pipeline import Pipeline

    path, unseen, unseen_vector = vectors_file
    copy = tmp_path / "vectors.vec"
    copy.write_bytes(path.read_bytes())
    made = trained(model, data, copy, embeddings_extra=3)
    saved = tmp_path / "m.arcwise"
    if model == "tagger":
        Pipeline(tagger=made).save(saved)
    else:
        made.save(saved)
    copy.unlink()  # the model never needs the file again
    loaded = kinds.load(saved)
    loaded = loaded.tagger if model == "tagger" else loaded
    meta = modelfile.read_meta(saved)
    assert meta["format_version"] == 3
    assert any(a["dtype"] == "<f2" for a in meta["arrays"].values())
    encoder = encoder_of(loaded)
    pretrained = encoder.pretrained_table
    assert pretrained.info["source"] == "vectors.vec" and pretrained.dimension == 6
    # the unseen dev word is among the 3 extra words: it has an id past the training
    # vocabulary, and the encoder reads its vector (scaled, float16) for it
    lower = loaded.vocabularies.lower
    assert pretrained.info["added_words"] == 3 and len(lower) == pretrained.trained_words + 3
    word = lower.id(unseen)
    assert word >= pretrained.trained_words
    scale = pretrained.info["scale"]
    np.testing.assert_allclose(encoder.pretrained[word].numpy(), unseen_vector * scale,
                               rtol=2e-3, atol=2e-3)
    sentence = next(s for s in data[1] if unseen in (f.lower() for f in s.form))
    inputs = encoder_inputs(Batch([sentence], loaded.vocabularies), None, 0, None)
    at = [f.lower() for f in sentence.form].index(unseen)
    assert int(inputs.columns[at, PRETRAINED]) == word
    assert int(inputs.columns[at, 0]) == word  # then the unknown word's trained row
    # the loaded model does what the trained one did
    if model == "tagger":
        assert [s.upos for s in made.tag(data[1])] == [s.upos for s in loaded.tag(data[1])]
    else:
        assert [(list(h), d) for h, d in made.parse(data[1])] == \
            [(list(h), d) for h, d in loaded.parse(data[1])]
    # a damaged table is refused with one line
    arrays, meta = modelfile.load(saved)
    name = next(k for k in arrays if k.endswith("pretrained_vectors"))
    arrays[name] = arrays[name][:-1]
    with pytest.raises(ArcwiseError, match="pretrained vectors"):
        kinds.from_saved(arrays, meta, "damaged")


@pytest.mark.parametrize("model", ["bilstm", "biaffine"])
def test_the_same_seed_gives_the_same_model_file(model, data, vectors_file):
    pytest.importorskip("torch")
    path, _, _ = vectors_file
    files = []
    for _ in range(2):
        out = io.BytesIO()
        trained(model, data, path).save(out)
        files.append(out.getvalue())
    assert files[0] == files[1]


def test_a_retrained_guide_takes_the_models_own_vectors(data, vectors_file):
    pytest.importorskip("torch")
    path, unseen, _ = vectors_file
    for model in ("bilstm", "biaffine"):
        parser = trained(model, data, path)
        options = parser.training_options()
        vectors = options["embeddings"]
        assert isinstance(vectors, Vectors) and unseen in vectors.words
        pretrained = encoder_of(parser).pretrained_table
        assert len(vectors.words) == int(np.count_nonzero(pretrained.vectors.any(axis=1)))


def test_vectors_go_with_neural_models_only(data, vectors_file):
    from arcwise.transition.train import check_options, train

    path, _, _ = vectors_file
    with pytest.raises(ValueError, match="neural model"):
        train("arc-eager", data[0], embeddings=path)
    with pytest.raises(ValueError, match="embeddings_extra"):
        check_options("arc-eager", model="bilstm", embeddings=path, embeddings_extra=-1)
    check_options("arc-eager", model="bilstm", embeddings=path)


def test_a_grid_reads_the_vectors_relative_to_itself_and_checks_them(tmp_path, vectors_file):
    from arcwise.experiments.grid import parse

    path, _, _ = vectors_file
    (tmp_path / "vectors").mkdir()
    (tmp_path / "vectors" / "v.vec").write_bytes(path.read_bytes())
    raw = {"treebanks": ["English-Tiny"], "seeds": [1], "epochs": 1,
           "options": {"model": "bilstm", "embeddings": "vectors/v.vec",
                       "embeddings_extra": 10},
           "configurations": [{"system": "arc-hybrid", "oracle": "static"}]}
    grid = parse(raw, tmp_path / "grid.toml")
    options = grid.configurations[0].options
    assert options["embeddings"] == str(tmp_path / "vectors" / "v.vec")
    (tmp_path / "vectors" / "bad.vec").write_text("the\n")
    raw["options"]["embeddings"] = "vectors/bad.vec"
    with pytest.raises(ArcwiseError, match=r"grid.toml: .*bad.vec:1: neither a header"):
        parse(raw, tmp_path / "grid.toml")
    raw["options"] = {"embeddings": "vectors/v.vec"}
    with pytest.raises(ArcwiseError, match="neural model"):
        parse(raw, tmp_path / "grid.toml")


@pytest.mark.end_to_end
@pytest.mark.neural
@pytest.mark.skipif(NO_JIT, reason="the compiled run covers the command line")
def test_the_command_line_takes_vectors_and_refuses_them_without_a_neural_model(
        data, vectors_file, tmp_path, capsys, monkeypatch):
    from arcwise.io import conllu
    from tests.cli_run import run

    path, _, _ = vectors_file
    treebank = tmp_path / "train.conllu"
    conllu.write(treebank, data[0][:12])
    sizes = [f"--neural={k}={v}" for k, v in TINY.items()]
    model = tmp_path / "m.arcwise"
    code, _, err = run(["train", "-s", "arc-hybrid", "--model", "bilstm", "--train", treebank,
                        "--epochs", "1", "-o", model, "--embeddings", path,
                        "--embeddings-extra", "2", *sizes], capsys, monkeypatch)
    assert code == 0, err
    assert "embeddings " in err and "2 others" in err
    code, _, err = run(["train", "-s", "mst", "--model", "biaffine", "--train", treebank,
                        "--epochs", "1", "-o", tmp_path / "b.arcwise", "--embeddings", path,
                        *sizes], capsys, monkeypatch)
    assert code == 0, err
    code, _, err = run(["train", "-s", "arc-hybrid", "--pipeline", "--components",
                        "tagger,parser", "--tagger", "model=bilstm", "--tagger", "epochs=1",
                        "--tagger", "lstm=8", "--tagger", "threads=1", "--tag-folds", "2",
                        "--train", treebank, "--epochs", "1", "-o", tmp_path / "p.arcwise",
                        "--embeddings", path], capsys, monkeypatch)
    assert code == 0, err
    assert "tagger_pretrained_vectors" in modelfile.read_meta(tmp_path / "p.arcwise")["arrays"]
    bad = tmp_path / "bad.vec"
    bad.write_text("2 3\nthe 1 2 3\nof 1 2\n")
    refusals = [
        (["--model", "bilstm", "--embeddings", bad], f"{bad}:3: 2 values, expected 3"),
        (["--embeddings", path], "applies to the neural models only"),
        (["--model", "bilstm", "--embeddings-extra", "5"], "applies to --embeddings"),
        (["--model", "bilstm", "--embeddings", tmp_path / "none.vec"], "no such vectors file"),
    ]
    for args, message in refusals:
        code, _, err = run(["train", "-s", "arc-hybrid", "--train", treebank, "--epochs", "1",
                            "-o", tmp_path / "x.arcwise", *args], capsys,
                           monkeypatch)
        assert code == 2 and message in err and err.count("\n") == 1, err
        assert "Traceback" not in err
