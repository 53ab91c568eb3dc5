"""CoNLL-U reading and writing: lossless round trips, streaming, errors with file:line."""

import gzip
import io
import os
import re
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arcwise.core.corpus import ROOT, Sentence
from arcwise.core.errors import ArcwiseError, InputError
from arcwise.io import conllu, read_treebank
from arcwise.io.atomic import atomic_write

ROOT_DIR = Path(__file__).resolve().parent.parent
EWT = sorted((ROOT_DIR / "data" / "en_ewt").glob("*.conllu.gz"))
DATA = Path(__file__).resolve().parent / "data"
MALFORMED = sorted((DATA / "malformed").glob("*.conllu"))


def expectation(path: Path) -> tuple[int, str]:
    """The `# expect: line N: message` a malformed fixture carries."""
    m = re.search(rb"# expect: line (\d+): ([^\r\n]*)", path.read_bytes())
    return int(m[1]), m[2].decode()


def read_text(text: str, **options) -> list[Sentence]:
    return list(conllu.read(io.BytesIO(text.encode()), **options))


def written(sentences, **options) -> str:
    out = io.StringIO()
    conllu.write(out, sentences, **options)
    return out.getvalue()


def columns(s: Sentence) -> tuple:
    return (
        s.form,
        s.lemma,
        s.upos,
        s.xpos,
        s.feats,
        s.head.tolist(),
        s.deprel,
        s.lines,
        s.word_lines.tolist(),
    )


# ------------------------------------------------------------ random CoNLL-U

# valid columns: no control character (tab, LF, CR, NUL, ESC ...), no space at either end
FIELD = st.text(
    st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=5
).filter(lambda t: t == t.strip(" "))
COMMENT = st.text(
    st.characters(blacklist_categories=("Cs", "Cc")), max_size=8
).map(lambda t: "#" + t)


@st.composite
def conllu_sentences(draw) -> list[str]:
    """The lines of a valid CoNLL-U sentence: comments, ranges, empty nodes, heads or _."""
    n = draw(st.integers(1, 7))
    lines = draw(st.lists(COMMENT, max_size=2))
    range_end = 0
    for i in range(n + 1):
        if i > 0:
            if i > range_end and i < n and draw(st.booleans()):
                range_end = draw(st.integers(i + 1, min(n, i + 2)))
                lines.append("\t".join([f"{i}-{range_end}", draw(FIELD), *"_" * 7, draw(FIELD)]))
            head = draw(st.one_of(st.integers(0, n).map(str), st.just("_")))
            lines.append(
                "\t".join(
                    [
                        str(i),
                        *(draw(FIELD) for _ in range(5)),
                        head,
                        *(draw(FIELD) for _ in range(3)),
                    ]
                )
            )
            if i > range_end and draw(st.integers(0, 5)) == 0:
                lines.append(draw(COMMENT))
        if i >= range_end:  # empty nodes i.1, i.2, ... (not inside a multiword token)
            for k in range(1, draw(st.sampled_from([0, 0, 0, 1, 2])) + 1):
                lines.append("\t".join([f"{i}.{k}", *(draw(FIELD) for _ in range(9))]))
    return lines


def as_text(sentences: list[list[str]]) -> str:
    return "".join("\n".join(lines) + "\n\n" for lines in sentences)


@settings(max_examples=150, deadline=None)
@given(st.lists(conllu_sentences(), min_size=1, max_size=4))
def test_random_sentences_round_trip(sentences):
    text = as_text(sentences)
    read = read_text(text)
    assert [s.lines for s in read] == sentences
    assert written(read) == text
    again = read_text(written(read))
    assert [columns(s) for s in again] == [columns(s) for s in read]


