"""The viewer in headless Chromium: the offline page of `arcwise view`, and the page
`arcwise serve` answers at / (parsing, the oracle explorer stepped to the end).

The arcs drawn must be the trees the files and the API hold; screenshots go
to artifacts/ (git-ignored)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from arcwise.io import conllu
from arcwise.trees.projectivity import is_projective
from tests.browser import module_browser  # noqa: F401 -- a fixture
from tests.ewt import DATA
from tests.serve_helpers import ARTIFACTS, served_app, uvicorn_thread
from tests.tiny_model import arcwise, untagged_tiny_model  # noqa: F401 -- a fixture

pytest.importorskip("selenium", reason="selenium is not installed")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

pytestmark = pytest.mark.end_to_end

ARCS = """return Array.from(document.querySelectorAll(arguments[0] + ' g.arc')).map(g =>
    [Number(g.dataset.head), Number(g.dataset.dep), g.dataset.label, g.getAttribute('class')]);"""


# applies the first legal transition that costs more than the oracle's; returns its cost
COSTLY_MOVE = """
    const row = Array.from(document.querySelectorAll('#explorer-moves tr[data-action]'))
        .find(r => r.querySelector('td.costly'));
    if (!row) return null;
    row.querySelector('button.apply').click();
    return Number(row.querySelector('td.costly').textContent);"""


def arcs(browser, selector):
    """{dependent: (head, label, classes)} of the arcs drawn under `selector`."""
    return {d: (h, label, cls.split()) for h, d, label, cls in
            browser.execute_script(ARCS, selector)}


def ready(browser, timeout=30):
    WebDriverWait(browser, timeout).until(
        lambda b: b.execute_script("return document.body.dataset.ready === 'true'"))


def screenshot(browser, name):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    assert browser.save_screenshot(str(path)) and path.stat().st_size > 5_000
    print(f"screenshot: {path}")


def test_view_draws_the_files_trees_and_marks_errors(module_browser, untagged_tiny_model,  # noqa: F811
                                                     tmp_path):
    browser = module_browser
    model, _ = untagged_tiny_model
    gold = list(itertools.islice(conllu.read(DATA / "dev.conllu.gz"), 6))
    gold_file, system_file, page = tmp_path / "gold.conllu", tmp_path / "a.conllu", tmp_path / "v.html"
    conllu.write(gold_file, gold)
    from arcwise import load

    system = load(model).parse(gold)
    conllu.write(system_file, gold, trees=system)
    run = arcwise("view", "--gold", gold_file, system_file, "-o", page)
    assert run.returncode == 0, run.stderr
    browser.get(page.resolve().as_uri())
    ready(browser)
    assert browser.find_element(By.ID, "count").text == "/ 6"
    for k, sentence in enumerate(gold):
        drawn_gold = arcs(browser, '.panel[data-tree="gold"]')
        drawn = arcs(browser, '.panel[data-tree="a"]')
        head, deprel = system[k]
        assert drawn_gold == {d: (int(sentence.head[d]), sentence.deprel[d], drawn_gold[d][2])
                              for d in range(1, sentence.n + 1)}
        for d in range(1, sentence.n + 1):
            h, label, classes = drawn[d]
            assert (h, label) == (head[d], deprel[d])
            assert ("wrong-head" in classes) == (head[d] != sentence.head[d])
            assert ("wrong-label" in classes) == (head[d] == sentence.head[d]
                                                  and deprel[d] != sentence.deprel[d])
            assert ("nonproj" in drawn_gold[d][2]) == _nonprojective_arc(sentence.head, d)
        if k == 0:
            screenshot(browser, "view-first-sentence.png")
        browser.find_element(By.ID, "next").click()
    wrong_head = sum(bool((np.asarray(h) != s.head)[1:].any()) for s, (h, _) in zip(gold, system))
    set_filter(browser, "filter-error", "head")
    assert browser.find_element(By.ID, "count").text.startswith(f"/ {wrong_head}")
    set_filter(browser, "filter-error", "")
    with_punct = sum("punct" in s.deprel for s in gold)
    set_filter(browser, "filter-relation", "punct")
    assert browser.find_element(By.ID, "count").text.startswith(f"/ {with_punct}")
    set_filter(browser, "filter-relation", "")
    set_filter(browser, "filter-length", "1-10")
    short = sum(s.n <= 10 for s in gold)
    assert browser.find_element(By.ID, "count").text.startswith(f"/ {short}")
    set_filter(browser, "filter-length", "")
    search = browser.find_element(By.ID, "search")
    sent_id = next(line.split("=", 1)[1].strip() for line in gold[3].lines
                   if line.startswith("# sent_id"))
    search.send_keys(sent_id)
    assert browser.find_element(By.ID, "count").text.startswith("/ 1")
    assert sent_id in browser.find_element(By.ID, "sentence-info").text


def set_filter(browser, select, value):
    browser.execute_script("const s = document.getElementById(arguments[0]);"
                           "s.value = arguments[1]; s.dispatchEvent(new Event('input'));",
                           select, value)


def _nonprojective_arc(head, d):
    """Is word d's arc non-projective: a word between d and its head not dominated by it?"""
    h = int(head[d])
    for k in range(min(h, d) + 1, max(h, d)):
        w = k
        while w > 0 and w != h:
            w = int(head[w])
        if w != h:
            return True
    return False


