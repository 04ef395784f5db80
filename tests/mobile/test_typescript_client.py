"""The mobile journey through a TypeScript client generated from the schema, as a phone app
would build one: ``manage.py spectacular`` writes the schema, openapi-typescript generates its
types, ``tsc --noEmit`` type-checks the scenario (tests/mobile/*.mts) against them, and the
compiled scenario walks a live gunicorn (production settings) with openapi-fetch, validating
every answer against the schema with Ajv. A schema change that breaks the generated client
fails here. The Node packages come from the root package.json (``make test-tools``: ``npm ci``);
without node or them the test skips, and fails under LERNPFAD_REQUIRE_SERVICES=1 (CI)."""

from __future__ import annotations

import json
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import _missing
from tests.factories import exam_bank_approve, learner_create, learner_password
from tests.helpers.production import production_env
from tests.live_gunicorn import BIN, Gunicorn

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

HERE = Path(__file__).parent
ROOT = Path(settings.BASE_DIR)
NODE_MODULES = ROOT / "node_modules"
SOURCES = sorted(HERE.glob("*.mts"))
TOOL_TIMEOUT = 300  # seconds; tsc and openapi-typescript take a few each


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        _missing("needs node and npm (apt-get install npm)")
    for package in ("openapi-typescript", "openapi-fetch", "typescript", "ajv", "ajv-formats"):
        if not (NODE_MODULES / package / "package.json").exists():
            _missing(f"needs the npm package {package} (make test-tools: npm ci)")
    return str(node)


def _run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=TOOL_TIMEOUT
    )
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _client_build(node: str, folder: Path) -> None:
    """The schema, the types generated from it and the scenario type-checked against them."""
    _run(
        str(BIN / "python"),
        "manage.py",
        "spectacular",
        "--format",
        "openapi-json",
        "--file",
        str(folder / "schema.json"),
        cwd=ROOT,
        env=production_env(),
    )
    for source in SOURCES:
        shutil.copy(source, folder / source.name)
    (folder / "node_modules").symlink_to(NODE_MODULES)
    (folder / "tsconfig.json").write_text(
        json.dumps(
            {
                "extends": str(HERE / "tsconfig.json"),
                "include": ["*.mts", "schema.d.ts"],
                "compilerOptions": {"rootDir": ".", "outDir": "build"},
            }
        ),
        encoding="utf-8",
    )
    tools = NODE_MODULES
    _run(
        node,
        str(tools / "openapi-typescript/bin/cli.js"),
        "schema.json",
        "-o",
        "schema.d.ts",
        cwd=folder,
    )
    _run(node, str(HERE / "no_casts.mjs"), *(source.name for source in SOURCES), cwd=folder)
    _run(node, str(tools / "typescript/bin/tsc"), "-p", "tsconfig.json", "--noEmit", cwd=folder)
    _run(node, str(tools / "typescript/bin/tsc"), "-p", "tsconfig.json", cwd=folder)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[str, Path]:
    """node and a folder with the schema, its generated types and the compiled scenario (one
    build for the tests of this file; a test that changes it works on a copy)."""
    node = _node()
    folder = tmp_path_factory.mktemp("client")
    _client_build(node, folder)
    return node, folder


