"""The benchmark harness runs (CI runs it in --smoke mode: it checks that it runs, not figures)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.test import override_settings

REQUIRE_SERVICES = os.environ.get("LERNPFAD_REQUIRE_SERVICES") == "1"


@override_settings(ROOT_URLCONF="bench.urls")
def test_floor_answers_fixed_json_and_the_authenticated_floor_denies_by_default(api_client):
    from bench.urls import FLOOR_BODY

    response = api_client.get("/bench/floor/")
    assert response.status_code == 200
    assert response.json() == FLOOR_BODY
    assert api_client.get("/bench/floor/django/").json() == FLOOR_BODY
    denied = api_client.get("/bench/floor/auth/")
    assert denied.status_code == 401
    assert denied.json()["error"]["code"]


def test_lua_script_escapes_headers_and_bodies():
    from bench.run import Request, lua_script

    script = lua_script(
        [Request("POST", "/x/", {"Authorization": 'Token a"b'}, '{"k": "v\\n"}')], expected=201
    )
    assert r'["Authorization"] = "Token a\"b"' in script
    assert r'"{\"k\": \"v\\n\"}"' in script
    assert "local expected = 201" in script


def test_compare_capacity_stops_at_the_first_slow_or_failing_stage_and_renders():
    from bench.compare import capacity, markdown, summary_rows

    def stage(learners, p95, failures=0):
        return {"learners": learners, "rps": learners / 8, "p95_ms": p95, "failures": failures}

    assert capacity([stage(100, 40), stage(200, 60, failures=1), stage(300, 50)]) == (100, 12.5)
    assert capacity([stage(100, 40), stage(200, 99), stage(300, 100)]) == (200, 25.0)

    def run(side, learners, rps):
        line = {"rps": rps, "ratio": rps / 1000, "p99_ms": 9.0, "clean": True}
        return {
            "side": side,
            "learners": learners,
            "learners_rps": learners / 8,
            "session_errors": 0,
            "lines": {"due": line},
        }

    runs = [
        run("before", 500, 300),
        run("after", 400, 250),
        run("after", 450, 230),
        run("before", 500, 310),
    ]
    summary = {row["what"]: row for row in summary_rows(runs, ["due"])}
    capacity_row = summary["learners at once, p95 < 100 ms, no failures"]
    assert (capacity_row["before"], capacity_row["after"]) == (500, 425)
    assert capacity_row["passed"] is True  # 425 / 500 = 0.85
    assert summary["due: req/s"]["share"] == pytest.approx(240 / 305)
    assert summary["due: req/s"]["passed"] is False
    machine = {
        "cores": 2,
        "cpu": "x",
        "memory_gb": 1,
        "python": "3",
        "postgresql": "15",
        "wrk": "wrk",
    }
    text = markdown(
        {
            "mode": "smoke",
            "date": "d",
            "minutes": 1,
            "command": "c",
            "cwd": ".",
            "before": "b",
            "after": "a",
            "machine": machine,
            "load_average": [1, 2],
            "rounds": 2,
            "lines": ["due"],
            "seconds": 1,
            "stages": None,
            "session_errors": {"before": 0, "after": 0},
            "summary": list(summary.values()),
            "runs": runs,
        }
    )
    assert (
        "| learners at once, p95 < 100 ms, no failures | 500 | 425 | 0.85 | 0.85 | pass |" in text
    )
    assert "| 2 | before | 500 | 62.5 | 310 (0.31) | yes |" in text


@pytest.mark.slow
def test_smoke_run_measures_every_line_beside_its_floor(tmp_path: Path):
    if shutil.which("wrk") is None:
        if REQUIRE_SERVICES:
            pytest.fail("wrk is missing (apt-get install wrk)", pytrace=False)
        pytest.skip("wrk is not installed")
    # A database of its own per test database name, so parallel test runs do not collide.
    database = settings.DATABASES["default"]
    url = urlparse(os.environ["DATABASE_URL"])._replace(path=f"/{database['NAME']}_bench_smoke")
    env = {
        **os.environ,
        "BENCH_DATABASE_URL": url.geturl(),
        "DJANGO_SETTINGS_MODULE": "bench.settings",
    }
    completed = subprocess.run(
        [sys.executable, "-m", "bench.run", "--smoke", "--drop", "--out", str(tmp_path)],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=420,
    )
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-4000:]

    results = json.loads((tmp_path / "latest.json").read_text())
    rows = {row["key"]: row for row in results["http"]}
    assert set(rows) == {
        "floor",
        "floor_auth",
        "floor_django",
        "floor_html",
        "step",
        "step_304",
        "bundle",
        "progress",
        "due",
        "review",
        "exam_submit",
        "web_step",
        "web_module",
        "web_dashboard",
        "web_review",
        "web_stats",
        "web_exam",
    }
    assert results["not_measured_yet"] == []
    for row in rows.values():
        assert row["clean"], row
        assert row["rps"] > 0
        assert row["p99_ms"] >= row["p50_ms"] > 0
    floors_used = {row["floor"] for row in rows.values() if row["floor"]}
    for row in rows.values():
        if row["floor"]:
            # One round: the ratio is the endpoint's run over the floor run paired with it.
            assert row["floor"] in rows
            [paired] = row["paired_floor_rps"]
            # A floor that has a floor of its own (the token and HTML floors) runs again before
            # each of its lines: its ratio is from its first run, the one paired with its floor.
            measured = row["runs"][0]["rps"] if row["key"] in floors_used else row["rps"]
            assert row["ratio"] == pytest.approx(measured / paired, abs=0.01)
    assert rows["floor"]["queries"] == 0
    # The token floor is set against the anonymous one; the web pages against the HTML floor.
    assert rows["floor_auth"]["floor"] == "floor"
    assert {rows[k]["floor"] for k in rows if k.startswith("web_")} == {"floor_html"}
    assert rows["progress"]["ratio_anonymous"] > 0
    sessions = results["sessions"]
    assert sessions["errors"] == 0
    [stage] = sessions["stages"]
    assert stage["learners"] == 5 and stage["requests"] > 0
    assert set(stage["cpu_share"]) == {"gunicorn", "postgresql", "locust"}
    assert stage["cpu_share"]["gunicorn"] > 0
    assert rows["step_304"]["probe_status"] == 304
    assert results["machine"]["cores"] >= 1
    assert results["machine"]["postgresql"]
    assert [r["target"] for r in results["import"]["rows"]] == ["< 1 s", "0 rows", "0 rows"]
    planner = results["planner"]
    # Every learner has a card due and a reminder time: each is planned once in the day (a DST
    # switch in one of the 24 zones can bring an hour's reminders up twice or not at all).
    assert planner["claimed"] == planner["dispatched"]
    assert abs(planner["claimed"] - planner["learners"]) <= planner["learners"] * 0.01
    assert planner["sink_messages"] == planner["send_outcomes"].get("sent", 0) > 0
    markdown = (tmp_path / "latest.md").read_text()
    assert "| what | req/s | p50 ms | p99 ms | its floor, req/s | ratio |" in markdown
    assert "target" not in markdown.split("## Learners per server")[0]
    assert "## Learners per server (study sessions)" in markdown
