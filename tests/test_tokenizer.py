"""The tokenizer and sentence splitter trained from a slice of English-EWT: it recovers the
treebank's tokens and sentences from its raw text, splits multiword tokens as the treebank
does, ends sentences at blank lines, and survives a model file round trip."""

import itertools
import json
import re
import unicodedata

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hs

from arcwise.core.errors import ArcwiseError, InputError
from arcwise.io import conllu
from arcwise.pipeline import web_addresses
from arcwise.pipeline.stages.tokenizer import (
    NONE,
    SENTENCE,
    SPACE,
    TOKEN,
    EncodedText,
    MultiwordSplits,
    Tokenizer,
    classify,
    first_pass_pieces,
    jackknifed_first_pass,
    paragraph_context,
    sentence_tokens,
    train_pass,
    training_text,
)
from tests.ewt import DATA, NO_JIT
from tests.rounded import rounded

N_TRAIN = 40 if NO_JIT else 400


@pytest.fixture(scope="module")
def sentences():
    return list(itertools.islice(conllu.read(DATA / "train.conllu.gz"), N_TRAIN))


@pytest.fixture(scope="module")
def tokenizer(sentences):
    return Tokenizer.train(sentences, epochs=3, buckets=2**16, seed=1)


def test_training_text_spells_out_the_treebank(sentences):
    text, labels, tokenized = training_text(sentences)
    assert len(text) == len(labels) and len(tokenized) == len(sentences)
    assert text.startswith("Al-Zaman : American forces")
    assert "\n\n" in text  # paragraphs (# newpar) are blank-line separated
    assert labels.tolist()[:8] == [NONE, TOKEN, TOKEN, NONE, NONE, NONE, NONE, TOKEN]
    assert (labels == SENTENCE).sum() == len(sentences)
    assert (labels != NONE).sum() == sum(map(len, tokenized))


def test_multiword_tokens_are_read_and_split():
    block = "\n".join(["# text = I don't", "1\tI\t_\t_\t_\t_\t_\t_\t_\t_",
                       "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No",
                       "2\tdo\t_\t_\t_\t_\t_\t_\t_\t_", "3\tn't\t_\t_\t_\t_\t_\t_\t_\t_"])
    tokens = sentence_tokens(conllu.parse_block(block))
    assert tokens == [("I", ("I",), True), ("don't", ("do", "n't"), False)]
    splits = MultiwordSplits.learn([tokens, [("del", ("de", "el"), True)]])
    assert splits.words("Don't") == ("Do", "n't")
    assert splits.words("Del") == ("De", "el")
    assert splits.words("cat") == ("cat",)


def test_unseen_forms_are_split_by_the_suffixes_the_treebank_splits_off():
    def mwt(surface, *words):
        return (surface, words, True)

    def plain(surface):
        return (surface, (surface,), True)

    tokenized = [[mwt("Ann's", "Ann", "'s"), mwt("Bob's", "Bob", "'s"), mwt("Cy's", "Cy", "'s"),
                  mwt("can't", "ca", "n't"), mwt("won't", "wo", "n't"),  # two forms: no rule
                  plain("let's"), plain("let's"), plain("cats")]]
    splits = MultiwordSplits.learn(tokenized)
    assert splits.suffixes == {"'s": (2, ("'s",))}  # ending -> (characters split off, words)
    assert splits.words("Dee's") == ("Dee", "'s")
    assert splits.words("DEE'S") == ("DEE", "'S")
    assert splits.words("let's") == ("let's",)  # seen whole
    assert splits.words("'s") == ("'s",) and splits.words("-'s") == ("-'s",)  # no word before
    assert splits.words("don't") == ("don't",)
    assert splits.words("can't") == ("ca", "n't")  # the forms themselves
    # more tokens ending with the suffix stay whole than split: no rule
    assert MultiwordSplits.learn(tokenized + [[plain(f"x{k}'s") for k in range(4)]]).suffixes == {}
    # the model file's JSON, and the forms-only JSON of older files
    again = MultiwordSplits.from_json(splits.to_json(), "m")
    assert (again.splits, again.suffixes, again.whole) == (splits.splits, splits.suffixes,
                                                           splits.whole)
    old = MultiwordSplits.from_json({"don't": ["do", "n't"]}, "m")
    assert old.words("Don't") == ("Do", "n't") and old.words("Dee's") == ("Dee's",)
    old = MultiwordSplits.from_json({"forms": {}, "suffixes": {"'s": ["'s"]}, "whole": []}, "m")
    assert old.words("Dee's") == ("Dee", "'s")  # a file of before the endings
    for bad in ([], {"split_off": 3, "words": ["'s"]}, {"split_off": 0, "words": ["'s"]},
                {"split_off": True, "words": ["'s"]}, {"split_off": 2, "words": []}):
        with pytest.raises(ArcwiseError, match="bad multiword splits"):
            MultiwordSplits.from_json({"forms": {}, "suffixes": {"'s": bad}, "whole": []}, "m")


