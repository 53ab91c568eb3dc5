"""Feature tables: the grammar, its errors, and the bundled tables (the 2017 paper's Table 2)."""

import re

import numpy as np
import pytest

from arcwise.core.errors import InputError
from arcwise.features.templates import (
    MAX_VALUES,
    compile_table,
    default_table,
    default_text,
    parse,
    table_from_file,
)
from arcwise.systems import ids

# Table 2 of the 2017 paper, as printed (LaTeX of the paper's text), in order.
PAPER_TABLE_2 = r"""
$L_0w; L_0p; L_0wp; L_0l; L_{0h}w; L_{0h}p; L_{0h}l; L_{0l'}w; L_{0l'}p;$
$L_{0l'}l; L_{0r'}w; L_{0r'}p; L_{0r'}l; L_{0h2}w; L_{0h2}p; L_{0h2}l; L_{0l}w;$
$L_{0l}p; L_{0l}l; L_{0r}w; L_{0r}p; L_{0r}l; L_{0}wd; L_{0}pd; L_{0}wv_{r}; L_{0}pv_{r};$
$L_0wv_l; L_0pv_l; L_0ws_l; L_0ps_l; L_0ws_r; L_0ps_r; L_1w; L_1p;$
$L_1wp; R_0w; R_0p; R_0wp; R_{0h}w; R_{0h}p; R_{0h}l; R_{0h2}w;$
$R_{0h2}p; R_{0l'}w; R_{0l'}p; R_{0l'}l; R_{0l}w; R_{0l}p; R_{0l}l; R_0wd;$
$R_0 pd; R_0 wv_l; R_0 pv_l; R_0 ws_l; R_0 ps_l; R_1 w; R_1 p; R_1 wp;$
$R_2w; R_2p; R_2wp; CLw; CLp; CLwp; CRw; CRp; CRwp;$
$L_0wp+R_0wp; L_0wp+R_0w; L_0w+R_0wp; L_0wp+R_0p;$
$L_0p+R_0wp; L_0w+R_0w; L_0p+R_0p; R_0p+R_1p; L_0w+R_0wd;$
$L_0 p + R_0 p d;$
$R_0 p + R_1 p + R_2 p; L_0 p + R_0 p + R_1 p; L_{0h} p + L_0 p + R_0 p;$
$L_{0}p+L_{0l'}p+R_{0}p; L_{0}p+L_{0r'}p+R_{0}p; L_{0}p+R_{0}p+R_{0l'}p;$
$L_0 p + L_{0l'} p + L_{0l} p; L_0 p + L_{0r'} p + L_{0r} p; L_0 p + L_{0h} p + L_{0h2} p;$
$R_0 p + R_{0l'} p + R_{0l} p;$
"""

_PAPER_PART = re.compile(r"(CL|CR|[LR]_\{?\d)(h2|h|l'|l|r'|r)?\}?(.+)")


def paper_templates() -> list[str]:
    """The paper's templates in arcwise notation: L_{0h}p -> L0.h.p, L_{0}wv_{r} -> L0.wv_r."""
    text = PAPER_TABLE_2.replace("$", "").replace(" ", "").replace("\n", "")
    text = re.sub(r"_\{([lr])\}", r"_\1", text)  # v_{r} -> v_r
    out = []
    for item in filter(None, text.split(";")):
        parts = []
        for part in item.split("+"):
            base, move, atoms = _PAPER_PART.fullmatch(part).groups()
            base = base.replace("_", "").replace("{", "")
            parts.append(".".join([base] + ([move] if move else []) + [atoms]))
        out.append(" + ".join(parts))
    return out


# Templates the bundled Covington table adds after Table 2 (XPOS, FEATS, label sets across the arc).
COVINGTON_ADDITIONS = [
    "L0.x", "R0.x", "L0.x + R0.x", "L0.m", "R0.m", "L0.pm + R0.p", "L0.p + R0.pm",
    "L0.ps_l + R0.p", "L0.ps_r + R0.p", "L0.p + R0.ps_l",
    # rare and unknown words: lowercased form, suffix, shape (arcwise.core.vocab.form_signature)
    "L0.lc", "L0.sf", "L0.sh", "L0.sfp", "R0.lc", "R0.sf", "R0.sh", "R0.sfp", "R1.sf",
    "L0.sf + R0.sf", "L0.p + R0.sf", "L0.sf + R0.p",
    # surrounding PoS of the arc: the inner neighbours IL = L0 + 1, IR = R0 - 1
    "L0.p + IL.p + R0.p", "L0.p + IR.p + R0.p", "L0.p + IL.p + IR.p + R0.p",
    "L1.p + L0.p + IR.p + R0.p", "L1.p + L0.p + R0.p + R1.p", "L0.p + IL.p + R0.p + R1.p",
    # the arcs an arc transition would replace: hr = place of the current head
    "L0.hr + R0.hr", "L0.p + L0.hr + R0.p", "L0.p + R0.p + R0.hr", "L0.h.p + L0.hr + R0.p",
    "L0.p + R0.h.p + R0.hr", "L0.p + R0.p + R0.h.p", "L0.h.l + L0.p + R0.p",
    "L0.p + R0.p + R0.h.l", "L0.h.p + L0.l + L0.p + R0.p", "L0.h.p + L0.hr + L0.p + R0.p",
    "L0.p + R0.p + R0.h.p + R0.l", "L0.h.w + L0.p + R0.p", "L0.p + R0.p + R0.h.w",
    "L0.h.p + L0.w + R0.w",
]  # fmt: skip


