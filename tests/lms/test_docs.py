"""The documentation: the site builds with --strict and fetches nothing from the internet, every
picture in the guides is taken by a browser journey, the example course documents import, the
configuration table names every variable the settings read, and the README stays a front door."""

from __future__ import annotations

import ast
import fnmatch
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from courses.documents import CARD_SECTION_KINDS, MODULE_SECTION_KINDS, parse_document

ROOT = Path(settings.BASE_DIR)
DOCS = ROOT / "docs"
SCREENS = DOCS / "assets" / "screens"
BROWSER_TESTS = ROOT / "tests" / "browser"
GUIDES = ("learners", "admins")


def _doc_pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


@pytest.mark.slow
def test_the_site_builds_strictly_and_loads_nothing_from_elsewhere(tmp_path):
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    pages = sorted(site.rglob("*.html"))
    assert (site / "learners" / "index.html") in pages
    assert (site / "de" / "learners" / "index.html") in pages
    # Nothing a reader's browser would fetch from another host: scripts, stylesheets, fonts,
    # images (links to elsewhere in the text are fine).
    external = re.compile(
        r"<(?:script|img|source)\b[^>]*\bsrc=\"(?:https?:)?//|<link\b[^>]*\bhref=\"(?:https?:)?//"
        r"|url\((?:['\"])?(?:https?:)?//",
        re.IGNORECASE,
    )
    fetching = [str(page.relative_to(site)) for page in pages if external.search(page.read_text())]
    assert not fetching, fetching
    # The schema shipped with the site is generated from the code while it is built.
    schema = (site / "api" / "openapi.yaml").read_text(encoding="utf-8")
    assert schema.startswith("openapi: 3")
    assert "/api/v1/reviews/due/:" in schema


def _journey_picture_patterns() -> set[str]:
    """The picture names the browser journeys save: the first argument of ``doc_shot`` or the
    ``doc=`` keyword of a screenshot helper, a literal or an f-string (its fields as ``*``)."""
    patterns = set()
    for path in sorted(BROWSER_TESTS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else None
            values = [kw.value for kw in node.keywords if kw.arg == "doc"]
            if name == "doc_shot" and len(node.args) >= 2:
                values.append(node.args[1])
            for value in values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    patterns.add(value.value)
                elif isinstance(value, ast.JoinedStr):
                    patterns.add(
                        "".join(
                            part.value if isinstance(part, ast.Constant) else "*"
                            for part in value.values
                        )
                    )
    return patterns


def _pictures_shown() -> dict[str, list[str]]:
    """Every picture a page of the site or the README shows: its name under assets/screens/, or
    the whole reference when it points anywhere else."""
    shown: dict[str, list[str]] = {}
    image = re.compile(r"!\[[^\]]*\]\(([^)\s]+)")
    for page in [*_doc_pages(), ROOT / "README.md"]:
        for reference in image.findall(page.read_text(encoding="utf-8")):
            match = re.fullmatch(r"(?:\.\./)*(?:docs/)?assets/screens/([\w-]+)\.png", reference)
            key = match[1] if match else reference
            shown.setdefault(key, []).append(str(page.relative_to(ROOT)))
    return shown


def test_every_picture_in_the_guides_is_taken_by_a_browser_journey():
    patterns = _journey_picture_patterns()
    assert len(patterns) >= 10, patterns  # the journeys were found at all
    shown = _pictures_shown()
    elsewhere = {ref: pages for ref, pages in shown.items() if "/" in ref or "." in ref}
    assert not elsewhere, (
        f"pictures outside docs/assets/screens/ (no journey takes them): {elsewhere}"
    )
    untaken = {
        name: pages
        for name, pages in shown.items()
        if not any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)
    }
    assert not untaken, f"no browser journey takes these pictures: {untaken}"
    missing = sorted(name for name in shown if not (SCREENS / f"{name}.png").is_file())
    assert not missing, f"run the journeys that take them and commit the pictures: {missing}"
    unused = sorted(path.stem for path in SCREENS.glob("*") if path.stem not in shown)
    assert not unused, f"pictures no page shows (delete them or their doc_shot): {unused}"


def test_the_picture_check_knows_a_hand_made_picture_from_a_journeys():
    patterns = _journey_picture_patterns()
    assert any(fnmatch.fnmatchcase("learner-dashboard-de", p) for p in patterns), patterns
    assert not any(fnmatch.fnmatchcase("learner-drawn-by-hand", p) for p in patterns), patterns