def test_endings_with_letters_of_the_first_word_split_clitics_off_unseen_verbs():
    def mwt(surface, *words):
        return (surface, words, True)

    def plain(surface):
        return (surface, (surface,), True)

    # Italian infinitives with an enclitic: "ci" alone ends more plain words than split
    # ones, "rci" is a rule; Portuguese clitics after a hyphen split off without it
    tokenized = [[mwt("attivarci", "attivar", "ci"), mwt("trovarci", "trovar", "ci"),
                  mwt("farci", "far", "ci"), mwt("dirci", "dir", "ci"),
                  plain("dieci"), plain("voci"), plain("luci"), plain("baci"), plain("baci"),
                  plain("marci"),
                  mwt("sendo-se", "sendo", "se"), mwt("chama-se", "chama", "se"),
                  mwt("Trata-se", "Trata", "se"), plain("auto-se")]]
    splits = MultiwordSplits.learn(tokenized)
    assert splits.suffixes == {"rci": (2, ("ci",)), "-se": (3, ("se",))}
    assert splits.words("mostrarci") == ("mostrar", "ci")
    assert splits.words("Mostrarci") == ("Mostrar", "ci")
    assert splits.words("felci") == ("felci",)  # "ci" is no rule
    assert splits.words("marci") == ("marci",)  # seen whole
    assert splits.words("rci") == ("rci",)  # nothing before the ending
    assert splits.words("Passaram-SE") == ("Passaram", "SE")
    assert splits.words("--se") == ("--se",)  # no letter in the first word
    again = MultiwordSplits.from_json(json.loads(json.dumps(splits.to_json())), "m")
    assert (again.suffixes, again.whole) == (splits.suffixes, splits.whole)


def test_tokenizes_its_training_text(tokenizer, sentences):
    text, _, gold = training_text(sentences)
    got = tokenizer.tokenize(text)
    gold_tokens = [t[0] for s in gold for t in s]
    got_tokens = [t[0] for s in got for t in s]
    assert "".join(got_tokens) == "".join(gold_tokens)  # no character lost or added
    assert len(set(gold_tokens) ^ set(got_tokens)) < 0.05 * len(set(gold_tokens))
    assert abs(len(got) - len(gold)) < 0.2 * len(gold)


def test_presegmented_text_is_a_sentence_per_line(tokenizer):
    text = "Mr. Smith came. He left\n\n  \nno stop here\r\nthe end."
    sentences = tokenizer.tokenize(text, presegmented=True)
    assert ["".join(s + (" " if space else "") for s, _, space in tokens).strip()
            for tokens in sentences] == ["Mr. Smith came. He left", "no stop here", "the end."]
    assert sentences[0] == [t for s in tokenizer.tokenize("Mr. Smith came. He left") for t in s]


