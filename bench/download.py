"""A module downloaded for offline use: requests, bytes (plain, gzip, brotli) and queries, the
per-step way an app had to do it (module detail, term cards, then every step) beside the
module bundle, and what a re-check costs each way.

Measured in the harness process through Django's test client against the benchmark database
(bench.settings: the production middleware, compression included), cold caches for each way,
as the query counts are.
"""

from __future__ import annotations

import gzip

import brotli

ENCODINGS = ("identity", "gzip", "br")


def _decoded_length(response) -> int:
    encoding = response.get("Content-Encoding")
    if encoding == "gzip":
        return len(gzip.decompress(response.content))
    if encoding == "br":
        return len(brotli.decompress(response.content))
    return len(response.content)


def _measure(paths: list[str], *, etags: dict[str, str] | None = None) -> dict:
    """Send ``paths`` once per encoding (cold content caches each time); bytes on the wire by
    encoding, the requests and the queries of the plain pass."""
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1")
    figures: dict = {"requests": len(paths), "bytes": {}, "statuses": set(), "tags": {}}
    for encoding in ENCODINGS:
        cache.clear()
        headers = {"Accept-Encoding": encoding}
        total = decoded = 0
        with CaptureQueriesContext(connection) as context:
            for path in paths:
                extra = dict(headers)
                if etags:
                    extra["If-None-Match"] = etags[path]
                response = client.get(path, headers=extra)
                figures["statuses"].add(response.status_code)
                total += len(response.content)
                decoded += _decoded_length(response)
                if encoding == "identity" and response.has_header("ETag"):
                    figures["tags"][path] = response["ETag"]
        figures["bytes"][encoding] = total
        if encoding == "identity":
            figures["queries"] = len(context.captured_queries)
            figures["decoded"] = decoded
    figures["statuses"] = sorted(figures["statuses"])
    return figures


def download_measure(module: str, step_numbers: list[int]) -> dict:
    """The four ways: per step and bundle, each downloaded and then re-checked with ETags."""
    base = f"/api/v1/modules/{module}/"
    per_step = [base, base + "term-cards/", *(base + f"steps/{n}/" for n in step_numbers)]
    bundle = [base + "bundle/"]
    first_steps = _measure(per_step)
    first_bundle = _measure(bundle)
    recheck_steps = _measure(per_step, etags=first_steps["tags"])
    recheck_bundle = _measure(bundle, etags=first_bundle["tags"])
    rows = []
    for what, figures in (
        (f"per step: module detail, term cards, {len(step_numbers)} steps", first_steps),
        ("module bundle", first_bundle),
        ("re-check per step (If-None-Match on each)", recheck_steps),
        ("re-check the bundle (If-None-Match)", recheck_bundle),
    ):
        rows.append(
            {
                "what": what,
                "requests": figures["requests"],
                "statuses": figures["statuses"],
                "bytes_plain": figures["bytes"]["identity"],
                "bytes_gzip": figures["bytes"]["gzip"],
                "bytes_br": figures["bytes"]["br"],
                "queries": figures["queries"],
            }
        )
    return {"module": module, "rows": rows}


def markdown_lines(section: dict) -> list[str]:
    lines = [
        "",
        "## Module download (offline)",
        "",
        f"Module `{section['module']}` through the test client with the production middleware; "
        "bytes are response bodies on the wire (headers not counted), queries of the plain "
        "pass from cold content caches (bench/download.py).",
        "",
        "| what | requests | status | bytes, no compression | gzip | brotli | queries |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for row in section["rows"]:
        statuses = ", ".join(str(s) for s in row["statuses"])
        lines.append(
            f"| {row['what']} | {row['requests']} | {statuses} | {row['bytes_plain']:,} | "
            f"{row['bytes_gzip']:,} | {row['bytes_br']:,} | {row['queries']} |"
        )
    return lines