def test_covington_table_is_the_papers_table_2():
    expected = paper_templates()
    assert len(expected) == 87  # 67 unigrams, 10 pairs, 10 triples
    for system in ("covington", "covington-nm"):
        table = default_table(system)
        assert [t.text for t in table.templates[:87]] == expected
        assert [t.text for t in table.templates[87:]] == COVINGTON_ADDITIONS
        assert table.n_features == 87 + len(COVINGTON_ADDITIONS)


def test_bundled_tables_compile_and_feed_the_labeler():
    counts = {}
    for name, system in ids.BY_NAME.items():
        table = default_table(system)
        assert table.text == default_text(name)
        assert table.n_label_features == table.n_features  # the labeler reads every template
        assert table.program.template_seed.dtype == np.uint64
        assert len(set(table.program.template_seed.tolist())) == table.n_features
        counts[name] = (table.n_features, table.n_label_features)
    assert counts["covington"] == (129, 129)
    assert counts["arc-eager"] == (122, 122)
    assert counts["arc-hybrid"] == (128, 128)
    assert counts["two-planar"] == (120, 120)
    # the stack systems' tables start with Zhang & Nivre (2011)'s 72 templates
    for name in ("arc-eager", "arc-hybrid", "two-planar"):
        assert counts[name][0] > 72
        zn = [t.text for t in default_table(name).templates[:72]]
        assert zn == [t.text for t in default_table("arc-eager").templates[:72]]


def test_a_table_file_gets_the_guide_features_when_guided_unless_it_has_its_own(tmp_path):
    plain, guided = tmp_path / "plain.txt", tmp_path / "guided.txt"
    plain.write_text("S0.w\nS0.p + B0.p\n")
    guided.write_text("S0.w\nS0.gl + B0.gd\n")
    assert not table_from_file(plain, "arc-eager").guided
    added = table_from_file(plain, "arc-eager", guided=True)
    guide_only = default_table("arc-eager", guided=True).n_features - default_table(
        "arc-eager").n_features
    assert added.guided and added.n_features == 2 + guide_only
    assert table_from_file(guided, "arc-eager", guided=True).n_features == 2
    with pytest.raises(InputError, match="cannot read the feature table"):
        table_from_file(tmp_path / "missing.txt", "arc-eager")


def test_two_planar_table_reads_the_inactive_stack():
    bases = {p.base for t in default_table("two-planar").templates for p in t.parts}
    assert {"T0", "T1", "B3"} <= bases


def test_grammar():
    (t,) = parse("L0.h.l'.wp + R0.d   @label  # comment", ids.COVINGTON)
    assert t.label and t.line == 1
    assert [(p.base, p.moves, p.atoms) for p in t.parts] == [
        ("L0", ("h", "l'"), ("w", "u")),
        ("R0", (), ("d",)),
    ]
    assert t.text == "L0.h.l'.wp + R0.d"
    (u,) = parse("S0.uxm v_l".replace(" ", ""), ids.ARC_EAGER)
    assert u.parts[0].atoms == ("u", "x", "m", "v_l") and u.text == "S0.pxmv_l"


def test_program_shares_addresses_and_values():
    table = compile_table("L0.w\nL0.wp\nL0.h.p + L0.p\nL0.h.h2.w", "covington")
    p = table.program
    # addresses: L0, L0.h, L0.h.h2 (each once, parents first)
    assert p.address_base.tolist() == [0, -1, -1]
    assert p.address_parent.tolist() == [-1, 0, 1]
    # values: L0.w, L0.p, L0.h.p, L0.h.h2.w
    assert len(p.value_address) == 4
    assert p.template_values[:, :3].tolist() == [[0, -1, -1], [0, 1, -1], [2, 1, -1], [3, -1, -1]]
    assert p.label_templates.tolist() == []


