"""Feature templates: short text tables compiled once into a "feature program".

A table has one template per line (``#`` starts a comment):

    L0.wp + R0.w      @label

A template is one or more *parts* joined by ``+``; a part is ``ADDRESS.ATOMS``:

- ADDRESS: a base position of the system (`BASES_OF`: L0 L1 L2 R0 R1 R2 CL CR
  for Covington; S0 S1 S2 B0 B1 B2 B3, and T0 T1 for 2-Planar's inactive
  stack; IL IR, the focus words' inner neighbours, for all) followed by tree moves, each after a dot: ``h`` head, ``h2``
  grandparent, ``l`` / ``r`` leftmost / rightmost (farthest) dependent,
  ``l'`` / ``r'`` closest left / right dependent, ``l2`` / ``r2`` second
  leftmost / rightmost dependent.  ``L0.h.l'`` is the closest left dependent
  of L0's head.
- ATOMS: the last dotted component, a run of atom names (`ATOMS`): ``w`` form,
  ``p`` PoS (= ``u``, UPOS), ``x`` XPOS, ``m`` FEATS, ``l`` label of the arc
  into the word, ``d`` distance between the system's two focus words,
  ``v_l`` / ``v_r`` number of left / right dependents, ``s_l`` / ``s_r`` set of
  left / right dependents' labels; for rare and unknown words ``lc`` the
  lowercased form, ``sf`` its suffix, ``sh`` its shape
  (`arcwise.core.vocab.form_signature`); for a guided parser (stacking, 2011 paper
  Table 5) ``gd`` the direction of the word's head in the guide tree (left,
  right, root), ``gl`` its guide label, ``ga`` the guide arc between the
  system's two focus words (left to right, right to left, none); ``hr``
  where the word's current head lies relative to the two focus words (none,
  the root, left of the left one, it, between, the right one, beyond) -- the
  arc a non-monotonic transition would replace.
  ``L0.wv_r`` = L0's form and right valency.

A trailing ``@label`` marks a template that also feeds the label scorer.  ``@pair`` marks a
template conjoined with every other ``@pair`` template of the table: each pair is a template
of its own (``S0.p + B0.w``; labelled when both are), as a polynomial kernel of degree 2
conjoins an SVM's features (the MaltParser feature model of the 2012 paper,
`FEATURE_MODELS`).

`compile_table` turns a table into a `FeatureProgram` of int arrays that
`arcwise.features.extract.extract` runs: the distinct addresses (each a base
position or a move from an earlier address), the distinct (address, atom)
values, and per template the values it hashes.  Each template's hash seed is
the hash of its canonical text, so editing one line of a table leaves the
other templates' features (and a model's weights for them) unchanged.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from typing import NamedTuple

import numpy as np

from arcwise.core.errors import ArcwiseError, InputError
from arcwise.core.registry import did_you_mean
from arcwise.features.addresses import BASE_NAMES
from arcwise.features.hashing import text_hash
from arcwise.systems import REGISTRY, ids

# Base positions, one code each (the index); `addresses.base_positions` fills them.
BASES = BASE_NAMES
BASE = {name: code for code, name in enumerate(BASES)}


def _registered() -> dict[int, tuple]:
    """System id -> (its module, its registry entry), for every registered system."""
    return {ids.system_id(name): (importlib.import_module(entry.system), entry)
            for name, entry in REGISTRY.entries.items()}


# The base positions each system fills (its module's BASES).
BASES_OF = {system_id: module.BASES for system_id, (module, _) in _registered().items()}

# The words a neural scorer reads, by feature set name, of each system (its module's
# NEURAL_FEATURES; `neural_addresses`).
NEURAL_FEATURES_OF = {system_id: dict(getattr(module, "NEURAL_FEATURES", {}))
                      for system_id, (module, _) in _registered().items()}
# "paper" by default (with `arcwise.learn.neural.Sizes.dropout` 0.33): chosen on dev LAS over
# the shared treebanks against the perceptron (bench/RESULTS.md, "neural-defaults").
DEFAULT_NEURAL_FEATURES = "paper"

# Tree moves from a word.
MOVES = ("h", "h2", "l", "l'", "r", "r'", "l2", "r2")
(HEAD, GRANDPARENT) = range(2)
(LEFTMOST, CLOSEST_LEFT, RIGHTMOST, CLOSEST_RIGHT, LEFTMOST2, RIGHTMOST2) = range(2, 8)
MOVE = {name: code for code, name in enumerate(MOVES)}

# Atoms of a word (p is an alias of u: both are UPOS).
ATOMS = (
    "w", "u", "x", "m", "l", "d", "v_l", "v_r", "s_l", "s_r", "lc", "sf", "sh", "gd", "gl", "ga",
    "hr",
)
(FORM, UPOS, XPOS, FEATS, LABEL, DISTANCE) = range(6)
(LEFT_VALENCY, RIGHT_VALENCY, LEFT_LABELS, RIGHT_LABELS) = range(6, 10)
(LOWER, SUFFIX, SHAPE) = range(10, 13)
(GUIDE_DIRECTION, GUIDE_LABEL, GUIDE_ARC) = range(13, 16)
HEAD_PLACE = 16
ATOM = {name: code for code, name in enumerate(ATOMS)} | {"p": UPOS}
_ATOM_TOKEN = re.compile(r"v_l|v_r|s_l|s_r|lc|sf|sh|gd|gl|ga|hr|[wpuxmld]")

MAX_VALUES = 8  # atoms per template, all parts together
MARKERS = ("label", "pair")  # what may follow a template: "@label", "@pair"

# Which default table each system reads (the files in features/templates/; the registry
# names them, `arcwise.systems.REGISTRY`).
TABLE_FILE = {system_id: entry.features for system_id, (_, entry) in _registered().items()}

# Other feature models than a system's default table: name -> {default file: its
# replacement}.  "malt": MaltParser's arc-eager feature model (Nivre, Hall & Nilsson 2006)
# with every pair of its features conjoined (@pair), standing in for the degree-2
# polynomial kernel of the SVMs the 2012 paper trained (a linear model of the pairs is
# what that kernel computes, without its weighting).
DEFAULT_FEATURE_MODEL = "default"
FEATURE_MODELS = {"malt": {"arc_eager.txt": "arc_eager_malt.txt"}}

# The guide features (stacking) a guided parser adds to its system's table.
GUIDE_TABLE_FILE = {system_id: entry.guide_features
                    for system_id, (_, entry) in _registered().items()}
GUIDE_ATOMS = ("gd", "gl", "ga")

# The features a variant's extra transitions read, added to its system's table by
# default (one file per variant option; a file named by several options is added once):
# the buffer words of the 2012 paper's buffer transitions.
VARIANT_TABLE_FILES = {system_id: dict(entry.variant_features)
                       for system_id, (_, entry) in _registered().items()
                       if entry.variant_features}


# The candidate table of a parameterised system (covington-nl: its arcs with k >= 2,
# `arcwise.transition.candidates`), by system id, and what such a table may read: no word
# it would scan the sentence for, and no arc that a transition changes while j is the
# buffer front -- those of i_k and the words left of it only (l, hr), and of their heads
# the words (.h), not the arcs.
CANDIDATE_TABLE_FILE = {system_id: entry.candidate_features
                        for system_id, (_, entry) in _registered().items()
                        if entry.candidate_features}
SCANNED_BASES = ("CL", "CR")
SCANNED_ATOMS = ("v_l", "v_r", "s_l", "s_r")
CANDIDATE_ARC_BASES = ("L0", "L1", "L2")
ARC_ATOMS = ("l", "hr")


@dataclass(frozen=True)
class Part:
    """One word of a template: where it is (base + moves) and which of its atoms."""

    base: str
    moves: tuple[str, ...]
    atoms: tuple[str, ...]  # canonical names (p -> u)

    @property
    def address(self) -> tuple[str, ...]:
        return (self.base, *self.moves)

    def __str__(self) -> str:
        atoms = "".join("p" if a == "u" else a for a in self.atoms)
        return ".".join((*self.address, atoms))


@dataclass(frozen=True)
class Template:
    parts: tuple[Part, ...]
    label: bool  # also feeds the label scorer
    line: int  # line number in its table

    @property
    def text(self) -> str:
        """The canonical text (what the hash seed is computed from)."""
        return " + ".join(map(str, self.parts))


class FeatureProgram(NamedTuple):
    """A compiled table: int arrays that `extract` interprets.

    Address k is a base position (address_base[k] >= 0) or the move
    address_move[k] from the earlier address address_parent[k].  Value v is
    atom value_atom[v] of address value_address[v].  Template t hashes
    values template_values[t, :] (-1 padded) from seed template_seed[t];
    label_templates lists the templates that also feed the label scorer.
    """

    address_base: np.ndarray  # int32 [A]
    address_parent: np.ndarray  # int32 [A]
    address_move: np.ndarray  # int32 [A]
    address_dependents: np.ndarray  # bool [A]: needs its dependents scanned
    value_address: np.ndarray  # int32 [V]
    value_atom: np.ndarray  # int32 [V]
    template_values: np.ndarray  # int32 [T, MAX_VALUES]
    template_seed: np.ndarray  # uint64 [T]
    label_templates: np.ndarray  # int32 [L]


@dataclass(frozen=True)
class FeatureTable:
    """A parsed and compiled table; `text` is what a model file stores."""

    text: str
    system_id: int
    templates: tuple[Template, ...]
    program: FeatureProgram

    @property
    def n_features(self) -> int:
        """Transition features per configuration (one per template)."""
        return len(self.templates)

    @property
    def guided(self) -> bool:
        """Whether a template reads the guide tree (the parser then needs one)."""
        return any(a in GUIDE_ATOMS for t in self.templates for p in t.parts for a in p.atoms)

    @property
    def n_label_features(self) -> int:
        return int(self.program.label_templates.shape[0])

    def to_json(self) -> dict:
        """What a model file stores: the table's text (a model carries its feature set)."""
        return {
            "templates": self.text,
            "n_features": self.n_features,
            "n_label_features": self.n_label_features,
        }

    @classmethod
    def from_json(cls, data: dict, system: str | int, source: str,
                  compile: Callable[..., FeatureTable] | None = None) -> FeatureTable:
        """Recompile a table stored by `to_json` (source names the model file in errors)
        with `compile` (default `compile_table`; `compile_candidate_table`)."""
        table = (compile or compile_table)(data["templates"], system,
                                           f"{source} (feature templates)")
        counts = (table.n_features, table.n_label_features)
        if counts != (data["n_features"], data["n_label_features"]):
            raise ArcwiseError(
                f"{source}: the stored feature table compiles to {table.n_features} + "
                f"{table.n_label_features} features, the model was trained with "
                f"{data['n_features']} + {data['n_label_features']}"
            )
        return table


