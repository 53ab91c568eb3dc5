"""Headless Chromium (Debian's) driven by Selenium, for the tests that look at pages.

Skipped, with the reason, when Selenium or Chromium/ChromeDriver is missing
or the browser does not start (`make test` installs them with apt-get when
it can).  No browser or driver is ever downloaded: Selenium gets both paths.
"""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--window-size=1400,1000")


class BrowserUnavailable(Exception):
    """Selenium, Chromium or ChromeDriver is missing, or the browser would not start."""


@contextmanager
def headless_chromium():
    """A headless Chromium WebDriver with a fresh profile; BrowserUnavailable if none starts
    (the benches use it too)."""
    try:
        from selenium import webdriver
        from selenium.common.exceptions import WebDriverException
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        raise BrowserUnavailable("selenium is not installed (pip install -e '.[test]')") from None
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            raise BrowserUnavailable(f"{path} not found: apt-get install chromium "
                                     "chromium-driver (make test does it)")
    profile = tempfile.mkdtemp(prefix="arcwise-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (*ARGS, f"--user-data-dir={profile}"):
        options.add_argument(arg)
    try:
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    except WebDriverException as error:
        shutil.rmtree(profile, ignore_errors=True)
        raise BrowserUnavailable("Chromium would not start: "
                                 + str(error).strip().splitlines()[0]) from None
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@contextmanager
def chromium():
    """A headless Chromium WebDriver (skips the test when there is none)."""
    try:
        with headless_chromium() as driver:
            yield driver
    except BrowserUnavailable as missing:
        pytest.skip(str(missing))


@pytest.fixture
def browser():
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def module_browser():
    """One browser for a whole test module (each start costs a second or two of CPU)."""
    with chromium() as driver:
        yield driver
