"""The HTML report in a real browser: headless Chromium (Debian's) driven by Selenium.

Every figure's inline SVG must be laid out with a non-zero size; a
screenshot of the whole page is saved next to the report (its path is
printed).  Skipped, with the reason, when Selenium or Chromium/ChromeDriver
is missing or the browser does not start (`make test` installs them with
apt-get when it can).  No
browser or driver is ever downloaded: Selenium gets both paths.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from arcwise.analysis.analyze import analyze
from arcwise.analysis.report import write_report

DATA = Path(__file__).resolve().parent / "data" / "analysis"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--window-size=1400,1000")


@pytest.fixture
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed "
                                    "(pip install -e '.[test]')")
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            pytest.skip(f"{path} not found: apt-get install chromium chromium-driver "
                        "(make test does it)")
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="arcwise-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (*ARGS, f"--user-data-dir={profile}"):
        options.add_argument(arg)
    try:
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    except WebDriverException as error:
        shutil.rmtree(profile, ignore_errors=True)
        pytest.skip(f"Chromium would not start: {str(error).strip().splitlines()[0]}")
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def test_every_figure_renders_in_a_browser(browser, tmp_path):
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