# --- parsing ------------------------------------------------------------------


def _parse_address(fields: list[str], text: str, bases: tuple[str, ...], where) -> None:
    """Check an address (a base position, then tree moves) given as its dotted fields."""
    base, *moves = fields
    if base not in BASES:
        raise where(f"unknown base position {base!r}; this system has {' '.join(bases)}")
    if base not in bases:
        raise where(f"{base} is not a base position of this system; it has {' '.join(bases)}")
    for move in moves:
        if move not in MOVE:
            raise where(f"unknown move {move!r} in {text!r}; moves are {' '.join(MOVES)}")


def _parse_part(text: str, bases: tuple[str, ...], where) -> Part:
    fields = text.split(".")
    if len(fields) < 2 or not all(fields):
        raise where(f"{text!r} is not ADDRESS.ATOMS (e.g. L0.wp, S0.h.p)")
    base, *moves, atoms = fields
    _parse_address(fields[:-1], text, bases, where)
    tokens = _ATOM_TOKEN.findall(atoms)
    if "".join(tokens) != atoms:
        raise where(
            f"cannot read atoms {atoms!r} in {text!r}; atoms are {' '.join(ATOMS)} (p = u)"
        )
    canonical = tuple(ATOMS[ATOM[t]] for t in tokens)
    if len(set(canonical)) != len(canonical):
        raise where(f"repeated atom in {text!r}")
    return Part(base, tuple(moves), canonical)


