"""From wheels to a first parse in a clean virtualenv (issue #40's "done when").

    python bench/clean_install.py MODEL --name NAME [--text FILE] [--work DIR]

Builds arcwise's own wheel (``pip wheel --no-deps``) and the model package of MODEL
(`arcwise package`), creates a new virtualenv, installs both wheels into it (with
pip's usual index or find-links for arcwise's dependencies), and times in it
``arcwise parse -m NAME TEXT`` with an empty numba cache (cold: every kernel the
parse needs is compiled) and again with that cache filled (warm), `--repeats` times
each, each cold run with a fresh cache folder.  Prints the wheels' sizes, the
install time and the parse times; the parse output is checked against the one of
this checkout's arcwise.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import checked, run_child  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ("The cat sat on the mat. It did not move, did it?\n\n"
          "Parsing a first sentence compiles what the model needs.\n")


def run(command: list, **kwargs) -> None:
    subprocess.run([str(c) for c in command], check=True, **kwargs)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path, help="A model file (arcwise train).")
    parser.add_argument("--name", required=True, help="Its package name (en_ewt).")
    parser.add_argument("--text", type=Path, help="What to parse (default: a sample text).")
    parser.add_argument("--work", type=Path, help="Work folder (default: a temporary one).")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--report", action="store_true",
                        help="Write this run's section of RESULTS.md.")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temporary:
        work = args.work or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        dist, venv = work / "dist", work / "venv"
        text = args.text or work / "sample.txt"
        if args.text is None:
            text.write_text(SAMPLE)
        run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
             "--no-build-isolation", "-w", dist, ROOT])
        run([sys.executable, "-m", "arcwise", "package", args.model, "--name", args.name,
             "-o", dist])
        own = next(dist.glob("arcwise-*.whl"))
        model = next(dist.glob(f"{args.name}-*.whl"))
        start = time.perf_counter()
        run([sys.executable, "-m", "venv", venv])
        run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", own, model])
        install_seconds = time.perf_counter() - start
        expected = checked(run_child([sys.executable, "-m", "arcwise", "parse", "-m",
                                      args.model, text]), "this checkout's parse").stdout
        command = [str(venv / "bin" / "arcwise"), "parse", "-m", args.name, str(text)]
        cold, warm = [], []
        for k in range(args.repeats):
            env = {"NUMBA_CACHE_DIR": str(work / f"numba-{k}"), "PATH": str(venv / "bin"),
                   "HOME": str(work)}
            first = checked(run_child(command, env), "the first parse")
            again = checked(run_child(command, env), "the warm parse")
            assert first.stdout == again.stdout == expected, "the parses differ"
            cold.append(first.seconds)
            warm.append(again.seconds)
        result = {"arcwise_wheel_mb": own.stat().st_size / 1e6,
                  "model_wheel_mb": model.stat().st_size / 1e6,
                  "install_seconds": install_seconds,
                  "cold_seconds": cold, "warm_seconds": warm}
    lines = [f"wheels: arcwise {result['arcwise_wheel_mb']:.1f} MB, {args.name} "
             f"{result['model_wheel_mb']:.1f} MB; venv + install {install_seconds:.0f} s",
             f"first parse, empty numba cache: median {statistics.median(cold):.1f} s "
             f"({', '.join(f'{s:.1f}' for s in cold)})",
             f"warm parse: median {statistics.median(warm):.1f} s "
             f"({', '.join(f'{s:.1f}' for s in warm)})"]
    print("\n".join(lines))
    if args.report:
        import report

        report.write_section("clean-install", "\n".join([
            "## From wheels to a first parse in a clean virtualenv (issue #40)", "",
            f"Model: {args.model.name} as the package {args.name}; its components: "
            f"{', '.join(args_components(args.model))}.  Command: `python "
            f"bench/clean_install.py {args.model} --name {args.name} --repeats "
            f"{args.repeats} --report`; load averages {report.load_average()}.", "",
            *(f"- {line}" for line in lines), "", report.provenance()]))
    return result


def args_components(model: Path) -> tuple[str, ...]:
    import arcwise

    return arcwise.load(model).components


if __name__ == "__main__":
    main()
