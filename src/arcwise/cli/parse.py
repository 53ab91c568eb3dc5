"""`arcwise parse`: parse a treebank with a trained model, changing only HEAD, DEPREL and DEPS."""

from __future__ import annotations

import contextlib
import os
import sys
import warnings

import typer


def register(app: typer.Typer) -> None:
    @app.command("parse")
    def parse_command(
        model: str = typer.Option(..., "--model", "-m", help="Model file from `arcwise train`."),
        sources: list[str] = typer.Argument(
            None, metavar="IN...",
            help="Input file (.gz allowed), - for stdin; or several inputs: files, folders "
            "(walked recursively) and glob patterns, parsed into the folder -o OUTDIR.",
            show_default=False,
        ),
        input_format: str = typer.Option(
            None, "--input", "-i",
            help="What IN holds: conllu (CoNLL-U or CoNLL-X, from the extension), tokens (one sentence per line, tokens separated by spaces), text "
            "(plain text, paragraphs between blank lines) or lines (plain text, one sentence "
            "per line: UDPipe 1's presegmented); text and lines need a model with a "
            "tokenizer.  Default: conllu, or for a model with a tokenizer, text unless IN's "
            "first lines are CoNLL-U.",
            show_default=False,
        ),
        output: str = typer.Option(
            "-", "--output", "-o",
            help="Output file (written atomically), - for stdout; for several inputs the "
            "folder OUTDIR that mirrors them (in/a/b.txt -> OUTDIR/a/b.conllu).",
        ),
        output_format: str = typer.Option(
            "conllu", "--format",
            help="conllu: the model's output (CoNLL-U; CoNLL-X for CoNLL-X input); parquet: "
            "one row per word, typed columns (needs pyarrow: the corpus extra).",
        ),
        resume: bool = typer.Option(
            False, "--resume",
            help="With OUTDIR: skip the files its manifest records as finished (input and "
            "output unchanged), parse the others.",
        ),
        rerun: bool = typer.Option(
            False, "--rerun",
            help="With OUTDIR: parse every file again, even when OUTDIR was parsed with "
            "another model or other settings (otherwise an error).",
        ),
        single_root: bool = typer.Option(
            None, "--single-root/--multi-root",
            help="--single-root: exactly one word attached to 0 per sentence, as UD demands "
            "(the default for CoNLL-U): the parser's first root arc is kept, labeled with the "
            "model's root label, and the other roots are attached to it; --multi-root: the "
            "trees as the parser built them, several roots allowed (the default for CoNLL-X).",
            show_default=False,
        ),
        trace: bool = typer.Option(
            False, "--trace",
            help="Record in MISC the transition that built each word's arc (Transition=) and "
            "the heads transitions replaced (HeadHistory=); transition-based models only.",
        ),
        unseen_tags: str = typer.Option(
            "warn", "--unseen-tags",
            help="When more than 5 % of the input's UPOS values (20 % of its XPOS values) "
            "were never seen in training (another tag set?): warn (once, on stderr) or "
            "refuse (exit 2).",
        ),
        workers: int = typer.Option(
            None, "--workers", "-j", min=1,
            help="Processes that annotate the input side by side, one thread each (the "
            "model loaded in each); the output is the same, in the input's order. 1 (the "
            "default): one process, whose compiled loops use every core.",
            show_default=False,
        ),
        dask: str = typer.Option(
            None, "--dask", metavar="ADDRESS",
            help="With OUTDIR: parse the files on the Dask distributed scheduler at ADDRESS "
            "(tcp://HOST:8786), whose workers see the model and the inputs at the same "
            "paths and load the model once each; this process writes every output (needs "
            "the experiments extra).  Not with --workers.",
            show_default=False,
        ),
        device: str = typer.Option(
            "cpu", "--device",
            help="Where a neural model's networks run: cpu, cuda or cuda:N (a GPU; an error "
            "where torch sees none) or auto (cuda when torch sees a GPU, else cpu); no "
            "effect on perceptron models.",
        ),
    ) -> None:
        """Parse IN with MODEL; the output keeps every line and column but HEAD, DEPREL, DEPS.

        Several inputs (files, folders, glob patterns), or -o ending in /: a corpus,
        each file parsed as alone into OUTDIR, mirrored, each output atomic; a manifest in
        OUTDIR makes --resume skip what is finished (see `arcwise.pipeline.corpus`).

        IN is CoNLL-U (or CoNLL-X) by default, or for a model with a tokenizer
        plain text unless its first lines are CoNLL-U; --input tokens reads one
        sentence per line and writes CoNLL-U.  A model trained with tags refuses input
        whose UPOS, XPOS and FEATS are all _ (exit 2), unless it has a tagger.

        Every output is a tree; CoNLL-U output has one root per sentence (valid
        UD) unless --multi-root, CoNLL-X output may have several unless
        --single-root.  DEPS becomes the new HEAD:DEPREL where the input had
        enhanced graphs, else _.  A pseudo-projective model's output is
        deprojectivized.  A progress bar
        (sentences, sentences/s) goes to stderr when IN is a file and stderr is
        a terminal; reading stdin, or with stderr redirected, nothing is shown.
        --trace adds MISC attributes (see `arcwise.transition.trace` and the README).
        """
        import arcwise
        from arcwise.core.device import use_device
        from arcwise.core.errors import ArcwiseError
        from arcwise.core.vocab import UnseenTagsWarning
        from arcwise.io import INPUT_FORMATS, format_of
        from arcwise.io.atomic import check_output
        from arcwise.io.corpus import names_a_corpus
        from arcwise.models.packages import located
        from arcwise.pipeline.corpus import OUTPUT_FORMATS, output_stream
        from arcwise.pipeline.in_processes import InProcesses, annotator, has_tokenizer
        from arcwise.pipeline.pipeline import RAW_TEXT

        sources = sources or ["-"]
        corpus = names_a_corpus(sources, output) or resume or rerun
        if not corpus:
            check_output(output, [sources[0], located(model)])
        if unseen_tags not in ("warn", "refuse"):
            raise ArcwiseError(f"--unseen-tags {unseen_tags}: use warn or refuse")
        if unseen_tags == "refuse":
            warnings.simplefilter("error", UnseenTagsWarning)
        known = (*INPUT_FORMATS, *RAW_TEXT)
        if input_format is not None and input_format not in known:
            raise ArcwiseError(f"--input {input_format}: use one of {', '.join(known)}")
        if output_format not in OUTPUT_FORMATS:
            raise ArcwiseError(f"--format {output_format}: use one of "
                               f"{', '.join(OUTPUT_FORMATS)}")
        if dask is not None and workers is not None:
            raise ArcwiseError("give --dask or --workers, not both")
        if dask is not None and not corpus:
            raise ArcwiseError("--dask parses a corpus: give -o OUTDIR, a folder (ending in /)")
        use_device(device)  # before any model is built, here or in the workers
        if corpus:
            return _parse_corpus(model, sources, output, input_format, output_format,
                                 resume, rerun, single_root, trace, workers or 1, dask)
        workers = workers or 1
        source = sources[0]
        if output_format == "parquet" and output == "-":
            raise ArcwiseError("--format parquet: give -o a file (Parquet is not written to "
                               "standard output)")
        # an explicit --input conllu is never sniffed: CoNLL-U, or CoNLL-X by the extension
        format = (format_of(source) or "conllu") if input_format == "conllu" else input_format
        # in processes, only the workers build the model: this one reads its metadata
        parser = InProcesses(model, workers) if workers > 1 else arcwise.load(model)
        if format in RAW_TEXT and not has_tokenizer(parser):
            raise ArcwiseError(f"--input {format}: {model} has no tokenizer; give tokens "
                               "(--input tokens: one sentence per line) or a pipeline model "
                               "with a tokenizer (arcwise train --pipeline)")
        with _progress(source != "-" and sys.stderr.isatty(), source) as progress, \
                annotator(parser, workers) as parsing:
            try:
                with (contextlib.nullcontext(output) if output_format == "conllu" else
                      output_stream(output, output_format, os.path.basename(source))) as out:
                    parsing.parse_file(source, out, format=format, single_root=single_root,
                                       progress=progress, trace=trace)
            except BrokenPipeError:  # whoever read our stdout has gone (`| head`): stop quietly
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                raise typer.Exit(1) from None