@settings(max_examples=100, deadline=None)
@given(conllu_sentences(), st.data())
def test_with_tree_changes_only_head_deprel_and_deps(lines, data):
    (sentence,) = read_text(as_text([lines]))
    n = sentence.n
    head = [-1] + data.draw(st.lists(st.integers(-1, n), min_size=n, max_size=n))
    deprel = [ROOT] + data.draw(st.lists(FIELD, min_size=n, max_size=n))
    new = conllu.with_tree(sentence, head, deprel)
    assert new.head.tolist() == head and new.deprel == tuple(deprel)
    words = set(sentence.word_lines.tolist()[1:])
    old_deps = [sentence.lines[k].split("\t")[8] for k in sorted(words)]
    enhanced = any(":" in deps for deps in old_deps)  # else a PHEAD of digits is CoNLL-X's
    phead = not enhanced and any(re.fullmatch("[1-9][0-9]*", deps) for deps in old_deps)
    for k, (old_line, new_line) in enumerate(zip(sentence.lines, new.lines, strict=True)):
        if k not in words:
            assert new_line == old_line
            continue
        old_columns, new_columns = old_line.split("\t"), new_line.split("\t")
        i = sentence.word_lines.tolist().index(k)
        expected = old_columns.copy()
        expected[6] = "_" if head[i] < 0 else str(head[i])
        expected[7] = deprel[i]
        expected[8] = f"{head[i]}:{deprel[i]}" if enhanced and head[i] >= 0 else "_"
        if phead:
            expected[9] = "_"
        assert new_columns == expected
    (back,) = read_text(written([new]))
    assert columns(back) == columns(new)
    # the original is untouched, and the writer's trees= does the same
    assert columns(read_text(as_text([lines]))[0]) == columns(sentence)
    assert written([sentence], trees=[(head, deprel)]) == written([new])


@settings(max_examples=60, deadline=None)
@given(st.lists(conllu_sentences(), min_size=1, max_size=5), st.integers(1, 40), st.integers(0, 2))
def test_chunking_and_blank_lines_do_not_matter(sentences, chunk, extra_blanks):
    canonical = as_text(sentences)
    sloppy = "\n" * extra_blanks + canonical.replace("\n\n", "\n\n" + "\n" * extra_blanks)
    with mock.patch.object(conllu, "CHUNK_BYTES", chunk):
        read = read_text(sloppy)
    reference = read_text(canonical)
    assert [columns(s) for s in read] == [columns(s) for s in reference]
    offsets = [s.first_line - r.first_line for s, r in zip(read, reference)]
    assert offsets == [extra_blanks * (k + 1) for k in range(len(reference))]
    for s in read:  # first_line points at the sentence's first line in the sloppy text
        assert sloppy.split("\n")[s.first_line - 1] == s.lines[0]
    assert written(read) == canonical


# ------------------------------------------------------------ the bundled treebank


@pytest.mark.parametrize("path", EWT, ids=lambda p: p.name)
def test_ewt_round_trips_byte_for_byte(path):
    raw = gzip.decompress(path.read_bytes())
    out = io.BytesIO()
    count = conllu.write(out, conllu.read(path))
    assert out.getvalue() == raw
    assert count == raw.count(b"\n\n")


def test_ewt_train_figures():
    sentences = list(read_treebank(EWT[-1]))
    assert EWT[-1].name == "train.conllu.gz"
    assert len(sentences) == 12544 and sum(s.n for s in sentences) == 204577
    for s in sentences[:500]:
        assert s.head.dtype == np.int32 and s.head[0] == -1 and len(s.form) == s.n + 1
        assert s.form[0] == ROOT and s.deprel[0] == ROOT
        for i in range(1, s.n + 1):
            line = s.lines[s.word_lines[i]].split("\t")
            assert line[0] == str(i) and line[1] == s.form[i] and int(line[6]) == s.head[i]


# ------------------------------------------------------------ sentences and sources


def test_fields_of_a_sentence_with_ranges_and_empty_nodes():
    first, second, third = conllu.read(DATA / "mwt_empty.conllu")
    assert first.form == (ROOT, "Do", "n't", "go", ".")
    assert first.lemma == (ROOT, "do", "not", "go", ".")
    assert first.upos == (ROOT, "AUX", "PART", "VERB", "PUNCT")
    assert first.xpos == (ROOT, "VBP", "RB", "VB", ".")
    assert first.feats == (ROOT, "Mood=Ind", "_", "VerbForm=Inf", "_")
    assert first.head.tolist() == [-1, 3, 3, 0, 3]
    assert first.deprel == (ROOT, "aux", "advmod", "root", "punct")
    assert first.lines[3].startswith("1-2\tDon't") and first.word_lines.tolist() == [-1, 4, 5, 6, 7]
    assert (first.source, first.first_line, first.n) == (str(DATA / "mwt_empty.conllu"), 1, 4)
    assert second.n == 7 and second.word_lines.tolist() == [-1, 2, 3, 4, 5, 6, 8, 9]
    assert second.lines[7].startswith("5.1\tlikes") and second.first_line == 10
    assert third.lines[3] == "# a comment after a word" and third.word_lines.tolist() == [-1, 2, 4]