def _copy(built_folder: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "client"
    shutil.copytree(built_folder, folder, symlinks=True)
    return folder


def test_the_scenario_has_no_casts(tmp_path):
    """The cast check can fail: each kind of cast in a file is reported."""
    node = _node()
    sample = tmp_path / "casts.mts"
    sample.write_text(
        "const a = JSON.parse('1') as number;\nconst b = <string>JSON.parse('1');\n"
        "const c = [1].find((x) => x)!;\nlet d: any = 1;\nconst ok = 'as any! <T>';\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [node, str(HERE / "no_casts.mjs"), str(sample)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1
    found = [line.split(": ")[1] for line in result.stderr.splitlines()]
    assert found == ["as", "<T>", "!", "any"], result.stderr


def test_a_schema_change_that_breaks_the_client_fails_the_type_check(built, tmp_path):
    """The scenario reads /me/'s calendar_feed: a schema without it no longer type-checks."""
    node, built_folder = built
    folder = _copy(built_folder, tmp_path)
    schema = json.loads((folder / "schema.json").read_text(encoding="utf-8"))
    me = schema["components"]["schemas"]["MeDetail"]
    del me["properties"]["calendar_feed"]
    me["required"].remove("calendar_feed")
    (folder / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    tools = NODE_MODULES
    _run(
        node,
        str(tools / "openapi-typescript/bin/cli.js"),
        "schema.json",
        "-o",
        "schema.d.ts",
        cwd=folder,
    )
    result = subprocess.run(
        [node, str(tools / "typescript/bin/tsc"), "-p", "tsconfig.json", "--noEmit"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=TOOL_TIMEOUT,
    )
    assert result.returncode != 0
    assert "calendar_feed" in result.stdout, result.stdout


# What the run-time validation must refuse (validate.mts), and one answer it must accept.
FEED = "/api/v1/me/calendar-feed/"
GOOD_FEED = {"url": "https://lernpfad.example/calendar/x.ics", "created_at": "2026-12-06T05:00:00Z"}
VALIDATION_CASES = [
    ("POST", FEED, 201, GOOD_FEED, None),
    ("POST", FEED, 201, {**GOOD_FEED, "created_at": "yesterday"}, "breaks the schema"),
    ("POST", FEED, 201, {**GOOD_FEED, "token": "x"}, "breaks the schema"),
    ("POST", FEED, 201, {"url": GOOD_FEED["url"]}, "breaks the schema"),
    ("GET", FEED, 418, None, "does not declare"),
    (
        "GET",
        FEED,
        404,
        {"error": {"code": "module_not_found", "message": "m", "detail": None}},
        "is not declared",
    ),
]


def test_the_run_time_validation_refuses_what_the_schema_does_not_declare(built, tmp_path):
    node, built_folder = built
    folder = _copy(built_folder, tmp_path)
    script = (
        "import { SchemaValidator } from './build/validate.mjs';\n"
        "const validator = new SchemaValidator('schema.json');\n"
        "const outcomes = [];\n"
        f"for (const [method, path, status, body] of {json.dumps(VALIDATION_CASES)}) {{\n"
        "  try { validator.check(method, path, status, body ?? undefined); outcomes.push(null); }\n"
        "  catch (error) { outcomes.push(String(error.message)); }\n"
        "}\n"
        "console.log(JSON.stringify(outcomes));\n"
    )
    (folder / "cases.mjs").write_text(script, encoding="utf-8")
    outcomes = json.loads(_run(node, "cases.mjs", cwd=folder))
    for (*_case, expected), outcome in zip(VALIDATION_CASES, outcomes, strict=True):
        if expected is None:
            assert outcome is None, outcome
        else:
            assert outcome is not None and expected in outcome, (expected, outcome)


def test_a_generated_typescript_client_walks_the_mobile_journey(built, course, tmp_path):
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    from quizzes.models import ExamPolicy

    node, folder = built
    # A certifying exam from the approved bank that any answers pass: the journey checks the
    # certificate, not the learner's knowledge.
    exam_bank_approve(course)
    ExamPolicy.objects.filter(module=course).update(pass_mark_percent=Decimal(0))
    # The phone syncs every step completed by its sections: the course admin's "sections" rule
    # without a minimum time (the strict default, offline too: tests/progress/test_step_complete).
    from progress import api as progress_api

    progress_api.completion_rule_set(module_id=course.pk, rule="sections", reading_time_share=0)
    # The tests hash with MD5 (lms.settings.test), which production does not accept: a hash
    # production knows, as tests/reliability/test_live_schemathesis.py stores it.
    mara = learner_create("mara")
    hashed = PBKDF2PasswordHasher().encode(learner_password("mara"), "livesalt", iterations=1_000)
    type(mara).objects.filter(pk=mara.pk).update(password=hashed)
    env = production_env(
        GUNICORN_CONTROL_SOCKET=str(tmp_path / "gunicorn.ctl"), WEB_CONCURRENCY="1"
    )
    server = Gunicorn(env=env, log=tmp_path / "gunicorn.log")
    try:
        server.wait_until_serving("/api/v1/modules/")
        output = _run(
            node,
            str(folder / "build" / "scenario.mjs"),
            cwd=folder,
            env={
                "PATH": env.get("PATH", "/usr/bin:/bin"),
                "LERNPFAD_URL": server.url,
                "LERNPFAD_SCHEMA": str(folder / "schema.json"),
                "LERNPFAD_MODULE": course.slug,
                "LERNPFAD_USERNAME": "mara",
                "LERNPFAD_PASSWORD": learner_password("mara"),
            },
        )
        summary = json.loads(output.strip().splitlines()[-1])
        assert len(summary["steps"]) == 7, summary
        # Every answer passed the schema, the error answers and the 304 among them.
        assert {
            "GET /api/v1/modules/{module}/bundle/ 304",
            "POST /api/v1/progress/sync/ 200",
            "POST /api/v1/reviews/batch/ 200",
            "PUT /api/v1/modules/{module}/steps/{number}/notes/ 412",
            "POST /api/v1/exam-attempts/{attempt}/submit/ 200",
            "GET /api/v1/certificates/verify/{code}/ 200",
            "POST /api/v1/me/calendar-feed/ 201",
            "POST /api/v1/me/calendar-feed/ 409",
            "POST /api/v1/me/calendar-feed/rotate/ 200",
        } <= set(summary["validated"]), summary
        print(f"\nTypeScript client: {summary['steps']}, {len(summary['validated'])} answers")
        assert "Traceback" not in server.log.read_text(errors="replace"), server.tail(80)
    finally:
        server.stop()
