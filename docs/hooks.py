"""MkDocs hook: the OpenAPI schema, generated from the API's code when the site is built.

drf-spectacular writes it (the command CI validates), so the file the site ships cannot go stale.
(The benchmark pages include bench/results/ with the snippets extension instead: that folder is
the one place their figures live.)
"""

from __future__ import annotations

import functools
import subprocess
import sys
import tempfile
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def _schema_path() -> str:
    """The schema, written once per build (mkdocs-static-i18n builds each language in turn)."""
    schema = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--settings=lms.settings.test"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    # A file on disk, not content in memory: mkdocs-static-i18n reads every file's source path.
    path = Path(tempfile.mkdtemp(prefix="lernpfad-docs-")) / "openapi.yaml"
    path.write_text(schema, encoding="utf-8")
    return str(path)


def error_codes_page(schema_text: str) -> str:
    """The error codes of every operation, as the schema states them (``x-error-codes`` of
    each response), as a Markdown page: generated, so it says what the schema says."""
    import yaml

    schema = yaml.safe_load(schema_text)
    lines = [
        "# Error codes per operation",
        "",
        "Generated from the OpenAPI schema when this site is built: for every operation, each",
        "error status and the `error.code` values it can carry (see [Conventions](index.md) for",
        "the error shape).",
        "",
        "| operation | status | codes |",
        "| --- | --- | --- |",
    ]
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            for status, response in sorted(operation["responses"].items()):
                codes = response.get("x-error-codes") if isinstance(response, dict) else None
                if codes:
                    listed = ", ".join(f"`{code}`" for code in codes)
                    lines.append(f"| `{method.upper()} {path}` | {status} | {listed} |")
    return "\n".join(lines) + "\n"


ERROR_CODES_MARK = "<!-- error codes from the schema -->"


def on_page_markdown(markdown, page, config, files):
    """api/error-codes.md holds a mark where the table goes, filled from the schema."""
    if ERROR_CODES_MARK not in markdown:
        return markdown
    table = error_codes_page(Path(_schema_path()).read_text(encoding="utf-8"))
    return markdown.replace(ERROR_CODES_MARK, table.split("\n", 6)[-1])


def on_files(files, config):
    files.append(File.generated(config, "api/openapi.yaml", abs_src_path=_schema_path()))
    return files
