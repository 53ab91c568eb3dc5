"""JSON embedded in an HTML page (`arcwise.io.html.script_json`): the viewer's data holds no
``<``, so no word (``<!--``, ``<script>``, ``</script>``) can end its element or change how
the page is parsed; a browser shows such a page in test_service_browser.py."""

from __future__ import annotations

import json

from arcwise.io.html import script_json
from arcwise.service.viewer import page

WORDS = ["<!--", "a", "<script>", "b", "</script>"]
DATA = {"names": ["gold"], "gold": 0, "sentences": [
    {"id": "1", "text": " ".join(WORDS), "form": WORDS, "upos": ["X"] * 5,
     "trees": [[[0, 1, 1, 1, 1], ["root", *["dep"] * 4]]]}]}
ELEMENT = '<script id="arcwise-data" type="application/json">'


def test_script_json_has_no_angle_bracket_and_reads_back():
    text = script_json(DATA)
    assert "<" not in text and json.loads(text) == DATA
    assert script_json(None) == "null"


def test_the_viewers_data_element_holds_all_of_the_data():
    html = page(DATA)
    start = html.index(ELEMENT) + len(ELEMENT)
    embedded = html[start : html.index("</script>", start)]
    assert "<" not in embedded and json.loads(embedded) == DATA
