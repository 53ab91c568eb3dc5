"""How fast the page of `arcwise view` opens in headless Chromium (issue #18: ≤ 2 s for a
2,000-sentence file).

    .venv/bin/python bench/viewer.py [--input data/en_ewt/dev.conllu.gz] [--repeats 5]
        [--json] [--report]

Writes the page with `arcwise view INPUT -o PAGE` (timed, as a child process),
then opens it --repeats times in one headless Chromium (Debian's, started as
the tests start it), each a fresh navigation, timed until the page says it is
ready (`body[data-ready=true]`: the sentence list built and the first tree
drawn).  Reports the median and worst seconds and the sentence count the page
shows.  --report writes the viewer section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

import report  # noqa: E402 -- bench/ is this script's folder


def open_page(driver, page: Path, timeout: float = 60) -> float:
    """Seconds from navigating to `page` until it says it is ready."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get("about:blank")
    started = time.perf_counter()
    driver.get(page.resolve().as_uri())
    WebDriverWait(driver, timeout, poll_frequency=0.01).until(
        lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", type=Path, default=ROOT / "data" / "en_ewt" / "dev.conllu.gz")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--report", action="store_true")
    args = ap.parse_args(argv)

    from selenium.webdriver.common.by import By

    from arcwise.io import read_treebank
    from tests.browser import BrowserUnavailable, headless_chromium

    sentences = sum(1 for _ in read_treebank(args.input))
    with tempfile.TemporaryDirectory() as scratch:
        page = Path(scratch) / "view.html"
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "arcwise", "view", str(args.input), "-o", str(page)],
                       check=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
        write_seconds = time.perf_counter() - started
        try:
            with headless_chromium() as driver:
                seconds = [open_page(driver, page) for _ in range(args.repeats)]
                shown = int(driver.find_element(By.ID, "count").text.strip("/ "))
        except BrowserUnavailable as missing:
            sys.exit(f"bench/viewer.py: {missing}")
        page_mib = page.stat().st_size / 2**20
    result = {"input": str(args.input.relative_to(ROOT) if args.input.is_relative_to(ROOT)
                           else args.input),
              "sentences": sentences, "shown": shown, "page_mib": round(page_mib, 2),
              "write_seconds": round(write_seconds, 2),
              "open_seconds_median": round(statistics.median(seconds), 3),
              "open_seconds_worst": round(max(seconds), 3), "repeats": args.repeats}
    print(json.dumps(result, indent=None if args.json else 1))
    if args.report:
        command = " ".join(["bench/viewer.py", *(sys.argv[1:] if argv is None else argv)])
        report.write_section("viewer", "\n".join([
            "## Viewer: `arcwise view` in headless Chromium (issue #18)", "",
            "| input | sentences (shown) | page MiB | `arcwise view` s | open s, median "
            "| open s, worst | opens |",
            "|---|--:|--:|--:|--:|--:|--:|",
            f"| {result['input']} | {sentences:,} ({shown:,}) | {result['page_mib']} "
            f"| {result['write_seconds']} | {result['open_seconds_median']} "
            f"| {result['open_seconds_worst']} | {args.repeats} |", "",
            "Open: from navigating to the file until the page is ready (its sentence list "
            "built and the first tree drawn), each a fresh navigation in one Chromium "
            "(`--headless --no-sandbox --disable-gpu`, Debian's).", "",
            f"- `{command}` — {report.provenance()} "
            f"Load average at the end (1, 5, 15 min): "
            f"{', '.join(map(str, report.load_average()))}."]))
    return result


if __name__ == "__main__":
    main()