@contextlib.contextmanager
def _progress(show: bool, source: str):
    """A `progress(k)` callback drawing a rich bar on stderr, or None when not shown."""
    if not show:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("parsing {task.description}"),
        BarColumn(),
        TextColumn("{task.completed:,} sentences {task.fields[rate]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task(os.path.basename(source), total=None, rate="")

        def progress(k: int) -> None:
            bar.advance(task, k)
            done, seconds = bar.tasks[task].completed, bar.tasks[task].elapsed
            bar.update(task, rate=f"({done / seconds:,.0f}/s)" if seconds else "")

        yield progress


def _parse_corpus(model: str, sources: list[str], outdir: str, input_format: str | None,
                  output_format: str, resume: bool, rerun: bool, single_root: bool | None,
                  trace: bool, workers: int, dask: str | None = None) -> None:
    """`arcwise parse IN [IN ...] -o OUTDIR`: `arcwise.pipeline.corpus.corpus_parse`, with a
    progress bar (files, sentences, sentences/s) when stderr is a terminal and a summary."""
    from rich.console import Console

    from arcwise.core.errors import ArcwiseError
    from arcwise.pipeline.corpus import corpus_parse

    if outdir == "-":
        raise ArcwiseError("several inputs (or --resume, --rerun) need -o OUTDIR, a folder")
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    with _corpus_progress(sys.stderr.isatty()) as (on_start, on_file, progress):
        run = corpus_parse(model, sources, outdir, input_format=input_format,
                           output_format=output_format, workers=workers, dask=dask, resume=resume,
                           rerun=rerun, single_root=single_root, trace=trace,
                           progress=progress, on_start=on_start, on_file=on_file)
    skipped = f", {len(run.skipped)} finished before" if run.skipped else ""
    err.print(f"parsed {len(run.parsed)} files ({run.sentences:,} sentences) into "
              f"{outdir}{skipped}")


@contextlib.contextmanager
def _corpus_progress(show: bool):
    """(on_start, on_file, progress) callbacks drawing a rich bar of files on stderr, with
    sentences and sentences/s; (None, None, None) when not shown."""
    if not show:
        yield None, None, None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("parsing"), BarColumn(), MofNCompleteColumn(), TextColumn("files"),
               TextColumn("{task.fields[sentences]:,} sentences {task.fields[rate]}"),
               TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task("files", total=None, sentences=0, rate="")

        def on_start(todo: int, finished: int) -> None:
            bar.update(task, total=todo)

        def on_file(name: str, sentences: int) -> None:
            bar.advance(task, 1)

        def progress(k: int) -> None:
            done = bar.tasks[task].fields["sentences"] + k
            seconds = bar.tasks[task].elapsed
            bar.update(task, sentences=done,
                       rate=f"({done / seconds:,.0f}/s)" if seconds else "")

        yield on_start, on_file, progress
