"""--device (issue #40 item 9): the neural models' networks on a GPU where torch sees one.

Torch sees no GPU here, so these tests run the device-agnostic code on the CPU: a
device name resolves (cuda refused in one line, exit 2, on every command that takes
--device), auto is the CPU and trains and parses exactly as cpu does, every network
runs on torch's "meta" device (which, as a GPU would, refuses a CPU tensor mixed into
its operations), and no model code reads a tensor into numpy without copying it to the
CPU first.
"""

import ast
import re
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from arcwise.core import device
from arcwise.core.errors import ArcwiseError
from tests.cli_run import run
from tests.ewt import train_and_dev

SRC = Path(__file__).resolve().parents[1] / "src" / "arcwise"
no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="torch sees a GPU here")
TINY = ("lstm=8", "word=8", "suffix=4", "shape=4", "tag=4", "chars=4", "char_embedding=4",
        "threads=1")


@pytest.fixture(autouse=True)
def on_the_cpu_after():
    """Each test leaves the process's device as it found it: the CPU."""
    yield
    device.use_device("cpu")


@no_gpu
def test_device_names_resolve_and_bad_ones_are_refused():
    assert not torch.cuda.is_available()
    assert device.current_device() == "cpu"
    assert device.resolve_device("cpu") == "cpu"
    assert device.resolve_device("auto") == "cpu"
    for name in ("cuda", "cuda:0", "cuda:3"):
        with pytest.raises(ArcwiseError, match=f"--device {name}: torch sees no GPU here"):
            device.resolve_device(name)
    for name in ("gpu", "cuda:", "cuda:x", "CPU", ""):
        with pytest.raises(ArcwiseError, match="use one of cpu, cuda, auto or cuda:N"):
            device.resolve_device(name)
    assert device.use_device("auto") == "cpu" == device.current_device()


@no_gpu
@pytest.mark.parametrize("command", [
    ["train", "--system", "arc-eager", "--model", "bilstm"],
    ["train", "--system", "mst", "--model", "biaffine"],
    ["train", "--system", "tagger", "--tagger", "model=bilstm"],
    ["parse", "-m"],
    ["serve", "-m"],
    ["experiment"],
])
def test_cuda_without_a_gpu_is_one_line_and_exit_2(command, tmp_path, capsys, monkeypatch):
    missing = tmp_path / "missing"  # refused before any file is read
    args = ([*command, "--train", missing, "-o", tmp_path / "m.arcwise"]
            if command[0] == "train" else [*command, missing])
    code, out, err = run([*args, "--device", "cuda"], capsys, monkeypatch)
    assert code == 2 and out == "" and "Traceback" not in err
    assert re.fullmatch(r"arcwise: --device cuda: torch sees no GPU here [^\n]*\n", err), err


