"""The buffer-word features of arc-eager with buffer transitions (2012 paper): which systems get
them, that plain arc-eager's table stays as it was, and which words they read."""

import hashlib

import numpy as np
import pytest

from arcwise import systems
from arcwise.features.extract import MISSING, extract, new_outputs
from arcwise.features.hashing import combine, text_hash
from arcwise.features.templates import (
    VARIANT_TABLE_FILES,
    compile_table,
    default_table,
    default_text,
    table_files,
)
from arcwise.features.words import FORM, UPOS, WORD_COLUMNS
from arcwise.systems import ids

BUFFER_FILE = "arc_eager_buffer.txt"
# sha256 of the bundled arc-eager tables at the commit that added the buffer-word features:
# models trained before keep their features (and every plain arc-eager result stays valid).
PLAIN_ARC_EAGER_SHA256 = "426c529f0ce5281bbefc20079df8466955ff3f27f93797c98006a8c3f513637b"
GUIDED_ARC_EAGER_SHA256 = "5c4015c791cdd9cc8c666c2384e2d38693b92b104b5481028ad72cdaace0aded"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_plain_arc_eager_table_is_byte_identical():
    assert sha256(default_text("arc-eager")) == PLAIN_ARC_EAGER_SHA256
    assert sha256(default_text("arc-eager", guided=True)) == GUIDED_ARC_EAGER_SHA256
    for system in ("arc-eager", ids.ARC_EAGER, "arc-eager+lba", "arc-eager+lnba+rnba"):
        assert sha256(default_text(system, variant_features=False)) == PLAIN_ARC_EAGER_SHA256
    # systems without variant features are untouched
    for system in ("arc-hybrid+swap", "covington+root", "arc-eager-nm"):
        assert default_text(system) == default_text(system.split("+")[0])


@pytest.mark.parametrize("options", ["lba", "rba", "lnba", "rnba", "lba+rba", "lnba+rnba",
                                     "lba+rba+lnba+rnba"])
def test_a_buffer_transition_adds_the_buffer_words_once(options):
    system = f"arc-eager+{options}"
    assert table_files(system) == ["arc_eager.txt", BUFFER_FILE]
    assert table_files(system, guided=True) == ["arc_eager.txt", BUFFER_FILE, "guide_stack.txt"]
    plain, table = default_table("arc-eager"), default_table(system)
    added = [t.text for t in table.templates[plain.n_features:]]
    assert [t.text for t in table.templates[:plain.n_features]] == [t.text for t in plain.templates]
    assert len(added) == 24 and table.n_label_features == table.n_features
    # the seeds of the base templates are unchanged: the new lines only add features
    assert np.array_equal(table.program.template_seed[:plain.n_features],
                          plain.program.template_seed)
    bases = {p.base for t in table.templates[plain.n_features:] for p in t.parts}
    assert bases == {"S0", "B0", "B1", "B2"}


def test_variant_tables_are_named_by_option_not_by_system_name():
    from arcwise.systems.arc_eager import VARIANTS

    assert set(VARIANT_TABLE_FILES) == {ids.ARC_EAGER}
    assert set(VARIANT_TABLE_FILES[ids.ARC_EAGER]) == set(VARIANTS)


# A hand-built configuration of arc-eager+lba+rba+lnba+rnba on 9 words:
#   shift, lnba (3 -> 1), shift, rba (3 -> 4), lnba (5 -> 2)
# leaves σ = [0], β = [3, 5, 6, 7, 8, 9]: B0 = 3 with left dependent 1 and right
# dependent 4 (no second rightmost), B1 = 5 with left dependent 2, B2 = 6; S0 = the root 0
# (no head, no dependents yet).
SCRIPT = [("shift", -1), ("left-nonproj-buffer-arc", 0), ("shift", -1),
          ("right-buffer-arc", 1), ("left-nonproj-buffer-arc", 2)]
ADDRESSED = {"S0": 0, "B0": 3, "B1": 5, "B2": 6, "B0.l": 1, "B0.r": 4, "B0.r2": None,
             "B1.l": 2, "S0.l": None, "S0.r": None, "S0.h": None}


def hand_built():
    ts = systems.get("arc-eager+lba+rba+lnba+rnba")
    c = ts.initial(9)
    for action, label in SCRIPT:
        c = ts.apply(c, action, label)
    fields = ts.kernels.describe(c.state)
    assert list(fields["σ"]) == [0] and list(fields["β"]) == [3, 5, 6, 7, 8, 9]
    assert ts.heads(c)[1:6] == [3, 5, -1, 3, -1]
    return c


def test_buffer_templates_read_the_words_the_buffer_transitions_join():
    c = hand_built()
    text = default_text("arc-eager+lba")
    buffer_lines = text[len(default_text("arc-eager")) + 1:]
    table = compile_table(buffer_lines, "arc-eager+lba")
    n = 9
    words = np.zeros((n + 1, len(WORD_COLUMNS)), dtype=np.int32)
    words[:, FORM] = 100 + np.arange(n + 1)  # every word its own form and tag
    words[:, UPOS] = 200 + np.arange(n + 1)
    out_t, out_l = new_outputs(table.program)
    extract(ids.ARC_EAGER, c.state.copy(), table.program, words, out_t, out_l)
    checked = 0
    for template, got in zip(table.templates, out_t.tolist()):
        if any(set(p.atoms) - {"w", "u"} for p in template.parts):
            continue  # valencies and label sets: checked against the reference extractor
        expected = np.uint64(text_hash(template.text))
        for part in template.parts:
            word = ADDRESSED[".".join(part.address)]
            for atom in part.atoms:
                column = FORM if atom == "w" else UPOS
                value = MISSING if word is None else np.uint64(words[word, column] + 2)
                expected = np.uint64(combine(expected, np.uint64(value)))
        assert got == int(expected), template.text
        checked += 1
    assert checked == 20


def test_models_keep_the_table_they_were_trained_with(tmp_path):
    import arcwise
    from arcwise.transition.train import train
    from tests.ewt import train_and_dev

    sentences, _ = train_and_dev(10, 0)
    for variant_features, expected in ((False, default_text("arc-eager")),
                                       (True, default_text("arc-eager+rba"))):
        parser, _ = train("arc-eager+rba", sentences, oracle="static", epochs=1, seed=1,
                          transition_buckets=2**10, label_buckets=2**8,
                          variant_features=variant_features)
        path = tmp_path / f"m{variant_features}.arcwise"
        parser.save(path)
        loaded = arcwise.load(path).parser
        assert loaded.table.text == expected
        assert loaded.hyperparameters["variant_features"] is variant_features