def test_head_underscore_is_minus_one():
    (s,) = read_text("1\ta\ta\tX\tX\t_\t_\t_\t_\t_\n2\tb\tb\tX\tX\t_\t1\tdep\t_\t_\n\n")
    assert s.head.tolist() == [-1, -1, 1]
    assert written([s]) == "1\ta\ta\tX\tX\t_\t_\t_\t_\t_\n2\tb\tb\tX\tX\t_\t1\tdep\t_\t_\n\n"


def test_sources_paths_streams_gzip_by_magic(tmp_path):
    text = (DATA / "mwt_empty.conllu").read_text()
    expected = [columns(s) for s in read_text(text)]
    disguised = tmp_path / "really_gzip.conllu"  # gzip recognised by content, not name
    disguised.write_bytes(gzip.compress(text.encode()))
    plain_gz = tmp_path / "plain.conllu.gz"  # and a plain file named .gz is read as plain
    plain_gz.write_text(text)
    for source in [
        DATA / "mwt_empty.conllu",
        str(disguised),
        plain_gz,
        io.StringIO(text),
        io.BytesIO(text.encode()),
        io.BytesIO(gzip.compress(text.encode())),
    ]:
        assert [columns(s) for s in conllu.read(source)] == expected


def test_missing_final_newline_and_blank_line_are_accepted():
    text = "# a\n1\tx\tx\tX\tX\t_\t0\troot\t_\t_"
    for variant in [text, text + "\n", "\n\n" + text + "\n\n\n\n"]:
        (s,) = read_text(variant)
        assert s.lines == text.split("\n")
        assert written([s]) == text + "\n\n"


def test_sentence_built_in_code_is_written_from_its_columns():
    s = Sentence(
        form=(ROOT, "Hi", "!"),
        lemma=(ROOT, "hi", "!"),
        upos=(ROOT, "INTJ", "PUNCT"),
        xpos=(ROOT, "UH", "."),
        feats=(ROOT, "_", "_"),
        head=np.array([-1, 0, 1], np.int32),
        deprel=(ROOT, "root", "punct"),
    )
    assert (
        written([s])
        == "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n2\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_\n\n"
    )
    assert written([conllu.with_tree(s, [-1, 2, 0], None)]).split("\n")[0].split("\t")[6] == "2"


def test_with_tree_rejects_wrong_shapes_and_values():
    s = next(conllu.read(DATA / "mwt_empty.conllu"))
    with pytest.raises(ValueError, match="shape"):
        conllu.with_tree(s, [-1, 0, 0], None)
    with pytest.raises(ValueError, match="head values"):
        conllu.with_tree(s, [-1, 0, 0, 9, 0], None)
    with pytest.raises(ValueError, match="relation"):
        conllu.with_tree(s, [-1, 0, 0, 0, 0], [ROOT, "a", "b\tc", "d", "e"])
    with pytest.raises(ValueError):  # one tree per sentence
        written([s, s], trees=[([-1, 0, 0, 0, 0], None)])


# ------------------------------------------------------------ malformed input


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.stem)
def test_malformed_input_raises_with_file_and_line(path):
    line, message = expectation(path)
    with pytest.raises(InputError) as caught:
        list(conllu.read(path))
    error = caught.value
    assert (error.path, error.line) == (str(path), line)
    assert message in error.message
    assert str(error).startswith(f"{path}:{line}: ")


FILE_LEVEL = {"crlf_line_ends", "byte_order_mark"}


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.stem)
def test_skip_bad_reports_and_goes_on(path):
    reported = []
    if path.stem in FILE_LEVEL:
        with pytest.raises(InputError):
            list(conllu.read(path, skip_bad=True, on_bad=reported.append))
        return
    sentences = list(conllu.read(path, skip_bad=True, on_bad=reported.append))
    assert [s.lines[1] for s in sentences] == ["# sent_id = 1"]
    assert [(e.line, expectation(path)[0]) for e in reported] == [(expectation(path)[0],) * 2]