def parse(text: str, system_id: int, source: str = "<templates>") -> tuple[Template, ...]:
    """The templates of a table, with the conjunctions of its ``@pair`` templates after them
    (raises `InputError` at the first bad line)."""
    bases = BASES_OF[system_id]
    templates: list[Template] = []
    paired: list[Template] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue

        def where(message, number=number):
            return InputError(source, number, message)

        line, *markers = (m.strip() for m in line.split("@"))
        unknown = [m for m in markers if m not in MARKERS]
        if unknown or not line:
            raise where(f"unknown marker @{unknown[0] if unknown else ''} (markers are "
                        f"{' '.join('@' + m for m in MARKERS)})")
        parts = tuple(_parse_part(p.strip(), bases, where) for p in line.split("+"))
        n_values = sum(len(p.atoms) for p in parts)
        if n_values > MAX_VALUES:
            raise where(f"a template has at most {MAX_VALUES} atoms, this one {n_values}")
        template = Template(parts, "label" in markers, number)
        if template.text in seen:
            raise where(f"{template.text} repeats line {seen[template.text]}")
        seen[template.text] = number
        templates.append(template)
        if "pair" in markers:
            paired.append(template)
    if not templates:
        raise InputError(source, None, "the feature table has no templates")
    for k, first in enumerate(paired):
        for second in paired[k + 1:]:
            pair = Template(first.parts + second.parts, first.label and second.label,
                            second.line)
            n_values = sum(len(p.atoms) for p in pair.parts)
            if n_values > MAX_VALUES:
                raise InputError(source, second.line, f"{pair.text}: a template has at most "
                                 f"{MAX_VALUES} atoms, this @pair conjunction {n_values}")
            if pair.text not in seen:  # written out in the table already: once
                seen[pair.text] = second.line
                templates.append(pair)
    return tuple(templates)


