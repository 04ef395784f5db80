"""The Dockerfile and .dockerignore, read without building (tests/lms/test_production_image.py
builds): what goes into the image, and the helpers that read both as Docker does."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from image_build import (
    DockerIgnore,
    compose_interpolate,
    context_files,
    dockerfile_instructions,
    dotenv_read,
)

ROOT = Path(settings.BASE_DIR)


@pytest.fixture(scope="module")
def dockerignore() -> DockerIgnore:
    return DockerIgnore.parse((ROOT / ".dockerignore").read_text(encoding="utf-8"))


def test_dockerignore_is_read_as_docker_reads_it():
    rules = DockerIgnore.parse("# comment\n*.pyc\n**/cache\nbuild\n!build/keep.txt\n/docs/*.md\n")
    assert rules.ignored("top.pyc")
    assert not rules.ignored("lms/deep.pyc")  # no "**/": only at the root, unlike .gitignore
    assert rules.ignored("cache") and rules.ignored("a/b/cache/file")
    assert rules.ignored("build/lib/x.py")  # a matched folder takes everything below it
    assert not rules.ignored("build/keep.txt")  # "!" re-includes; the last match wins
    assert rules.ignored("docs/index.md") and not rules.ignored("docs/sub/index.md")
    assert not rules.ignored("builder.py")


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        ".env.production",
        ".venv/bin/python",
        ".git/HEAD",
        "db.sqlite3",
        "db.sqlite3-journal",
        "staticfiles/staticfiles.json",
        "lms/__pycache__/views.cpython-311.pyc",
        "var/celery-broker/processed/x.msg",
        "test-artifacts/screenshots/a.png",
        "lernpfad.egg-info/PKG-INFO",
        ".pytest_cache/v/cache/nodeids",
    ],
)
def test_the_image_gets_no_secret_virtualenv_database_or_cache(dockerignore, path):
    assert dockerignore.ignored(path)


def test_the_image_gets_every_file_of_the_repository(dockerignore):
    """Everything git tracks is sent to the build (templates, static files, catalogs, course
    documents, the Caddyfile); the ignore list only keeps out what git ignores too."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked
    left_out = [path for path in tracked if dockerignore.ignored(path)]
    assert left_out == []
    sent = set(context_files(ROOT, dockerignore))
    assert {"manage.py", "locale/de/LC_MESSAGES/django.mo", "deploy/Caddyfile"} <= sent
    assert not any(path.startswith((".venv/", ".git/")) for path in sent)


def test_dockerfile_instructions_join_continued_lines():
    text = "FROM python:3.11-slim\n# a comment\nRUN A=1 \\\n    B=2 \\\n    cmd --flag\nUSER me\n"
    instructions = dockerfile_instructions(text)
    assert [(i.keyword, i.arguments) for i in instructions] == [
        ("FROM", "python:3.11-slim"),
        ("RUN", "A=1 B=2 cmd --flag"),
        ("USER", "me"),
    ]


def test_static_files_are_collected_in_the_image_with_no_secret_in_it():
    instructions = dockerfile_instructions((ROOT / "Dockerfile").read_text(encoding="utf-8"))
    keywords = [i.keyword for i in instructions]
    runs = [i.arguments for i in instructions if i.keyword == "RUN"]
    install = next(index for index, run in enumerate(runs) if "pip install" in run)
    collect = next(index for index, run in enumerate(runs) if "collectstatic" in run)
    assert install < collect
    assert "lms.settings.production" in runs[collect]  # the manifest storage production uses
    # The placeholder key lives in that one RUN's environment, not in an ENV or ARG layer.
    assert "ARG" not in keywords
    for instruction in instructions:
        if instruction.keyword == "ENV":
            assert "SECRET" not in instruction.arguments
    last_run = max(index for index, keyword in enumerate(keywords) if keyword == "RUN")
    assert keywords.index("USER") > last_run  # the services run as that user, not as root


def test_compose_variables_are_interpolated_as_compose_does():
    variables = {"SET": "value", "EMPTY": ""}
    assert compose_interpolate("a ${SET} b", variables) == "a value b"
    assert compose_interpolate("${EMPTY:-fallback}", variables) == "fallback"
    assert compose_interpolate("celery@$$HOSTNAME", variables) == "celery@$HOSTNAME"
    with pytest.raises(AssertionError, match="set EMPTY"):
        compose_interpolate("${EMPTY:?set EMPTY}", variables)
    assert dotenv_read("# c\nA=1\nB='two words'\n\nC=\"x=y\"\n") == {
        "A": "1",
        "B": "two words",
        "C": "x=y",
    }