def test_skip_bad_default_report_goes_to_stderr(capsys):
    path = DATA / "malformed" / "id_duplicate.conllu"
    assert len(list(conllu.read(path, skip_bad=True))) == 1
    err = capsys.readouterr().err
    assert err == f"{path}:11: duplicate word ID 2 (sentence skipped)\n"


def test_good_sentences_before_an_error_are_yielded():
    sentences = conllu.read(DATA / "malformed" / "id_duplicate.conllu")
    assert next(sentences).n == 3
    with pytest.raises(InputError):
        next(sentences)


def too_long(words: int) -> str:
    return "".join(f"{i}\tw\tw\tX\tX\t_\t0\tdep\t_\t_\n" for i in range(1, words + 1)) + "\n"


def test_sentence_longer_than_max_words():
    assert conllu.MAX_WORDS == 10_000
    good = "1\tok\tok\tX\tX\t_\t0\troot\t_\t_\n\n"
    assert read_text(too_long(conllu.MAX_WORDS))[0].n == conllu.MAX_WORDS
    with pytest.raises(InputError, match=r"longer than 10000 words") as caught:
        read_text(good + too_long(conllu.MAX_WORDS + 1))
    assert caught.value.line == 3 + conllu.MAX_WORDS
    reported = []
    assert (
        len(
            read_text(
                good + too_long(conllu.MAX_WORDS + 1) + good, skip_bad=True, on_bad=reported.append
            )
        )
        == 2
    )
    assert len(reported) == 1


def test_sentence_without_blank_line_longer_than_byte_limit():
    good = "1\tok\tok\tX\tX\t_\t0\troot\t_\t_\n\n"
    text = good + too_long(40) + good  # lines 1-2, 3-43, 44-45
    with (
        mock.patch.object(conllu, "MAX_SENTENCE_BYTES", 300),
        mock.patch.object(conllu, "CHUNK_BYTES", 64),
    ):
        with pytest.raises(InputError, match="MAX_SENTENCE_BYTES") as caught:
            read_text(text)
        assert caught.value.line == 3
        reported = []
        kept = read_text(text, skip_bad=True, on_bad=reported.append)
    assert [s.first_line for s in kept] == [1, 44] and [e.line for e in reported] == [3]


def test_unreadable_and_corrupt_files(tmp_path):
    with pytest.raises(InputError, match="cannot read") as caught:
        list(conllu.read(tmp_path / "missing.conllu"))
    assert caught.value.line is None
    truncated = tmp_path / "truncated.conllu.gz"
    truncated.write_bytes(gzip.compress(too_long(2000).encode())[:5000])
    with pytest.raises(InputError, match="gzip"):
        list(conllu.read(truncated))


SENTENCE = "1\tx\tx\tX\tX\t_\t0\troot\t_\t_\n\n"


@pytest.mark.parametrize("trailer", [b"\0", b"\0\0\0\0", b"garbage", b"\n", b"\x1f"])
def test_bytes_after_the_gzip_data_are_an_error_naming_the_line_after_the_end(tmp_path, trailer):
    path = tmp_path / "padded.conllu.gz"
    path.write_bytes(gzip.compress((SENTENCE * 3).encode()) + trailer)
    with pytest.raises(InputError, match="trailing garbage|gzip") as caught:
        list(conllu.read(path))
    assert caught.value.line == 7  # the six lines read well


def test_several_gzip_members_are_one_stream(tmp_path):
    path = tmp_path / "members.conllu.gz"
    path.write_bytes(gzip.compress(SENTENCE.encode()) + gzip.compress(SENTENCE.encode()))
    assert len(list(conllu.read(path))) == 2


def test_corrupt_gzip_names_the_line_where_the_data_breaks(tmp_path):
    text = SENTENCE * 200_000  # 400,000 lines, several chunks
    data = bytearray(gzip.compress(text.encode(), mtime=0))
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(b ^ 0xFF for b in data[middle : middle + 64])
    path = tmp_path / "corrupt.conllu.gz"
    path.write_bytes(bytes(data))
    read = []
    with pytest.raises(InputError, match="gzip") as caught:
        read.extend(conllu.read(path))
    # every sentence read before the break is complete; the line named is the next one
    assert 0 < caught.value.line <= 400_000 and caught.value.line >= 2 * len(read) + 1