def test_seeds_depend_on_the_template_text_only():
    a = compile_table("L0.w\nR0.p\nL0.wp + R0.p", "covington").program.template_seed
    b = compile_table("R0.p\n# moved\n\nL0.wp+R0.p\nL0.w", "covington").program.template_seed
    assert sorted(a.tolist()) == sorted(b.tolist())


@pytest.mark.parametrize(
    "text,line,message",
    [
        ("L0.w\nQ0.w", 2, "unknown base position 'Q0'"),
        ("S0.w", 1, "S0 is not a base position of this system"),
        ("L0.w\n\n# c\nL0.x.w", 4, "unknown move 'x'"),
        ("L0.wq", 1, "cannot read atoms 'wq'"),
        ("L0.v", 1, "cannot read atoms 'v'"),
        ("L0.ww", 1, "repeated atom"),
        ("L0", 1, "is not ADDRESS.ATOMS"),
        ("L0..w", 1, "is not ADDRESS.ATOMS"),
        ("L0.w +", 1, "is not ADDRESS.ATOMS"),
        ("L0.w\nL0.p\nL0.w", 3, "L0.w repeats line 1"),
        ("L0.p\nL0.u", 2, "L0.p repeats line 1"),
        ("L0.w @lable", 1, "unknown marker @lable"),
        ("L0.wpxm + R0.wpxm + R1.w", 1, f"at most {MAX_VALUES} atoms"),
        ("# nothing\n", None, "no templates"),
    ],
)
def test_bad_lines_name_file_and_line(text, line, message):
    with pytest.raises(InputError) as error:
        compile_table(text, "covington", "my.txt")
    assert error.value.line == line
    assert message in error.value.message
    where = f"my.txt:{line}" if line is not None else "my.txt"
    assert str(error.value).startswith(f"{where}: ")


def test_model_metadata_round_trip():
    import json

    from arcwise.core.errors import ArcwiseError
    from arcwise.features import FeatureTable

    table = default_table("two-planar")
    stored = json.loads(json.dumps(table.to_json()))
    again = FeatureTable.from_json(stored, "two-planar", "m.arcwise")
    assert again.text == table.text
    for a, b in zip(again.program, table.program):
        assert np.array_equal(a, b)
    stored["n_features"] += 1
    with pytest.raises(ArcwiseError, match="m.arcwise"):
        FeatureTable.from_json(stored, "two-planar", "m.arcwise")
    with pytest.raises(InputError, match=r"m.arcwise \(feature templates\):1: "):
        stored = {"templates": "Z9.w", "n_features": 1, "n_label_features": 0}
        FeatureTable.from_json(stored, "two-planar", "m.arcwise")


def test_pair_templates_are_conjoined_two_by_two():
    """@pair: each pair of marked templates is a template of its own (a degree-2 kernel's
    conjunctions, written out), labelled when both are, once even if written out too."""
    system = ids.system_id("arc-eager")
    templates = parse("S0.p @pair @label\nB0.w @label @pair\nB1.p @pair\nS0.p + B1.p\n",
                      system)
    texts = [t.text for t in templates]
    assert texts == ["S0.p", "B0.w", "B1.p", "S0.p + B1.p", "S0.p + B0.w", "B0.w + B1.p"]
    label = {t.text: t.label for t in templates}
    assert label["S0.p + B0.w"] and not label["B0.w + B1.p"]
    with pytest.raises(InputError, match=r"<templates>:2: .*at most 8 atoms, this @pair"):
        parse("S0.wpxml @pair\nB0.wpxm @pair\n", system)
    with pytest.raises(InputError, match="unknown marker @pairs"):
        parse("S0.p @pairs\n", system)


def test_the_malt_feature_model_is_maltparsers_features_and_their_pairs():
    """--feature-model malt (2012 paper): MaltParser's 14 arc-eager features and their 91
    pairs, the variant's buffer-word features added as with the default table."""
    from arcwise.features.templates import check_feature_model

    malt = default_table("arc-eager", feature_model="malt")
    assert malt.n_features == 14 + 14 * 13 // 2
    assert "S0.p + B0.p" in {t.text for t in malt.templates}
    with_buffer = default_table("arc-eager+lba", feature_model="malt")
    assert with_buffer.n_features > malt.n_features
    assert default_table("arc-eager-nm", feature_model="malt").n_features == malt.n_features
    with pytest.raises(ValueError, match="arc-hybrid has no malt feature model"):
        check_feature_model("arc-hybrid", "malt")
    with pytest.raises(ValueError, match="did you mean malt"):
        check_feature_model("arc-eager", "malr")
