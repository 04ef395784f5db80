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


def on_files(files, config):
    files.append(File.generated(config, "api/openapi.yaml", abs_src_path=_schema_path()))
    return files