# --- compiling ----------------------------------------------------------------


class _Addresses:
    """The distinct addresses of a program, each after its parent (a base position, or a
    move from an earlier address): address_of(("S0", "l")) is S0.l's index."""

    def __init__(self) -> None:
        self.index: dict[tuple[str, ...], int] = {}
        self.base: list[int] = []
        self.parent: list[int] = []
        self.move: list[int] = []

    def address_of(self, path: tuple[str, ...]) -> int:
        if path not in self.index:
            if len(path) == 1:
                base, parent, move = BASE[path[0]], -1, -1
            else:
                base, parent, move = -1, self.address_of(path[:-1]), MOVE[path[-1]]
            self.base.append(base)
            self.parent.append(parent)
            self.move.append(move)
            self.index[path] = len(self.base) - 1
        return self.index[path]

    def scanned(self, also: Iterable[int] = ()) -> np.ndarray:
        """Which addresses need their dependents scanned: those a dependent move starts
        from, and `also`."""
        dependents = np.zeros(len(self.base), dtype=np.bool_)
        dependents[list(also)] = True
        for a, move in enumerate(self.move):
            if move not in (-1, HEAD, GRANDPARENT):
                dependents[self.parent[a]] = True
        return dependents


def compile_templates(templates: tuple[Template, ...]) -> FeatureProgram:
    """The `FeatureProgram` of parsed templates (shared addresses and values once)."""
    book = _Addresses()
    values: dict[tuple[int, int], int] = {}
    rows = np.full((len(templates), MAX_VALUES), -1, dtype=np.int32)
    for t, template in enumerate(templates):
        k = 0
        for part in template.parts:
            a = book.address_of(part.address)
            for atom in part.atoms:
                rows[t, k] = values.setdefault((a, ATOM[atom]), len(values))
                k += 1
    dependents = book.scanned(a for (a, atom) in values
                              if atom in (LEFT_VALENCY, RIGHT_VALENCY, LEFT_LABELS, RIGHT_LABELS))
    pairs = list(values)
    return FeatureProgram(
        address_base=np.array(book.base, dtype=np.int32),
        address_parent=np.array(book.parent, dtype=np.int32),
        address_move=np.array(book.move, dtype=np.int32),
        address_dependents=dependents,
        value_address=np.array([a for a, _ in pairs], dtype=np.int32),
        value_atom=np.array([atom for _, atom in pairs], dtype=np.int32),
        template_values=rows,
        template_seed=np.array([text_hash(t.text) for t in templates], dtype=np.uint64),
        label_templates=np.array([t for t, tm in enumerate(templates) if tm.label], dtype=np.int32),
    )