def test_view_shows_every_sentence_of_the_dev_set(module_browser, tmp_path):  # noqa: F811
    """The dev set's page opens with all of its sentences (how fast: bench/viewer.py)."""
    browser = module_browser
    page = tmp_path / "dev.html"
    run = arcwise("view", DATA / "dev.conllu.gz", "-o", page)
    assert run.returncode == 0, run.stderr
    browser.get(page.resolve().as_uri())
    ready(browser)
    count = browser.find_element(By.ID, "count").text
    assert int(count.strip("/ ")) == sum(1 for _ in conllu.read(DATA / "dev.conllu.gz"))


def test_view_shows_words_that_look_like_html(module_browser, tmp_path):  # noqa: F811
    """Words ``<!--`` then ``<script>`` once made the page blank: in the data's script
    element they switched HTML into a state where its ``</script>`` did not end it."""
    from arcwise.core.corpus import from_words
    from arcwise.service.viewer import view_data, write_view

    browser = module_browser
    words = ["<!--", "a", "<script>", "b"]  # no "-->" or "</script>" after: they end it
    head = np.array([-1, 0, 1, 1, 1])
    gold = conllu.with_tree(from_words(words), head, ["_", "root", *["dep"] * 3])
    source, page = tmp_path / "html.conllu", tmp_path / "html.html"
    conllu.write(source, [gold])
    write_view(page, view_data([source], ["gold"], 0))
    browser.get(page.resolve().as_uri())
    ready(browser)
    assert browser.find_element(By.ID, "count").text == "/ 1"
    drawn = arcs(browser, '.panel[data-tree="gold"]')
    assert {d: drawn[d][:2] for d in drawn} == {d: (int(head[d]), "root" if d == 1 else "dep")
                                              for d in range(1, 5)}
    assert all(w in browser.find_element(By.CSS_SELECTOR, ".panel").text for w in words)


def test_served_viewer_parses_and_steps_the_oracle_to_the_end(module_browser,  # noqa: F811
                                                               untagged_tiny_model):
    browser = module_browser
    model, _ = untagged_tiny_model
    gold = next(s for s in conllu.read(DATA / "dev.conllu.gz")
                if 8 <= s.n <= 15 and is_projective(s.head))
    text = conllu.format_sentence(gold)
    app = served_app(model)
    with uvicorn_thread(app) as url:
        browser.get(url + "/")
        ready(browser)
        browser.execute_script("document.getElementById('parse-data').value = arguments[0];",
                               text)
        browser.find_element(By.ID, "parse-run").click()
        WebDriverWait(browser, 30).until(
            lambda b: len(b.find_elements(By.CSS_SELECTOR, ".panel")) == 2)
        import urllib.request

        request = urllib.request.Request(url + "/v1/parse", json.dumps(
            {"data": text, "output": "json"}).encode(), {"Content-Type": "application/json"})
        api = json.loads(urllib.request.urlopen(request, timeout=30).read())
        words = api["result"][0]["words"]
        drawn = arcs(browser, '.panel[data-tree="en"]')
        assert {d: drawn[d][:2] for d in drawn} == {
            w["id"]: (w["head"], w["deprel"]) for w in words}
        screenshot(browser, "serve-parsed.png")

        browser.find_element(By.CSS_SELECTOR, '#tabs button[data-tab="explorer"]').click()
        system = browser.find_element(By.ID, "explorer-system")
        system.clear()
        system.send_keys("arc-eager")
        browser.find_element(By.ID, "explorer-start").click()
        status = browser.find_element(By.ID, "explorer-status")
        WebDriverWait(browser, 30).until(lambda b: status.get_attribute("data-steps") == "0")
        steps = lambda: int(status.get_attribute("data-steps"))  # noqa: E731
        wrong_tried = False
        for _ in range(4 * gold.n + 8):
            if status.get_attribute("data-terminal") == "true":
                break
            done = steps()
            costly = None if wrong_tried else browser.execute_script(COSTLY_MOVE)
            if costly is not None:  # a wrong move: the loss rises by its cost; undo it
                wrong_tried = True
                WebDriverWait(browser, 30).until(lambda b: steps() == done + 1)
                assert f"(+{costly} by the last step)" in status.text
                screenshot(browser, "serve-explorer-wrong-step.png")
                browser.find_element(By.ID, "explorer-undo").click()
                WebDriverWait(browser, 30).until(lambda b: steps() == done)
            browser.find_element(By.ID, "explorer-follow").click()
            WebDriverWait(browser, 30).until(lambda b: steps() == done + 1)
        assert wrong_tried
        assert status.get_attribute("data-terminal") == "true"
        assert "loss 0" in status.text
        built = arcs(browser, "#explorer-built")
        assert {d: h for d, (h, _, _) in built.items()} == {
            d: int(gold.head[d]) for d in range(1, gold.n + 1)}
        screenshot(browser, "serve-explorer-terminal.png")

        # a gold tree typed by hand, in covington-nm: a column per oracle and bound
        browser.execute_script("document.getElementById('explorer-source').value = 'typed';")
        browser.find_element(By.ID, "explorer-heads").send_keys("3 3 0 3")
        system.clear()
        system.send_keys("covington-nm")
        browser.find_element(By.ID, "explorer-start").click()
        WebDriverWait(browser, 30).until(lambda b: "λ1" in b.find_element(
            By.ID, "explorer-configuration").text)
        columns = browser.execute_script(
            "return Array.from(document.querySelectorAll('#explorer-moves th'))"
            ".map(th => th.textContent);")
        assert [c for c in columns if c.startswith("cost")] == [
            f"cost: priority={p}, {b} (estimate)" for p in ("none", "monotonic")
            for b in ("upper", "pc-upper", "lower")]
        assert status.get_attribute("data-steps") == "0"