def test_text_stream_with_crlf_is_an_error():
    with pytest.raises(InputError, match="CRLF"):
        list(conllu.read(io.StringIO("1\tx\tx\tX\tX\t_\t0\troot\t_\t_\r\n\r\n")))


@pytest.mark.parametrize("surrogate", [chr(0xD800), chr(0xDFFF), chr(0xDC80)])
def test_a_lone_surrogate_in_a_text_stream_is_an_error_at_its_line(surrogate):
    """A Python text stream's str may hold a lone surrogate (no file's UTF-8 can): an
    `InputError` at its line, a sentence `skip_bad` skips, as invalid UTF-8 in a file (it
    was read into the sentence, to fail as a UnicodeEncodeError when written)."""
    word = "1\tx\tx\tX\tX\t_\t0\troot\t_\t_\n"
    text = word + "\n" + "# sent_id = 2\n" + word.replace("\tx\t", f"\tx{surrogate}\t", 1) \
        + "\n" + word * 1 + "\n"
    with pytest.raises(InputError) as error:
        list(conllu.read(io.StringIO(text)))
    assert str(error.value) == (f"<stream>:4: lone surrogate U+{ord(surrogate):04X} at "
                                "character 4: half of a UTF-16 pair, not a Unicode character")
    skipped = []
    kept = list(conllu.read(io.StringIO(text), skip_bad=True, on_bad=skipped.append))
    assert len(kept) == 2 and [e.line for e in skipped] == [4]
    far = (word + "\n") * 100_000 + "1\tx\tx\tX\tX\t_\t0\troot\t_\t" + surrogate + "\n"
    with pytest.raises(InputError, match=r"^<stream>:200001: lone surrogate .* character 22:"):
        list(conllu.read(io.StringIO(far)))  # a later chunk's line