def compile_addresses(addresses: tuple[str, ...], system: str | int,
                      source: str = "neural features") -> tuple[FeatureProgram, np.ndarray]:
    """The words a neural scorer reads (addresses such as ``S0``, ``S0.l``, ``B0.h.r``; the
    system's `NEURAL_FEATURES`), as a `FeatureProgram` with no templates and the index of
    each address in it: `arcwise.features.extract.address_words` resolves them.  ValueError
    names a bad address."""
    system_id = ids.system_id(system) if isinstance(system, str) else int(system)
    bases = BASES_OF[system_id]

    def where(message):
        return ValueError(f"{source}: {message}")

    book = _Addresses()
    wanted = []
    for text in addresses:
        fields = text.split(".")
        if not all(fields):
            raise where(f"{text!r} is not an address (e.g. S0, S0.l, L0.h)")
        _parse_address(fields, text, bases, where)
        wanted.append(book.address_of(tuple(fields)))
    if not wanted:
        raise where("no addresses")
    dependents = book.scanned()
    empty = np.zeros(0, dtype=np.int32)
    program = FeatureProgram(
        address_base=np.array(book.base, dtype=np.int32),
        address_parent=np.array(book.parent, dtype=np.int32),
        address_move=np.array(book.move, dtype=np.int32),
        address_dependents=dependents,
        value_address=empty, value_atom=empty,
        template_values=np.zeros((0, MAX_VALUES), dtype=np.int32),
        template_seed=np.zeros(0, dtype=np.uint64), label_templates=empty)
    return program, np.array(wanted, dtype=np.int64)


def neural_addresses(system: str | int, features: str = DEFAULT_NEURAL_FEATURES) -> tuple[str, ...]:
    """The words a neural scorer of `system` reads: the feature set named `features` (the
    system module's NEURAL_FEATURES: "paper", "compact"), or addresses of its own
    separated by spaces or commas ("S0 S1 B0 S0.l"); ValueError naming what is wrong."""
    system_id = ids.system_id(system) if isinstance(system, str) else int(system)
    sets = NEURAL_FEATURES_OF[system_id]
    if not isinstance(features, str):
        raise ValueError(f"neural features must be a set name or addresses, not {features!r}")
    if features in sets:
        return sets[features]
    addresses = tuple(features.replace(",", " ").split())
    if len(addresses) == 1 and "." not in addresses[0] and addresses[0] not in BASES:
        guess = did_you_mean(features, sets) or ";"
        raise ValueError(f"unknown neural feature set {features!r}{guess} this system has "
                         f"{', '.join(sets)}, or give addresses (S0 S1 S0.l)")
    compile_addresses(addresses, system_id, f"neural features {features!r}")  # checks them
    return addresses


def compile_table(text: str, system: str | int, source: str = "<templates>") -> FeatureTable:
    """Parse and compile a table for a system (name like "covington-nm" or an `ids` id)."""
    system_id = ids.system_id(system) if isinstance(system, str) else int(system)
    templates = parse(text, system_id, source)
    return FeatureTable(text, system_id, templates, compile_templates(templates))


def compile_candidate_table(text: str, system: str | int,
                            source: str = "<candidate templates>") -> FeatureTable:
    """A candidate table (`CANDIDATE_TABLE_FILE`) compiled for `system`: `InputError` at a
    template that reads dependents or CL / CR (a scan per candidate), an arc that changes
    while j is the buffer front (a candidate's features are computed once per j: only
    those of L0, L1, L2, and the words of their heads), or feeds the labeler."""
    table = compile_table(text, system, source)
    for template in table.templates:
        for part in template.parts:
            scanned = ([part.base] if part.base in SCANNED_BASES else []) + [
                m for m in part.moves if MOVE[m] not in (HEAD, GRANDPARENT)] + [
                a for a in part.atoms if a in SCANNED_ATOMS]
            if scanned:
                raise InputError(source, template.line, f"{template.text}: a candidate "
                                 f"template may not read {scanned[0]} (a scan per candidate)")
            arcs = [a for a in part.atoms if a in ARC_ATOMS]
            if part.base in CANDIDATE_ARC_BASES:
                changing = [".".join(part.moves)] if part.moves not in ((), ("h",)) else (
                    [f"h.{arcs[0]}"] if part.moves and arcs else [])
            else:
                changing = [*part.moves, *arcs]
            if changing:
                raise InputError(source, template.line, f"{template.text}: a candidate "
                                 f"template may not read {part.base}.{changing[0]} (it "
                                 "changes while j is the buffer front)")
        if template.label:
            raise InputError(source, template.line, f"{template.text}: candidate templates "
                             "do not feed the labeler (@label), the system's table does")
    return table