def test_a_text_without_blank_lines_is_cut_at_line_ends(tokenizer, monkeypatch, tmp_path):
    """A paragraph reaching MAX_PARAGRAPH characters ends with that line, in a file as in a
    string (its memory stays bounded), and the cut ends a sentence; shorter ones are whole."""
    from arcwise.io import tokens

    monkeypatch.setattr(tokens, "MAX_PARAGRAPH", 60)
    lines = ["The cat sat on the mat and it", "was happy. Then the dog came in and", "sat.",
             "A short one.", "x" * 70, "And the end of it all"]
    text = "\n".join(lines)
    assert tokens.cut_paragraph(text) == ["\n".join(lines[:2]), "\n".join(lines[2:5]),
                                          lines[5]]
    assert tokens.cut_paragraph("\n".join(lines[:1])) == lines[:1]
    path = tmp_path / "raw.txt"
    path.write_text("\ufeff" + text + "\n\n" + lines[0] + "\n")  # a byte-order mark is dropped
    assert [(first, piece) for _, first, piece in tokens.paragraphs(path)] == [
        (1, "\n".join(lines[:2])), (3, "\n".join(lines[2:5])), (6, lines[5]), (8, lines[0])]
    monkeypatch.setattr(tokens, "MAX_LINE", 70)  # a line may hold that many characters
    assert len(list(tokens.paragraphs(path))) == 4
    path.write_text(text + "\n" + "y" * 71)
    with pytest.raises(InputError, match=r"raw.txt:7: a line longer than 70 characters"):
        list(tokens.paragraphs(path))
    cut = tokenizer.tokenize(text)
    assert cut == [s for piece in tokens.cut_paragraph(text) for s in tokenizer.tokenize(piece)]
    ends = [(a[-1][0], b[0][0]) for a, b in itertools.pairwise(cut)]
    assert ("and", "sat") in ends  # the cut ends a sentence


def test_text_is_read_composed(tokenizer, tmp_path):
    """Decomposed characters (``e`` and a combining accent, as macOS writes them) are read
    in NFC, as UD requires of forms, from strings and files alike."""
    from arcwise.io import tokens

    decomposed = "The cafe\u0301 opened. It was nai\u0308ve."
    got = [s for sentence in tokenizer.tokenize(decomposed) for s, _, _ in sentence]
    assert "caf\u00e9" in got and "na\u00efve" in got
    assert all(s == unicodedata.normalize("NFC", s) for s in got)
    assert tokenizer.tokenize("\ufeffThe cat.")[0][0][0] == "The"  # a byte-order mark: not text
    path = tmp_path / "raw.txt"
    path.write_text(decomposed + "\n", encoding="utf-8")
    assert [line for _, _, line in tokens.lines(path)] == [
        unicodedata.normalize("NFC", decomposed)]


def test_a_run_on_sentence_is_cut_at_max_sentence_words(tokenizer, monkeypatch):
    """Raw text that never ends a sentence is cut every MAX_SENTENCE_WORDS words (words of
    multiword tokens counted), every token kept; a presegmented line is left whole."""
    from arcwise.pipeline.stages import tokenizer as module

    monkeypatch.setattr(module, "MAX_SENTENCE_WORDS", 7)
    text = " ".join(["and", "we", "don't", "stop"] * 6)
    sentences = tokenizer.tokenize(text)
    assert [t for s in sentences for t, _, _ in s] == [
        t for s in tokenizer.tokenize(text, presegmented=True) for t, _, _ in s]
    assert len(tokenizer.tokenize(text, presegmented=True)) == 1 and len(sentences) > 3
    assert all(sum(len(words) for _, words, _ in s) <= 7 for s in sentences)
    too_long = [("w", ("w",), True)] * (conllu.MAX_WORDS + 1)
    with pytest.raises(InputError, match=f"^raw.txt:5: a sentence of {conllu.MAX_WORDS + 1:,}"):
        conllu.from_tokens(too_long, "1", path="raw.txt", first_line=5)


def test_sentences_paragraphs_and_output(tokenizer):
    got = tokenizer.tokenize("I don't know.\n\nwhat  now\nthen ")
    assert ("don't", ("do", "n't"), True) in got[0]
    assert [t[0] for t in got[-1]][-3:] == ["what", "now", "then"]  # one line break: a space
    assert got[0][-1][0] == "."
    sentence = conllu.from_tokens(got[0], "1")
    assert sentence.lines[:2] == ["# sent_id = 1", "# text = I don't know."]
    assert "2-3\tdon't" in "\n".join(sentence.lines) and sentence.form[1:4] == ("I", "do", "n't")
    assert tokenizer.tokenize("") == [] and tokenizer.tokenize(" \n\n \n") == []