def test_every_guide_is_in_german_and_in_english():
    for guide in GUIDES:
        english = {p.name for p in (DOCS / guide).glob("*.md") if not p.name.endswith(".de.md")}
        german = {p.name.removesuffix(".de.md") + ".md" for p in (DOCS / guide).glob("*.de.md")}
        assert english == german, (guide, english ^ german)


def _example_documents(page: Path) -> dict[str, str]:
    blocks = re.findall(r'```text title="([\w.-]+)"\n(.*?)\n```', page.read_text(), re.DOTALL)
    return {name: text + "\n" for name, text in blocks}


@pytest.mark.django_db
def test_the_document_format_examples_import_and_show_every_section_kind(tmp_path):
    english = _example_documents(DOCS / "admins" / "document-format.md")
    assert set(english) == {"beispiel.txt", "karte.txt"}
    # The German guide shows the very same documents.
    assert _example_documents(DOCS / "admins" / "document-format.de.md") == english
    module = parse_document(english["beispiel.txt"], path="beispiel.txt")
    card = parse_document(english["karte.txt"], path="karte.txt")
    assert {s.kind for step in module.steps for s in step.sections} == set(
        MODULE_SECTION_KINDS.values()
    )
    assert {s.kind for s in card.sections} == set(CARD_SECTION_KINDS.values())
    assert module.exam is not None and any(step.footer for step in module.steps)
    assert any(not step.footer for step in module.steps)  # the footer is optional

    paths = []
    for name, text in english.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / name))
    call_command("import_course", *paths, stdout=io.StringIO())
    from courses.api import module_slugs

    assert "beispielreihe-1" in module_slugs()


def _settings_variables() -> set[str]:
    read = re.compile(r"""(?:env(?:\.\w+)?|environ\.get|getenv)\(\s*["']([A-Z][A-Z0-9_]+)["']""")
    sources = [*sorted((ROOT / "lms" / "settings").glob("*.py")), ROOT / "lms" / "gunicorn_conf.py"]
    names = {name for path in sources for name in read.findall(path.read_text())}
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    names |= set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=", example, re.MULTILINE))
    names |= set(re.findall(r"\{\$([A-Z][A-Z0-9_]+)", (ROOT / "deploy" / "Caddyfile").read_text()))
    return names


def test_the_configuration_page_lists_every_variable():
    variables = _settings_variables()
    assert {
        "DATABASE_URL",
        "DJANGO_SECRET_KEY",
        "WEB_CONCURRENCY",
        "LERNPFAD_UPSTREAMS",
    } <= variables
    table = (DOCS / "operations" / "configuration.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([A-Z][A-Z0-9_]+)` \|", table, re.MULTILINE))
    assert not variables - listed, f"add to docs/operations/configuration.md: {variables - listed}"


def test_the_readme_is_a_front_door():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 150
    assert "make run" in readme and "make test" in readme
    # Nothing that changes from run to run, nothing only a developer of the day understands.
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", readme), "a date"
    assert not re.search(r"load average", readme, re.IGNORECASE)
    assert not re.search(r"\bissue\s+#?\d+", readme, re.IGNORECASE)
    assert not re.search(r"\breq/s\b|\bp9[59]\b|\d+(?:[.,]\d+)?\s*ms\b", readme), "a figure"
    # The demo log-ins are the ones demo_setup creates.
    from lms.management.commands.demo_setup import DEMO_USERS

    for username, password, *_ in DEMO_USERS:
        assert f"`{username}` / `{password}`" in readme, username
    # Every guide is one click away, and every link into the docs leads somewhere.
    links = re.findall(r"\]\((docs/[^)#\s]+)", readme)
    for guide in ("docs/learners/index.md", "docs/admins/index.md", "docs/operations/index.md"):
        assert guide in links, guide
    assert all((ROOT / link).is_file() for link in links), links


def test_the_error_codes_page_lists_what_the_schema_states():
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    schema = io.StringIO()
    call_command("spectacular", stdout=schema)
    page = hooks.error_codes_page(schema.getvalue())
    feed = [
        line
        for line in page.splitlines()
        if line.startswith("| `POST /api/v1/me/calendar-feed/` | 409 |")
    ]
    assert len(feed) == 1 and "`calendar_feed_exists`" in feed[0]
    assert "`completion_evidence_missing`" in page
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert len(rows) > 50