def default_candidate_table(system: str | int) -> FeatureTable | None:
    """The bundled candidate table of a parameterised system, compiled; None for a system
    without one."""
    system_id = ids.system_id(system) if isinstance(system, str) else int(system)
    file = CANDIDATE_TABLE_FILE.get(system_id)
    if file is None:
        return None
    return compile_candidate_table(bundled_text(file), system_id, f"templates/{file}")


def check_feature_model(system: str | int, feature_model: str) -> None:
    """ValueError unless `system` has a table of that feature model (`FEATURE_MODELS`)."""
    system_id = ids.system_id(system) if isinstance(system, str) else int(system)
    if feature_model == DEFAULT_FEATURE_MODEL:
        return
    if feature_model not in FEATURE_MODELS:
        guess = did_you_mean(feature_model, [DEFAULT_FEATURE_MODEL, *FEATURE_MODELS]) or ";"
        raise ValueError(f"unknown feature model {feature_model!r}{guess} known: "
                         f"{', '.join([DEFAULT_FEATURE_MODEL, *FEATURE_MODELS])}")
    if TABLE_FILE[system_id] not in FEATURE_MODELS[feature_model]:
        have = [n for n, files in FEATURE_MODELS.items() if TABLE_FILE[system_id] in files]
        raise ValueError(f"{system} has no {feature_model} feature model; it has "
                         f"{', '.join([DEFAULT_FEATURE_MODEL, *have])}")


def table_files(system: str | int, guided: bool = False, variant_features: bool = True,
                feature_model: str = DEFAULT_FEATURE_MODEL) -> list[str]:
    """The bundled files (features/templates/) of a system's default table, in order: the
    system's table (of `feature_model`, `FEATURE_MODELS`), its variant's additions
    (`VARIANT_TABLE_FILES`; a system given by id has no variant) unless variant_features
    is False, the guide features when guided."""
    system_id = ids.system_id(system) if isinstance(system, str) else int(system)
    check_feature_model(system_id, feature_model)
    files = [FEATURE_MODELS.get(feature_model, {}).get(TABLE_FILE[system_id],
                                                       TABLE_FILE[system_id])]
    if variant_features and isinstance(system, str):
        extra = VARIANT_TABLE_FILES.get(system_id, {})
        files += list(dict.fromkeys(extra[o] for o in ids.variant_options(system) if o in extra))
    if guided:
        files.append(GUIDE_TABLE_FILE[system_id])
    return files


def default_text(system: str | int, guided: bool = False, variant_features: bool = True,
                 feature_model: str = DEFAULT_FEATURE_MODEL) -> str:
    """The bundled table of a system (``features/templates/*.txt``; of `feature_model`): with
    the features of its variant's transitions ("arc-eager+lba": the buffer words) unless
    variant_features is False, and with its guide features (stacking) when guided."""
    return "\n".join(map(bundled_text, table_files(system, guided, variant_features,
                                                   feature_model)))


def bundled_text(file: str) -> str:
    """The text of a bundled table file (features/templates/FILE)."""
    return resources.files("arcwise.features").joinpath("templates", file).read_text(
        encoding="utf-8")


def default_table(system: str | int, guided: bool = False, variant_features: bool = True,
                  feature_model: str = DEFAULT_FEATURE_MODEL) -> FeatureTable:
    """The bundled table of a system, compiled (see `default_text`)."""
    files = table_files(system, guided, variant_features, feature_model)
    source = " + ".join(f"templates/{f}" for f in files)
    return compile_table(default_text(system, guided, variant_features, feature_model),
                         system, source)


def table_from_file(path, system: str | int, guided: bool = False) -> FeatureTable:
    """A table written by the user (`arcwise train --features`, as MaltParser's feature
    model files), compiled for `system`; when guided, the system's guide features are
    added unless the file has guide features of its own.  Raises `InputError` (file and
    line) for an unreadable file or a bad template."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise InputError(str(path), None, f"cannot read the feature table ({reason})") from None
    table = compile_table(text, system, str(path))
    if guided and not table.guided:
        guide_file = GUIDE_TABLE_FILE[table.system_id]
        table = compile_table(text + "\n" + bundled_text(guide_file), system,
                              f"{path} + templates/{guide_file}")
    return table
