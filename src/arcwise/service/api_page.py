"""The service's API reference at ``/docs``: one HTML page made from its OpenAPI schema,
with nothing fetched from elsewhere (FastAPI's Swagger UI loads from a CDN, so it is a
blank page offline)."""

from __future__ import annotations

import html
import json
from typing import Any


def api_page(schema: dict[str, Any]) -> str:
    """Every endpoint of an OpenAPI schema with its summary, description, parameters and
    request body, and the schema itself (linked: /openapi.json)."""
    info = schema.get("info", {})
    out = [f"<h1>{_e(info.get('title', 'API'))} {_e(info.get('version', ''))}</h1>",
           f"<p>{_e(info.get('description', ''))}</p>",
           '<p>The machine-readable schema: <a href="/openapi.json">/openapi.json</a>.</p>']
    for path, methods in schema.get("paths", {}).items():
        for method, operation in methods.items():
            out.append(f"<h2><code>{_e(method.upper())} {_e(path)}</code> "
                       f"{_e(operation.get('summary', ''))}</h2>")
            if operation.get("description"):
                out.append(f"<pre class=doc>{_e(operation['description'])}</pre>")
            parameters = operation.get("parameters", [])
            if parameters:
                out.append("<table><tr><th>parameter</th><th>in</th><th>description</th></tr>")
                out += [f"<tr><td><code>{_e(p.get('name', ''))}</code></td>"
                        f"<td>{_e(p.get('in', ''))}</td>"
                        f"<td>{_e(p.get('description', ''))}</td></tr>" for p in parameters]
                out.append("</table>")
            body = operation.get("requestBody", {}).get("content", {})
            for media, content in body.items():
                out.append(f"<p>body ({_e(media)}): <code>"
                           f"{_e(_schema_name(content.get('schema', {})))}</code></p>")
    components = schema.get("components", {}).get("schemas", {})
    if components:
        out.append("<h2>Schemas</h2>")
        out += [f"<h3 id='{_e(name)}'>{_e(name)}</h3><pre>{_e(json.dumps(s, indent=1))}</pre>"
                for name, s in components.items()]
    style = ("body{font:15px/1.4 system-ui,sans-serif;max-width:60em;margin:1em auto;"
             "padding:0 1em}pre{background:#f4f4f4;padding:.5em;overflow:auto}"
             "pre.doc{background:none;white-space:pre-wrap;font:inherit}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em}")
    return (f"<!doctype html><html><head><meta charset=utf-8><title>"
            f"{_e(info.get('title', 'API'))} API</title><style>{style}</style></head>"
            f"<body>{''.join(out)}</body></html>")


def _schema_name(schema: dict[str, Any]) -> str:
    ref = schema.get("$ref", "")
    return ref.rsplit("/", 1)[-1] if ref else json.dumps(schema)


def _e(text: Any) -> str:
    return html.escape(str(text))
