"""A new pipeline stage is one class and one registry line (`arcwise.pipeline.stages`): the
pipeline runs it in registry order, saves it under its prefix and loads it back, with no
edit to the Pipeline class."""

import dataclasses

import numpy as np
import pytest

import arcwise
from arcwise.pipeline import pipeline as pipeline_module
from arcwise.pipeline import training  # imported before any test patches COMPONENTS, which it binds
from arcwise.pipeline.pipeline import COMPONENTS, Pipeline
from arcwise.pipeline.stages import STAGES, StageEntry
from tests.ewt import train_and_dev
from tests.tiny_model import tiny_parser


class Lowercaser:
    """A toy stage: every lemma that is _ becomes the lowercased form (or its first n
    characters), a one-array model."""

    def __init__(self, n: int):
        self.n = n

    @classmethod
    def train(cls, sentences, dev=None, **options):
        return cls(max(len(f) for s in sentences for f in s.form[1:]))

    def annotate(self, sentences):
        return [dataclasses.replace(s, lemma=(s.lemma[0], *(
            f.lower()[: self.n] if lemma == "_" else lemma
            for f, lemma in zip(s.form[1:], s.lemma[1:])))) for s in sentences]

    def saved(self, prefix=""):
        return {prefix + "n": np.array([self.n])}, {"n": self.n}

    @classmethod
    def from_saved(cls, arrays, meta, source, prefix=""):
        assert int(arrays[prefix + "n"][0]) == meta["n"]
        return cls(meta["n"])


@pytest.fixture
def with_lowercaser(monkeypatch):
    stages = {**STAGES, "lowercaser": StageEntry(
        needs=("words",), provides=("lemmas",),
        trainer="tests.test_pipeline_stages:Lowercaser.train",
        loader="tests.test_pipeline_stages:Lowercaser.from_saved")}
    monkeypatch.setattr(pipeline_module, "STAGES", stages)
    monkeypatch.setattr(pipeline_module, "COMPONENTS", tuple(stages))


def test_the_registry_orders_the_pipeline():
    assert COMPONENTS == tuple(STAGES) == ("tokenizer", "tagger", "parser")
    assert all(entry.needs and entry.provides for entry in STAGES.values())


def test_a_registered_stage_runs_saves_and_loads(with_lowercaser, tmp_path):
    sentences, _ = train_and_dev(10, 0)
    nlp = Pipeline(parser=tiny_parser(tagged=False), lowercaser=Lowercaser.train(sentences))
    assert nlp.components == ("parser", "lowercaser")
    doc = nlp("The Dog barks .")
    assert [w.lemma for w in doc.words] == ["the", "dog", "barks", "."]
    assert all(w.deprel != "_" for w in doc.words)  # the parser ran too
    path = tmp_path / "with-stage.pipeline"
    nlp.save(path)
    loaded = arcwise.load(path)
    assert loaded.components == ("parser", "lowercaser")
    assert loaded("The Dog barks .").to_conllu() == doc.to_conllu()


def test_an_unknown_stage_is_refused():
    with pytest.raises(ValueError, match="unknown stage"):
        Pipeline(parser=tiny_parser(), spellchecker=object())


def test_a_registered_stage_trains_with_the_pipeline(with_lowercaser, monkeypatch):
    monkeypatch.setattr(training, "COMPONENTS", pipeline_module.COMPONENTS)
    monkeypatch.setattr(training, "STAGES", pipeline_module.STAGES)
    sentences, _ = train_and_dev(10, 0)
    nlp, log = training.train_pipeline(sentences, None, ["lowercaser"])
    assert nlp.components == ("lowercaser",) and "lowercaser" in log
    assert [w.lemma for w in nlp(["Dogs", "bark"]).words] == ["dogs", "bark"]


def test_a_stage_whose_needs_no_stage_provides_is_refused(monkeypatch):
    stages = {**STAGES, "coref": StageEntry(needs=("tree", "entities"), provides=("chains",),
                                            trainer="x:y", loader="x:y")}
    monkeypatch.setattr(pipeline_module, "STAGES", stages)
    monkeypatch.setattr(pipeline_module, "COMPONENTS", tuple(stages))
    from arcwise.pipeline import stages as stages_module

    monkeypatch.setattr(stages_module, "STAGES", stages)
    with pytest.raises(ValueError, match="coref stage needs entities"):
        Pipeline(parser=tiny_parser(), coref=object())


def test_a_pipeline_file_missing_a_components_arrays_names_the_component(tmp_path):
    """Each array of a pipeline file taken out, or all of one component's: the error names
    the component and the array as the file names it, not the component's own name for
    it ('transition_weights' of which?)."""
    from arcwise.core.errors import ArcwiseError
    from arcwise.models import modelfile
    from tests.tiny_model import tiny_pipeline

    arrays, meta = tiny_pipeline().saved()
    path = tmp_path / "damaged.arcwise"
    for name in sorted(arrays):
        component = name.split("_")[0]
        modelfile.save(path, {k: a for k, a in arrays.items() if k != name}, meta)
        with pytest.raises(ArcwiseError) as error:
            arcwise.load(path)
        assert str(error.value) == \
            f"{path}: the {component}'s arrays are missing (no array {name!r})"
    for component in ("tokenizer", "tagger", "parser"):
        modelfile.save(path, {k: a for k, a in arrays.items()
                              if not k.startswith(component + "_")}, meta)
        with pytest.raises(ArcwiseError) as error:
            arcwise.load(path)
        assert str(error.value) == \
            f"{path}: the {component}'s arrays are missing (no {component}_* array in the file)"
