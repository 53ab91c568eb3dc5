"""A model package per treebank folder: ``make models DATA=DIR`` (or ``python -m
arcwise.packaging.build DIR -o OUT``), so that a lab builds its own model set.

Each folder under DIR holding a training split (``train.conllu[.gz]`` or
``*-ud-train.conllu[.gz]``, as UD names them) gets a pipeline model trained by
``arcwise train --pipeline`` (its dev split for model selection; the arguments after
the folder are passed on, e.g. ``--system arc-eager --epochs 10``), then a wheel by
`arcwise.packaging.card.package` with the folder's licence and test scores.  A folder
whose wheel is already in OUT is skipped, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

from arcwise.core.errors import ArcwiseError
from arcwise.packaging.card import package, split

DEFAULT_TRAINING = ("--system", "arc-eager")


def package_name(folder: Path) -> str:
    """The package name of a treebank folder: UD's file prefix (en_ewt-ud-train.conllu:
    en_ewt), else the folder's name in lower case with underscores (English-EWT:
    english_ewt)."""
    train = split(folder, "train")
    match = re.fullmatch(r"([a-z]+_[a-z0-9]+)-ud-train\.conllu(\.gz)?", train.name) \
        if train else None
    if match:
        return match.group(1)
    name = re.sub(r"[^a-z0-9]+", "_", folder.name.lower().removeprefix("ud_")).strip("_")
    return name if name[:1].isalpha() else f"ud_{name}"


def build(data: Path, out: Path, names: list[str] | None = None,
          training: list[str] | None = None) -> list[Path]:
    """The wheels of every treebank folder under `data` (see the module docstring)."""
    folders = [f for f in sorted(data.iterdir()) if f.is_dir() and split(f, "train")]
    if not folders:
        raise ArcwiseError(f"{data}: no treebank folder (with a train split) in it")
    if names is not None and len(names) != len(folders):
        raise ArcwiseError(f"--names gives {len(names)} names for {len(folders)} treebanks")
    out.mkdir(parents=True, exist_ok=True)
    wheels = []
    for folder, name in zip(folders, names or [package_name(f) for f in folders]):
        done = sorted(out.glob(f"{name}-*-py3-none-any.whl"))
        if done:
            print(f"{folder.name}: {done[-1]} is there", file=sys.stderr)
            wheels.append(done[-1])
            continue
        model = out / f"{name}.model"
        dev = split(folder, "dev")
        command = [sys.executable, "-m", "arcwise", "train", "--pipeline",
                   "--train", str(split(folder, "train")), "-o", str(model),
                   *(["--dev", str(dev)] if dev else []), *(training or DEFAULT_TRAINING)]
        print(f"{folder.name}: {' '.join(command[2:])}", file=sys.stderr)
        if subprocess.run(command).returncode != 0:
            raise ArcwiseError(f"{folder}: training failed (see above)")
        wheel, card = package(model, name, out, treebank=folder)
        las = card["scores"].get("test", {}).get("LAS")
        print(f"{folder.name}: {wheel}" + (f" (test LAS {las:.2f})" if las is not None else ""),
              file=sys.stderr)
        wheels.append(wheel)
    return wheels


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m arcwise.packaging.build",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="A folder of treebank folders.")
    parser.add_argument("-o", "--output", type=Path, default=Path("models"))
    parser.add_argument("--names", help="Space-separated package names, in folder order.")
    args, training = parser.parse_known_args(argv)
    try:
        build(args.data, args.output, args.names.split() if args.names else None,
              training or None)
    except ArcwiseError as error:
        print(f"arcwise: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
