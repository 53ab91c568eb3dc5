"""arcwise as a service and in the browser.

`app.create_app` is the ASGI application of ``arcwise serve`` (a JSON API with
an OpenAPI schema, a UDPipe-1-compatible ``/process``, the viewer at ``/``);
`formats` reads request bodies into Sentences (one function per input kind)
and writes parses back; `models` loads and warms the served parsers and
batches concurrent requests into one compiled call; `explorer` steps a
transition system and its oracles for the viewer's oracle explorer;
`viewer` builds the viewer page (served, or one self-contained file for
``arcwise view``).  Sits beside `arcwise.cli` at the top of the layers.
"""