def test_device_on_a_run_without_a_network_is_refused(tmp_path, capsys, monkeypatch):
    code, _, err = run(["train", "--system", "arc-eager", "--train", tmp_path / "missing",
                        "-o", tmp_path / "m.arcwise", "--device", "auto"], capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1
    assert "--device applies to the neural models only" in err


@pytest.mark.end_to_end  # six command lines
@pytest.mark.neural
@no_gpu
def test_auto_trains_and_parses_as_cpu_does(tmp_path, capsys, monkeypatch):
    from arcwise.models import modelfile

    treebank = tmp_path / "small.conllu"
    sentences = train_and_dev(6, 0)[0]
    treebank.write_text("".join("\n".join(s.lines) + "\n\n" for s in sentences))
    tiny = [a for option in TINY for a in ("--neural", option)]
    runs = {"bilstm": ["--system", "arc-hybrid", "--model", "bilstm", *tiny],
            "biaffine": ["--system", "mst", "--model", "biaffine", *tiny],
            "tagger": ["--system", "tagger", "--tagger", "model=bilstm",
                       *(a.replace("--neural", "--tagger") for a in tiny)]}
    for name, options in runs.items():
        saved, parsed = [], []
        for where in ("cpu", "auto"):
            model = tmp_path / f"{name}-{where}.arcwise"
            code, _, err = run(["train", "--train", treebank, "--epochs", "1", "-o", model,
                                *options, "--device", where], capsys, monkeypatch)
            assert code == 0, err
            arrays, meta = modelfile.load(model)
            meta.pop("command_line", None)  # the one difference: --device cpu or auto
            saved.append((arrays, meta))
            code, out, err = run(["parse", "-m", model, "--device", where, treebank],
                                 capsys, monkeypatch)
            assert code == 0, err
            parsed.append(out)
        (cpu_arrays, cpu_meta), (auto_arrays, auto_meta) = saved
        assert cpu_meta == auto_meta and cpu_arrays.keys() == auto_arrays.keys()
        assert all(np.array_equal(cpu_arrays[k], auto_arrays[k]) for k in cpu_arrays), name
        assert parsed[0] == parsed[1], name


def test_every_network_keeps_its_tensors_on_its_device():
    """Built on torch's meta device, each network runs its forward pass: a tensor made on
    the CPU and mixed in would be refused there, as on a GPU."""
    from arcwise import systems
    from arcwise.core.vocab import Vocabularies
    from arcwise.features.batch import Batch
    from arcwise.features.templates import neural_addresses
    from arcwise.graph.biaffine import BiaffineNetwork, BiaffineSizes
    from arcwise.graph.biaffine_parser import padding_mask
    from arcwise.learn import perceptron as pc
    from arcwise.learn.neural import Sizes, char_vocabulary, encoder_inputs, vocabulary_sizes
    from arcwise.pipeline.stages.bilstm_tagger import TaggerNetwork
    from arcwise.transition.scorers.bilstm import BiLSTMScorer

    # short sentences, one layer: on meta, torch runs an LSTM step by step in Python
    sentences = [s for s in train_and_dev(100, 0)[0] if 3 <= s.n <= 8][:4]
    vocabularies = Vocabularies.build(sentences)
    batch = Batch(sentences, vocabularies)
    chars = char_vocabulary(batch.forms)
    sizes = {"lstm": 8, "layers": 1, "word": 8, "suffix": 4, "shape": 4, "tag": 4, "chars": 4,
             "char_embedding": 4}
    device._device = "meta"  # not a device to parse on: set directly, not resolved
    kernels = systems.get("arc-hybrid").kernels
    scorer = BiLSTMScorer(neural_addresses("arc-hybrid"),
                          pc.ClassSet.for_system(kernels, ["root", "dep"]),
                          vocabulary_sizes(vocabularies), Sizes(**sizes), chars=chars)
    context = scorer.encode(batch, train=False)
    positions = np.array([np.resize([0, 1, -1, 2, 3, -1, 4, 5], len(scorer.addresses))] * 3)
    assert scorer.class_scores(context, positions).device.type == "meta"

    network = BiaffineNetwork(vocabulary_sizes(vocabularies), len(vocabularies.deprel),
                              BiaffineSizes(**sizes), chars)
    inputs = encoder_inputs(batch, None, 0, None, chars=True, device="meta")
    arcs, label_dependent, label_head = network(inputs)
    arcs = arcs.masked_fill(~padding_mask(inputs.lengths, "meta")[:, None, :], float("-inf"))
    heads = inputs.tensor(np.zeros(inputs.shape, dtype=np.int64))
    assert network.label_scores(label_dependent, label_head, heads, inputs).device.type == "meta"

    tagger = TaggerNetwork([len(vocabularies.lower), len(vocabularies.suffix),
                            len(vocabularies.shape)], [3, 3, 3], Sizes(**sizes), chars)
    assert tagger.to("meta")(inputs)[0].device.type == "meta"


def test_model_code_copies_a_tensor_to_the_cpu_before_numpy():
    """``t.numpy()`` fails on a GPU tensor: every call in the package is ``t.cpu().numpy()``."""
    bare = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "numpy" and not node.args):
                inner = node.func.value
                if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
                        and inner.func.attr == "cpu"):
                    bare.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert not bare, bare


gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no GPU here")


@pytest.mark.end_to_end
@pytest.mark.neural
@gpu
def test_cuda_trains_and_parses_and_its_model_parses_on_the_cpu(tmp_path, capsys, monkeypatch):
    """Where torch sees a GPU (the device check of bench/gpu_check.py's machine): each
    neural model trains and parses on --device cuda, auto picks the GPU, and the model file
    trained there parses on the CPU to the same trees (the file holds no device)."""
    from arcwise.models import modelfile

    assert device.resolve_device("auto") == "cuda"
    treebank = tmp_path / "small.conllu"
    sentences = train_and_dev(20, 0)[0]
    treebank.write_text("".join("\n".join(s.lines) + "\n\n" for s in sentences))
    tiny = [a for option in TINY for a in ("--neural", option)]
    runs = {"bilstm": ["--system", "two-planar", "--model", "bilstm", "--oracle", "dynamic",
                       "--neural", "features=paper", *tiny],
            "biaffine": ["--system", "mst", "--model", "biaffine", *tiny],
            "tagger": ["--system", "tagger", "--tagger", "model=bilstm",
                       *(a.replace("--neural", "--tagger") for a in tiny)]}
    for name, options in runs.items():
        model = tmp_path / f"{name}.arcwise"
        code, _, err = run(["train", "--train", treebank, "--epochs", "2", "-o", model,
                            *options, "--device", "cuda"], capsys, monkeypatch)
        assert code == 0, err
        modelfile.load(model)  # validates
        parsed = {}
        for where in ("cuda", "auto", "cpu"):
            code, out, err = run(["parse", "-m", model, "--device", where, treebank],
                                 capsys, monkeypatch)
            assert code == 0, err
            parsed[where] = out
        assert parsed["cuda"] == parsed["auto"], name
        rows = {where: [line.split("\t")[3:8] for line in out.splitlines()
                        if line[:1].isdigit()] for where, out in parsed.items()}
        agree = sum(a == b for a, b in zip(rows["cuda"], rows["cpu"])) / len(rows["cpu"])
        assert len(rows["cuda"]) == len(rows["cpu"]) and agree >= 0.99, (name, agree)


GRID = """
title = "a BiLSTM on the GPU"
data = "{data}"
treebanks = ["small"]
seeds = [1, 2]
epochs = 2
options = {{ model = "bilstm", neural = {{ lstm = 8, word = 8, suffix = 4, shape = 4, tag = 4, threads = 1 }} }}

[[configurations]]
name = "bilstm:arc-hybrid:dynamic"
system = "arc-hybrid"
oracle = "dynamic"
"""


@pytest.mark.end_to_end
@pytest.mark.neural
@gpu
def test_an_experiment_trains_its_cells_on_cuda_and_says_so(tmp_path, capsys, monkeypatch):
    """`arcwise experiment --device cuda`: the local workers train on the GPU, each cell
    records it, and the report names the device."""
    import json

    from arcwise.io import conllu

    folder = tmp_path / "data" / "small"
    folder.mkdir(parents=True)
    train, dev = train_and_dev(20, 10)
    for split, sentences in (("train", train), ("dev", dev), ("test", dev)):
        conllu.write(folder / f"{split}.conllu", sentences)
    (tmp_path / "gpu.toml").write_text(GRID.format(data=tmp_path / "data"))
    code, _, err = run(["experiment", tmp_path / "gpu.toml", "-o", tmp_path / "out", "-j", "2",
                        "--device", "cuda", "--allow-dirty"], capsys, monkeypatch)
    assert code == 0, err
    cells = [json.loads(p.read_text()) for p in (tmp_path / "out").glob("*.json")]
    assert len(cells) == 2 and {c["device"] for c in cells} == {"cuda"}
    assert "Devices the networks were trained on: cuda on " in (tmp_path / "out" /
                                                                "gpu.md").read_text()
