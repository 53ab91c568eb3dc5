"""HTML that arcwise writes: data embedded in a page (the viewer's, `arcwise.service.viewer`)."""

from __future__ import annotations

import json
from typing import Any


def script_json(data: Any) -> str:
    """`data` as JSON to put inside a ``<script type="application/json">`` element: every
    ``<`` written ``\\u003c`` (the same string to a JSON reader), so that nothing in the data
    (``</script>``, ``<!--``, ``<script>``) ends the element or changes how HTML reads it."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