def test_a_text_streams_own_decoding_error_is_one_line():
    """A text stream that cannot decode its file raises UnicodeDecodeError (a traceback):
    an `InputError` from the line where the reader's chunk starts."""
    data = b"1\tx\tx\tX\tX\t_\t0\troot\t_\t_\n\n1\tx\xff\tx\tX\tX\t_\t0\troot\t_\t_\n\n"
    with pytest.raises(InputError, match=r"^<stream>:1: invalid UTF-8 at this line or after "
                                         r"it \(invalid start byte\); read the file as bytes"):
        list(conllu.read(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")))


# ------------------------------------------------------------ atomic output


def test_atomic_write_replaces_on_success_and_keeps_the_old_file_on_failure(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    os.chmod(target, 0o640)
    with pytest.raises(RuntimeError), atomic_write(target) as f:
        f.write("half")
        raise RuntimeError("boom")
    assert target.read_text() == "old" and os.listdir(tmp_path) == ["out.txt"]
    with atomic_write(target) as f:
        f.write("new\n")
    assert target.read_bytes() == b"new\n" and os.listdir(tmp_path) == ["out.txt"]
    assert os.stat(target).st_mode & 0o777 == 0o640
    with atomic_write(tmp_path / "bytes.bin", "wb") as f:
        f.write(b"\x00\x01")
    assert (tmp_path / "bytes.bin").read_bytes() == b"\x00\x01"


def test_atomic_write_errors_and_stdout(tmp_path, capsys):
    missing_directory = tmp_path / "no" / "such" / "dir.txt"
    with pytest.raises(ArcwiseError, match="cannot write"), atomic_write(missing_directory):
        pass
    with pytest.raises(ValueError), atomic_write(tmp_path / "x", "a"):
        pass
    with atomic_write("-") as f:
        f.write("to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"


def test_write_to_gzip_path_is_deterministic_and_atomic(tmp_path):
    sentences = list(conllu.read(DATA / "mwt_empty.conllu"))
    a, b = tmp_path / "a.conllu.gz", tmp_path / "b.conllu.gz"
    conllu.write(a, sentences)
    conllu.write(b, sentences)
    assert a.read_bytes() == b.read_bytes()
    assert gzip.decompress(a.read_bytes()) == (DATA / "mwt_empty.conllu").read_bytes()

    def failing():
        yield sentences[0]
        raise InputError("in", 7, "bad")

    with pytest.raises(InputError):
        conllu.write(tmp_path / "c.conllu", failing())
    assert sorted(os.listdir(tmp_path)) == ["a.conllu.gz", "b.conllu.gz"]


BYTES = [bytes([b]) for b in b"\t\n#-._019\r x"] + ["é".encode(), b"\xff", b"\xc3"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(conllu_sentences(), min_size=1, max_size=2),
    st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(BYTES), st.booleans()), max_size=4),
)
def test_mangled_input_is_read_or_refused_with_input_error(sentences, edits):
    """Whatever the damage, the reader either accepts the bytes (and then writes
    what it read) or raises InputError: never another exception."""
    data = as_text(sentences).encode()
    for position, byte, insert in edits:
        position %= len(data) + 1
        data = data[:position] + byte + data[position + (not insert) :]
    try:
        read = list(conllu.read(io.BytesIO(data)))
    except InputError as error:
        assert error.line is not None and 1 <= error.line <= data.count(b"\n") + 1
        return
    text = data.decode()
    for s in read:
        assert text.split("\n")[s.first_line - 1 : s.first_line - 1 + len(s.lines)] == s.lines
    assert [columns(s) for s in read_text(written(read))] == [columns(s) for s in read]
    skipped = []
    assert len(read_text(text, skip_bad=True, on_bad=skipped.append)) == len(read) and not skipped


def test_the_earlier_of_two_problems_is_reported():
    word = "\tw\tw\tX\tX\t_\t0\tdep\t_\t_\n"
    with pytest.raises(InputError, match="word ID 3 out of order") as caught:
        read_text("1" + word + "3" + word + "2\tshort\n")
    assert caught.value.line == 2
    with pytest.raises(InputError, match="empty column 11") as caught:  # 11 columns, the last empty
        read_text("1" + word + "2" + word[:-1] + "\t\n")
    assert caught.value.line == 2


# ------------------------------------------------------------ trees written by a parser


def test_annotate_asks_for_one_root_in_conllu_and_not_in_conllx(tmp_path):
    from arcwise.io import annotate

    conllx = tmp_path / "in.conllx"
    conllu.write(conllx, map(conllu.common_core, conllu.read(DATA / "mwt_empty.conllu")))
    for source, expected in [(DATA / "mwt_empty.conllu", True), (conllx, False)]:
        asked = []

        def trees_of(batch, single_root):
            asked.append(single_root)
            return [(s.head, s.deprel) for s in batch]

        annotate(source, tmp_path / "out", trees_of)
        assert set(asked) == {expected}
        annotate(source, tmp_path / "out", trees_of, single_root=not expected)
        assert asked[-1] is (not expected)


def test_new_tree_rewrites_deps_basic_where_enhanced_else_underscore():
    enhanced = "1\ta\ta\tX\tX\t_\t2\tnsubj\t2:nsubj|3:nsubj:xsubj\t_\n2\tb\tb\tX\tX\t_\t0\troot\t0:root\t_"
    plain = "1\ta\ta\tX\tX\t_\t2\tnsubj\t_\tSpaceAfter=No\n2\tb\tb\tX\tX\t_\t0\troot\t_\t_"
    for block, deps in [(enhanced, ["0:root", "1:obj"]), (plain, ["_", "_"])]:
        s = conllu.parse_block(block)
        t = conllu.with_tree(s, [-1, 0, 1], [ROOT, "root", "obj"])
        assert [line.split("\t")[8] for line in t.lines] == deps
        assert [line.split("\t")[9] for line in t.lines] == [line.split("\t")[9] for line in s.lines]


def test_with_sent_id_replaces_or_adds_the_comment():
    block = ("# text = Dogs bark\n1\tDogs\t_\t_\t_\t_\t2\tnsubj\t_\t_\n"
             "2\tbark\t_\t_\t_\t_\t0\troot\t_\t_")
    sentence = conllu.parse_block(block, "<test>", 1)
    added = conllu.with_sent_id(sentence, "7")
    assert conllu.format_sentence(added).startswith(
        "# sent_id = 7\n# text = Dogs bark\n1\tDogs")
    assert conllu.with_tree(added, [-1, 2, 0], ["<root>", "obj", "root"]).lines[2].split("\t")[7] \
        == "obj"  # the words' lines are still found
    replaced = conllu.with_sent_id(added, "8")
    assert conllu.format_sentence(replaced) == conllu.format_sentence(added).replace("= 7", "= 8")