def test_model_arrays_round_trip(tokenizer, sentences):
    arrays, meta = tokenizer.saved("tokenizer_")
    again = Tokenizer.from_saved(arrays, meta, "model", "tokenizer_")
    assert np.array_equal(again.weights.transition, rounded(tokenizer).weights.transition)
    assert np.array_equal(again.second.transition, rounded(tokenizer).second.transition)
    assert again.shapes and again.context
    text = "Mr. Smith went to Washington. He didn't stay."
    assert again.tokenize(text) == rounded(tokenizer).tokenize(text)
    # a file of before the shapes, the paragraph context and the second pass: read as one
    # pass without them
    one_pass = Tokenizer.train(sentences, epochs=3, buckets=2**16, seed=1, shapes=False,
                               context=False, stacked=False)
    arrays, meta = one_pass.saved()
    del meta["shapes"], meta["context"], meta["second_pass"]
    again = Tokenizer.from_saved(arrays, meta, "model")
    assert again.second is None and not again.shapes and not again.context
    assert again.tokenize(text) == rounded(one_pass).tokenize(text)
    meta["second_pass"] = True  # says it has a second pass, but has no arrays for it
    with pytest.raises(ArcwiseError, match="no array"):
        Tokenizer.from_saved(arrays, meta, "model")


def test_the_second_pass_learns_from_first_passes_that_did_not_see_the_text(sentences):
    text, labels, _ = training_text(sentences)
    encoded = EncodedText(text)
    seen = encoded.kinds != SPACE
    options = {"epochs": 3, "buckets": 2**16, "seed": 1}
    weights, _ = train_pass(encoded, labels, np.flatnonzero(seen), None, None, **options)
    held_out = jackknifed_first_pass(encoded, labels, 5, weights, **options)
    assert (held_out[seen] >= 0).all() and (held_out[~seen] == -1).all()
    own = classify(*encoded.first_pass(), weights)
    # a first pass classifying the text it learned from errs far less than held-out ones
    held_out_errors = (held_out[seen] != labels[seen]).sum()
    assert held_out_errors > max(2 * (own[seen] != labels[seen]).sum(), 0)


def test_web_addresses_are_found_without_trailing_punctuation():
    text = ("See http://www.gulf-news.com/news.asp?ID=97508. Mail (john.smith@enron.com), "
            "or www.x.org/a_(b)!")
    assert [text[a:b] for a, b in web_addresses.spans(text)] == [
        "http://www.gulf-news.com/news.asp?ID=97508", "john.smith@enron.com", "www.x.org/a_(b)"]
    assert web_addresses.spans("No address: e.g. U.S., a@b or 9/11.") == []
    assert web_addresses.spans("<mailto:a.b@c.org>") == [(1, 17)]


def treebank_text(*sentences_tokens):
    """training_text of sentences given as their tokens, a space after each but those
    ending in "~" (SpaceAfter=No)."""
    def line(k, token):
        misc = "SpaceAfter=No" if token.endswith("~") else "_"
        return f"{k}\t{token.rstrip('~')}\t_\t_\t_\t_\t_\t_\t_\t{misc}"

    blocks = ["\n".join(line(k, t) for k, t in enumerate(tokens, 1)) for tokens in sentences_tokens]
    return training_text([conllu.parse_block(b) for b in blocks])


def test_the_treebank_says_whether_addresses_stay_whole():
    text, labels, _ = treebank_text(["go", "to", "www.x.com/a-b", "now", "."],
                                    ["mail", "a.b@c.org", "."])
    assert web_addresses.kept_whole(text, labels != NONE)
    text, labels, _ = treebank_text(["go", "to", "www.x.com~", "/~", "a-b", "now", "."],
                                    ["mail", "a.b~", "@~", "c.org", "."])
    assert "www.x.com/a-b" in text and "a.b@c.org" in text
    assert not web_addresses.kept_whole(text, labels != NONE)
    text, labels, _ = treebank_text(["no", "address", "."])
    assert web_addresses.kept_whole(text, labels != NONE)


