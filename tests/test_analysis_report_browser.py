"""The HTML report in a real browser: headless Chromium (Debian's) driven by Selenium.

Every figure's inline SVG must be laid out with a non-zero size; a
screenshot of the whole page is saved next to the report (its path is
printed).  Skipped, with the reason, when Selenium or Chromium/ChromeDriver
is missing or the browser does not start (`make test` installs them with
apt-get when it can).  No
browser or driver is ever downloaded: Selenium gets both paths.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arcwise.analysis.analyze import analyze
from arcwise.analysis.report import write_report
from tests.browser import browser  # noqa: F401 -- a fixture

pytestmark = pytest.mark.end_to_end

DATA = Path(__file__).resolve().parent / "data" / "analysis"


def test_every_figure_renders_in_a_browser(browser, tmp_path):  # noqa: F811
    analysis = analyze([DATA / "gold.conllu"],
                       [[DATA / "a_traced.conllu"], [DATA / "b.conllu"]], ["A", "B"],
                       samples=200, command="arcwise analyze (test)")
    page = write_report(analysis, tmp_path / "report")
    browser.get(page.resolve().as_uri())
    sizes = browser.execute_script("""
        return Array.from(document.querySelectorAll('div.figure')).map(div => {
            const svg = div.querySelector('svg');
            const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
            return [div.dataset.factor, box.width, box.height];
        });""")
    names = [f.factor.name for f in analysis.factors]
    assert [s[0] for s in sizes] == names
    for name, width, height in sizes:
        assert width > 100 and height > 100, (name, width, height)
    height = browser.execute_script("return document.body.scrollHeight")
    browser.set_window_size(1400, min(int(height) + 100, 16000))
    shot = tmp_path / "report" / "screenshot.png"
    assert browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    print(f"screenshot: {shot}")