def test_addresses_are_one_token_each(tokenizer):
    assert tokenizer.whole_addresses  # the EWT slice keeps its addresses whole, or has none
    got = tokenizer.tokenize("Read http://www.gulf-news.com/Articles/news.asp?ArticleID=97508. "
                             "Or write to (john.smith@enron.com) today.")
    surfaces = [t[0] for s in got for t in s]
    assert "http://www.gulf-news.com/Articles/news.asp?ArticleID=97508" in surfaces
    assert "john.smith@enron.com" in surfaces
    at = surfaces.index("john.smith@enron.com")
    assert surfaces[at - 1 : at + 2] == ["(", "john.smith@enron.com", ")"]
    arrays, meta = tokenizer.saved()
    assert Tokenizer.from_saved(arrays, meta, "model").whole_addresses
    del meta["whole_addresses"]  # a model file from before the rule: tokenizes as it did
    assert not Tokenizer.from_saved(arrays, meta, "model").whole_addresses


# --- the first pass's shapes and the second pass's pieces, against plain Python -------------

texts = hs.text(alphabet="aB1-. \n", max_size=30)


def identifies(hashes, strings):
    """Equal hashes exactly where the strings are equal."""
    by_string, by_hash = {}, {}
    for h, s in zip(hashes, strings):
        assert by_string.setdefault(s, h) == h and by_hash.setdefault(h, s) == s


def chunks_of(text):
    """(start, end) of each position's run of non-space characters."""
    spans = []
    for i, char in enumerate(text):
        a = i
        while a > 0 and not text[a - 1].isspace():
            a -= 1
        b = i + 1
        while b < len(text) and not text[b].isspace():
            b += 1
        spans.append((a, b))
    return spans


def shape(piece):
    classes = ["X" if c.isupper() else "x" if c.islower() else "d" if c.isdigit() else c
               for c in piece]
    return "".join(c for k, c in enumerate(classes)
                   if k == 0 or c != classes[k - 1] or c not in "Xxd")


@given(texts, texts)
def test_chunk_shapes_identify_each_side_of_a_gap(a, b):
    text = a + " " + b
    encoded = EncodedText(text)
    seen = [i for i, c in enumerate(text) if not c.isspace()]
    spans = chunks_of(text)
    identifies([encoded.shapes[0, i] for i in seen],
               ["<" + shape(text[spans[i][0] : i + 1]) for i in seen])
    identifies([encoded.shapes[1, i] for i in seen],
               [">" + shape(text[i + 1 : spans[i][1]]) for i in seen])
    assert shape("01-Feb-02") == "d-Xx-d"


@given(hs.text(alphabet="a.:)([] \n", max_size=40))
def test_paragraph_context_counts_open_brackets_and_chunks_since_sentence_punctuation(text):
    encoded = EncodedText(text)
    context = paragraph_context(encoded.chars, encoded.kinds)
    assert context.shape == (2, len(text))
    spans = chunks_of(text)
    for i in range(len(text)):
        paragraph = re.split(r"\n[ \t]*\n", text[: i + 1])[-1]
        depth = 0
        for char in paragraph:
            depth = depth + 1 if char in "([" else max(depth - 1, 0) if char in ")]" else depth
        chunks = paragraph[: spans[i][0] - (i + 1 - len(paragraph))].split()
        since = 0
        for chunk in chunks:
            since = 0 if chunk[-1] in ".!?:;" else since + 1
        assert context[0, i] == min(depth, 3)
        if not text[i].isspace():
            assert context[1, i] == min(since, 15), (text, i)


@given(texts, hs.data())
def test_first_pass_pieces_are_the_first_pass_tokens_around_a_gap(text, data):
    encoded = EncodedText(text)
    spans = chunks_of(text)
    seen = [i for i, c in enumerate(text) if not c.isspace()]
    first = np.full(len(text), -1, dtype=np.int8)
    for i in seen:  # a legal class: before a space or the end, never none
        at_end = spans[i][1] == i + 1
        first[i] = data.draw(hs.sampled_from([TOKEN, SENTENCE] if at_end else
                                             [NONE, TOKEN, SENTENCE]))
    left, right = first_pass_pieces(encoded.chars, encoded.kinds, first)
    ends = [i for i in seen if first[i] != NONE]
    starts = {i: max([spans[i][0]] + [e + 1 for e in ends if e < i]) for i in seen}
    identifies([left[i] for i in seen], [text[starts[i] : i + 1] for i in seen])
    after = [i for i in seen if i + 1 in starts]
    pieces = [text[i + 1 : min(e for e in ends if e > i) + 1] for i in after]
    identifies([right[i] for i in after], pieces)
    assert all(right[i] == 0 for i in seen if i + 1 not in starts)
