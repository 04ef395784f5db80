"""Run the benchmark: build the data, serve it with gunicorn, load it with wrk beside the floor.

    python -m bench.run            # full scale, 5 rounds of 10 s, writes bench/results/latest.*
    python -m bench.run --smoke    # tiny data, 1 round of 2 s, writes var/bench/smoke/ (CI)
    python -m bench.run --reuse    # keep the database the last build left

In each round every endpoint is loaded right after its floor, so the two runs of a ratio are
seconds apart on a shared machine. Figures are medians over the runs; a line's ratio is the
median of its per-round ratios. Query counts come from one request through Django's test client
against the same database.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import asdict
from pathlib import Path
from urllib.parse import urlparse

from bench.scenarios import LoadSettings, Request, Scenario, session_header, token_header
from bench.scenarios import build as scenarios_for_endpoints
from tests.helpers.ports import free_port

BASE_DIR = Path(__file__).resolve().parents[1]
RESULTS_DIR = BASE_DIR / "bench" / "results"
SMOKE_DIR = BASE_DIR / "var" / "bench" / "smoke"


def gunicorn_workers(load: LoadSettings) -> int:
    """The workers the benchmark's gunicorn runs: production's number unless --workers says."""
    from lms import gunicorn_conf

    return load.workers or gunicorn_conf.workers


def bench_database_url(*, smoke: bool) -> str:
    """BENCH_DATABASE_URL, else the server of DATABASE_URL (if PostgreSQL) with a bench name."""
    if os.environ.get("BENCH_DATABASE_URL"):
        return os.environ["BENCH_DATABASE_URL"]
    name = "lernpfad_bench_smoke" if smoke else "lernpfad_bench"
    base = os.environ.get("DATABASE_URL", "")
    if base.startswith(("postgres://", "postgresql://")):
        return urlparse(base)._replace(path=f"/{name}").geturl()
    return f"postgres://postgres@127.0.0.1:5432/{name}"


# --- scenarios ------------------------------------------------------------------------------


def scenarios_build(
    manifest, *, load: LoadSettings, only: set[str] | None = None
) -> tuple[list[Scenario], list[str]]:
    """The floors and every endpoint that exists in this checkout; plus what is not there yet."""
    from django.urls import Resolver404, resolve

    def routed(path: str) -> bool:
        try:
            resolve(path)
        except Resolver404:
            return False
        return True

    from bench.build_data import sessions_create

    tokens = [token for _, token in manifest.learner_tokens]
    # The same learners signed in in a browser: a fresh session each per run.
    sessions = sessions_create([learner for learner, _ in manifest.learner_tokens])
    manifest.extra["sessions"] = {str(k): v for k, v in sessions.items()}
    session_keys = list(sessions.values())
    floors = [
        Scenario(
            key="floor",
            label="floor, anonymous (DRF view, fixed JSON)",
            expect=200,
            requests=lambda _round: [Request("GET", "/bench/floor/")],
            probe=lambda: Request("GET", "/bench/floor/"),
        ),
        Scenario(
            key="floor_auth",
            label="floor, knox token (DRF view, fixed JSON)",
            expect=200,
            requests=lambda _round: [
                Request("GET", "/bench/floor/auth/", token_header(t)) for t in tokens
            ],
            probe=lambda: Request("GET", "/bench/floor/auth/", token_header(tokens[-1])),
            # Run beside the anonymous floor: what the token itself costs.
            floor="floor",
        ),
        Scenario(
            key="floor_html",
            label="floor, web page signed in (session, base template, fixed body)",
            expect=200,
            requests=lambda _round: [
                Request("GET", "/bench/floor/html/", session_header(k)) for k in session_keys
            ],
            probe=lambda: Request("GET", "/bench/floor/html/", session_header(session_keys[-1])),
            floor="floor",
        ),
        Scenario(
            key="floor_django",
            label="reference: plain Django view, no DRF (not a floor for ratios)",
            expect=200,
            requests=lambda _round: [Request("GET", "/bench/floor/django/")],
            probe=lambda: Request("GET", "/bench/floor/django/"),
        ),
    ]
    endpoints, missing = scenarios_for_endpoints(manifest, routed=routed, load=load, only=only)
    return floors + endpoints, missing


# --- query counts ---------------------------------------------------------------------------


def queries_count(scenario: Scenario) -> tuple[int, int]:
    """(status, queries) of one request through the test client, after one warm-up request."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1")

    def send(request: Request):
        return client.generic(
            request.method,
            request.path,
            data=request.body or "",
            content_type="application/json",
            headers=request.headers,
        )

    send(scenario.probe())  # warm caches (ContentType, URL resolver) as a running server has
    request = scenario.probe()
    with CaptureQueriesContext(connection) as context:
        response = send(request)
    return response.status_code, len(context.captured_queries)


# --- the server and the load generator ------------------------------------------------------


@contextlib.contextmanager
def gunicorn_running(
    *, env: dict[str, str], log_path: Path, workers: int, pid_out: list[int] | None = None
):
    """gunicorn as in production (its config file, sync workers), bound to loopback; yields the
    base URL (and appends the master's pid to ``pid_out``)."""
    port = free_port()
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        "-c",
        "python:lms.gunicorn_conf",
        "lms.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        # Production logs every request (docker-compose: --access-logfile -); the same
        # formatting work is done here, written nowhere.
        "--access-logfile",
        "/dev/null",
        "--error-logfile",
        str(log_path),
    ]
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            command, cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    if pid_out is not None:
        pid_out.append(process.pid)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/bench/floor/", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"gunicorn did not start; see {log_path}")
            time.sleep(0.2)
        yield base
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _lua_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped.replace("\r", "\\r") + '"'


LUA_TEMPLATE = """
-- Generated by bench/run.py: cycle through the requests, count unexpected statuses.
local specs = {
%(specs)s
}
local expected = %(expected)d
local formatted = {}
local n = 0
local i = 0
bad = 0
wrapped = 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for k, s in ipairs(specs) do
    formatted[k] = wrk.format(s[1], s[2], s[3], s[4])
  end
  n = #formatted
end

function request()
  i = i + 1
  if i > n then
    i = 1
    wrapped = wrapped + 1
  end
  return formatted[i]
end

function response(status, headers, body)
  if status ~= expected then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local unexpected, wraps = 0, 0
  for _, t in ipairs(threads) do
    unexpected = unexpected + t:get("bad")
    wraps = wraps + t:get("wrapped")
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests": %%d, "duration_us": %%d, "p50_us": %%d, "p90_us": %%d, ' ..
    '"p99_us": %%d, "max_us": %%d, "mean_us": %%.1f, "connect_errors": %%d, ' ..
    '"read_errors": %%d, "write_errors": %%d, "timeouts": %%d, "unexpected_status": %%d, ' ..
    '"pool_wraps": %%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, latency.mean, e.connect, e.read, e.write, e.timeout,
    unexpected, wraps))
end
"""


def lua_script(requests: list[Request], *, expected: int) -> str:
    specs = []
    for r in requests:
        headers = ", ".join(f"[{_lua_string(k)}] = {_lua_string(v)}" for k, v in r.headers.items())
        if r.body is not None:
            headers += (", " if headers else "") + '["Content-Type"] = "application/json"'
        body = _lua_string(r.body) if r.body is not None else "nil"
        specs.append(
            f"  {{{_lua_string(r.method)}, {_lua_string(r.path)}, {{{headers}}}, {body}}},"
        )
    return LUA_TEMPLATE % {"specs": "\n".join(specs), "expected": expected}


def wrk_run(
    base: str, scenario: Scenario, round_index: int, load: LoadSettings, seconds: float, tmp: Path
) -> dict:
    if scenario.prepare is not None:
        scenario.prepare(round_index)
    script = tmp / f"{scenario.key}-{round_index}.lua"
    script.write_text(lua_script(scenario.requests(round_index), expected=scenario.expect))
    command = [
        shutil.which("wrk") or "wrk",
        f"-t{load.threads}",
        f"-c{load.connections}",
        f"-d{max(1, round(seconds))}s",
        "--timeout",
        "10s",
        "-s",
        str(script),
        base + "/",
    ]
    completed = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 60)
    for line in completed.stdout.splitlines():
        if line.startswith("BENCH_RESULT "):
            result = json.loads(line.removeprefix("BENCH_RESULT "))
            result["rps"] = result["requests"] / (result["duration_us"] / 1e6)
            return result
    raise RuntimeError(f"wrk gave no result for {scenario.key}: {completed.stderr[-2000:]}")


# --- probes in subprocesses -----------------------------------------------------------------


def probe_run(name: str, env: dict[str, str], *args: str) -> dict:
    """Run ``python -m bench.probes NAME`` (own process: own memory peak, own connections)."""
    completed = subprocess.run(
        [sys.executable, "-m", "bench.probes", name, *args],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    for line in completed.stdout.splitlines():
        if line.startswith("PROBE_RESULT "):
            return json.loads(line.removeprefix("PROBE_RESULT "))
    raise RuntimeError(
        f"probe {name} failed:\n{completed.stdout[-3000:]}\n{completed.stderr[-3000:]}"
    )


def import_measure(env: dict[str, str]) -> dict:
    """import_course: first import into an empty database, re-imports into it and the full one."""
    from bench.build_data import import_database_url

    empty = probe_run("import", {**env, "BENCH_PROBE_DATABASE_URL": import_database_url()})
    full = probe_run("reimport", env)
    return {
        "rows": [
            {
                "what": f"first import of the four seed documents ({empty['first_rows']} rows)",
                "measured": f"{empty['first_seconds']:.3f} s",
                "target": "< 1 s",
                "passed": empty["first_seconds"] < 1.0,
            },
            {
                "what": "re-import of unchanged documents: rows written (PostgreSQL's count)",
                "measured": f"{empty['again_rows']} rows in {empty['again_seconds']:.3f} s",
                "target": "0 rows",
                "passed": empty["again_rows"] == 0,
            },
            {
                "what": "re-import into the full data set (learner progress attached)",
                "measured": f"{full['rows']} rows in {full['seconds']:.3f} s",
                "target": "0 rows",
                "passed": full["rows"] == 0,
            },
        ],
        "empty_database": empty,
        "full_database": full,
        "note": "Timed in-process around courses.services.importing.course_import (parsing "
        "included, Django start-up not); rows written are PostgreSQL's own per-transaction "
        "counts (pg_stat_xact_user_tables), not the importer's report. Median of 3.",
    }


# --- machine --------------------------------------------------------------------------------


def machine_info() -> dict:
    import django
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        pg_version = cursor.fetchone()[0]
    cpu = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory_gb = None
    with contextlib.suppress(OSError, ValueError):
        first = Path("/proc/meminfo").read_text().splitlines()[0]
        memory_gb = round(int(first.split()[1]) / 1024 / 1024, 1)
    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.split("\n")
    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "memory_gb": memory_gb,
        "python": platform.python_version(),
        "django": django.get_version(),
        "postgresql": pg_version,
        "os": platform.platform(),
        "wrk": wrk_version[0].split(" [")[0].strip(),
    }


# --- the run --------------------------------------------------------------------------------


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def http_measure(
    scenarios: list[Scenario], *, env: dict[str, str], load: LoadSettings, work_dir: Path
) -> dict[str, dict]:
    """All rounds against one gunicorn; per line its runs, medians and ratios to its floor.

    In each round every endpoint runs right after a run of its own floor, so each ratio compares
    two runs a few seconds apart (the machine is shared; its load drifts over minutes). A line's
    ratio is the median of its per-round ratios.
    """
    by_key = {s.key: s for s in scenarios}
    runs: dict[str, list[dict]] = {s.key: [] for s in scenarios}
    ratios: dict[str, list[float]] = {s.key: [] for s in scenarios if s.floor}
    paired_floor: dict[str, list[float]] = {s.key: [] for s in scenarios if s.floor}

    # Personal endpoints are also set against the anonymous floor's latest run in the round,
    # so the token's own cost stays visible (their floor_auth ratio hides it).
    ratios_anonymous: dict[str, list[float]] = {s.key: [] for s in scenarios if s.floor}
    latest: dict[str, float] = {}

    def measure(scenario: Scenario, round_index: int) -> dict:
        result = wrk_run(base, scenario, round_index, load, load.seconds, work_dir)
        runs[scenario.key].append(result)
        latest[scenario.key] = result["rps"]
        print(
            f"  round {round_index + 1}/{load.rounds} {scenario.key:<16} "
            f"{result['rps']:8.0f} req/s  p50 {result['p50_us'] / 1000:6.1f} ms  "
            f"p99 {result['p99_us'] / 1000:6.1f} ms  "
            f"unexpected {result['unexpected_status']}",
            flush=True,
        )
        return result

    with gunicorn_running(
        env=env, log_path=work_dir / "gunicorn.log", workers=gunicorn_workers(load)
    ) as base:
        if load.warmup_seconds:
            for scenario in scenarios:
                wrk_run(base, scenario, -1, load, load.warmup_seconds, work_dir)
        for round_index in range(load.rounds):
            for scenario in scenarios:
                if scenario.floor:
                    floor = measure(by_key[scenario.floor], round_index)
                    result = measure(scenario, round_index)
                    paired_floor[scenario.key].append(floor["rps"])
                    if floor["rps"]:
                        ratios[scenario.key].append(result["rps"] / floor["rps"])
                    if latest.get("floor"):
                        ratios_anonymous[scenario.key].append(result["rps"] / latest["floor"])
                elif not any(s.floor == scenario.key for s in scenarios):
                    measure(scenario, round_index)  # a floor nobody uses: the reference line
    summary = {}
    for key, results in runs.items():
        summary[key] = {
            "rps": round(median([r["rps"] for r in results]), 1) if results else 0.0,
            "p50_ms": round(median([r["p50_us"] for r in results]) / 1000, 2),
            "p99_ms": round(median([r["p99_us"] for r in results]) / 1000, 2),
            "ratio": round(median(ratios[key]), 2) if ratios.get(key) else None,
            "ratio_anonymous": (
                round(median(ratios_anonymous[key]), 2) if ratios_anonymous.get(key) else None
            ),
            "paired_floor_rps": [round(v, 1) for v in paired_floor.get(key, [])],
            "errors": sum(
                r["connect_errors"] + r["read_errors"] + r["write_errors"] + r["timeouts"]
                for r in results
            ),
            "unexpected_status": sum(r["unexpected_status"] for r in results),
            "pool_wraps": sum(r["pool_wraps"] for r in results),
            "runs": results,
        }
    return summary


def verdict(passed: bool | None) -> str:
    return {True: "pass", False: "**MISS**", None: "—"}[passed]


def results_assemble(
    *, scenarios, http, queries, probes, manifest, load, machine, missing, smoke
) -> dict:
    rows = []
    for scenario in scenarios:
        figures = http[scenario.key]
        floor = http.get(scenario.floor) if scenario.floor else None
        ratio = figures["ratio"]
        status, query_count = queries[scenario.key]
        clean = figures["errors"] == 0 and figures["unexpected_status"] == 0
        if scenario.consumes and figures["pool_wraps"]:
            clean = False
        rows.append(
            {
                "key": scenario.key,
                "label": scenario.label,
                "floor": scenario.floor,
                "expect_status": scenario.expect,
                "probe_status": status,
                "queries": query_count,
                "rps": figures["rps"],
                "p50_ms": figures["p50_ms"],
                "p99_ms": figures["p99_ms"],
                "floor_rps": floor["rps"] if floor else None,
                "paired_floor_rps": figures["paired_floor_rps"],
                "ratio": ratio,
                "ratio_anonymous": figures["ratio_anonymous"],
                "errors": figures["errors"],
                "unexpected_status": figures["unexpected_status"],
                "pool_wraps": figures["pool_wraps"],
                "clean": clean and status == scenario.expect,
                "runs": figures["runs"],
            }
        )
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "mode": "smoke" if smoke else "full",
        "machine": machine,
        "load": {
            **asdict(load),
            "gunicorn_workers": gunicorn_workers(load),
            "load_generator": "wrk",
        },
        "dataset": {
            "scale": manifest.scale,
            "rows": manifest.rows,
            "build_seconds": manifest.seconds,
            "built_at": manifest.built_at,
        },
        "http": rows,
        "not_measured_yet": missing,
        **probes,
    }


def markdown_render(results: dict) -> str:
    m = results["machine"]
    load = results["load"]
    lines = [
        "# Lernpfad benchmark",
        "",
        f"{results['mode']} run, {results['date']}. Machine: {m['cores']} cores ({m['cpu']}), "
        f"{m['memory_gb']} GB, Python {m['python']}, Django {m['django']}, "
        f"PostgreSQL {m['postgresql']}, {m['wrk']}. One-minute load average "
        f"{m.get('load_average_before')} before and {m.get('load_average_after')} after the HTTP "
        "runs (2.0 would be both cores busy; the harness itself adds about that).",
        "",
        f"gunicorn {load['gunicorn_workers']} sync workers, production settings and middleware; "
        f"wrk -t{load['threads']} -c{load['connections']}, {load['rounds']} round(s) of "
        f"{load['seconds']:g} s per line after a {load['warmup_seconds']:g} s warm-up; "
        "medians over the runs. In every round each endpoint runs right after its floor; ratio = "
        "median over the rounds of (endpoint req/s ÷ floor req/s of that pair). Load generator, "
        "server and PostgreSQL share the cores.",
        "",
        "## HTTP",
        "",
        "| what | req/s | p50 ms | p99 ms | its floor, req/s | ratio | ÷ anonymous floor | queries "
        "| problems |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in results["http"]:
        problems = ""
        if not row["clean"]:
            problems = (
                f"errors {row['errors']}, unexpected status {row['unexpected_status']}, "
                f"pool wraps {row['pool_wraps']}, probe status {row['probe_status']}"
            )
        floor = ""
        if row["floor"]:
            kind = {"floor_auth": "token", "floor_html": "session"}.get(row["floor"], "anonymous")
            floor = f"{median(row['paired_floor_rps']):,.0f} ({kind})"
        ratio = "" if row["ratio"] is None else f"{row['ratio']:.2f}"
        anonymous = ""
        if row["floor"] == "floor_auth" and row.get("ratio_anonymous") is not None:
            anonymous = f"{row['ratio_anonymous']:.2f}"
        lines.append(
            f"| {row['label']} | {row['rps']:,.0f} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | "
            f"{floor} | {ratio} | {anonymous} | {row['queries']} | {problems} |"
        )
    if results.get("sessions"):
        from bench.sessions import markdown_lines as sessions_lines

        lines += sessions_lines(results["sessions"])
    if results.get("download"):
        from bench.download import markdown_lines

        lines += markdown_lines(results["download"])
    for key, title in (
        ("import", "import_course"),
        ("preview", "Import preview (admin)"),
        ("planner", "Reminder planner"),
    ):
        section = results.get(key)
        if not section:
            continue
        lines += ["", f"## {title}", "", "| what | measured | target | result |"]
        lines.append("| --- | ---: | --- | --- |")
        for item in section["rows"]:
            lines.append(
                f"| {item['what']} | {item['measured']} | {item['target']} | "
                f"{verdict(item['passed'])} |"
            )
        if section.get("note"):
            lines += ["", section["note"]]
    if results["not_measured_yet"]:
        lines += ["", "## Not measured (endpoint not in this checkout)", ""]
        lines += [f"- {item}" for item in results["not_measured_yet"]]
    data = results["dataset"]
    lines += [
        "",
        "## Data set",
        "",
        f"Built {data['built_at']} in {data['build_seconds'].get('total', 0):.0f} s with COPY "
        "(bench/build_data.py):",
        "",
        "| part | rows | seconds |",
        "| --- | ---: | ---: |",
    ]
    for part, rows in data["rows"].items():
        lines.append(f"| {part} | {rows:,} | {data['build_seconds'].get(part, 0):.1f} |")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Lernpfad benchmark (see bench/README.md).")
    parser.add_argument("--smoke", action="store_true", help="tiny data, one short round (CI)")
    parser.add_argument("--reuse", action="store_true", help="do not rebuild the database")
    parser.add_argument("--rounds", type=int, help="rounds per scenario (full: 5, smoke: 1)")
    parser.add_argument("--seconds", type=float, help="seconds per run (full: 10, smoke: 2)")
    parser.add_argument("--connections", type=int, default=4, help="wrk connections")
    parser.add_argument(
        "--workers", type=int, default=0, help="gunicorn workers (default: as in production)"
    )
    parser.add_argument(
        "--only",
        help="comma-separated lines to run: step, step_304, bundle, progress, due, review, "
        "exam_submit, web_step, web_module, web_dashboard, web_review, web_stats, web_exam, "
        "download, import, preview, planner, sessions (the floors always run)",
    )
    parser.add_argument("--out", type=Path, help="results folder")
    parser.add_argument("--drop", action="store_true", help="drop the databases afterwards")
    args = parser.parse_args(argv)

    database_url = bench_database_url(smoke=args.smoke)
    os.environ["BENCH_DATABASE_URL"] = database_url
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings"
    from bench import build_data  # sets Django up with bench.settings

    load = LoadSettings(
        rounds=args.rounds or (1 if args.smoke else 5),
        seconds=args.seconds or (2 if args.smoke else 10),
        connections=args.connections,
        threads=1,
        warmup_seconds=0 if args.smoke else 2,
        workers=args.workers,
    )
    out_dir = args.out or (SMOKE_DIR if args.smoke else RESULTS_DIR)
    out_dir.mkdir(parents=True, exist_ok=True)
    if shutil.which("wrk") is None:
        print("wrk is not installed (Debian: apt-get install wrk)", file=sys.stderr)
        return 2

    started = time.perf_counter()
    if args.reuse:
        manifest = build_data.manifest_load(urlparse(database_url).path.lstrip("/"))
        # Tables added since the build (e.g. the production cache's) must be there.
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
    else:
        manifest = build_data.build(scale=build_data.SMOKE if args.smoke else build_data.FULL)

    # The pages name their static files by the manifest collectstatic writes, as the image
    # does at build time (Dockerfile); without it every page would answer 500.
    from django.core.management import call_command as management_command

    management_command("collectstatic", interactive=False, verbosity=0)

    only = set(args.only.split(",")) if args.only else None
    scenarios, missing = scenarios_build(manifest, load=load, only=only)

    # Counted as in steady use: a token renewed a minute ago or more pays a renewal UPDATE on
    # its next request (knox), which belongs to no endpoint.
    build_data.tokens_renew(
        [manifest.heavy_learner[0], *(learner for learner, _ in manifest.learner_tokens)]
        + [int(learner) for learner in manifest.extra.get("exam_tokens", {})]
    )
    print("query counts (test client, same database):", flush=True)
    queries = {}
    for scenario in scenarios:
        queries[scenario.key] = queries_count(scenario)
        print(
            f"  {scenario.key:<16} status {queries[scenario.key][0]}  "
            f"queries {queries[scenario.key][1]}",
            flush=True,
        )
    download = None
    if only is None or "download" in only:
        from bench.download import download_measure

        download = download_measure(manifest.module, manifest.step_numbers)
        print(json.dumps(download["rows"], indent=1), flush=True)
    machine = machine_info()
    from django.db import connections

    connections.close_all()

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bench.settings"}
    # Other work on the machine skews absolute figures (and, less, ratios): record it.
    machine["load_average_before"] = round(os.getloadavg()[0], 2)
    print(f"HTTP: {load}", flush=True)
    with tempfile.TemporaryDirectory(prefix="lernpfad-bench-") as tmp:
        http = http_measure(scenarios, env=env, load=load, work_dir=Path(tmp))
        # Kept for a look after the run, outside the committed results.
        log_dir = BASE_DIR / "var" / "bench"
        log_dir.mkdir(parents=True, exist_ok=True)
        shutil.copy(Path(tmp) / "gunicorn.log", log_dir / "gunicorn.log")
    machine["load_average_after"] = round(os.getloadavg()[0], 2)

    probes = {}
    if only is None or "import" in only:
        probes["import"] = import_measure(env)
        print(json.dumps(probes["import"]["rows"], indent=1, ensure_ascii=False), flush=True)
    if only is None or "preview" in only:
        probes["preview"] = probe_run("preview", env)
        print(json.dumps(probes["preview"]["rows"], indent=1, ensure_ascii=False), flush=True)
    if only is None or "planner" in only:
        planner = probe_run("planner", env, "--smoke" if args.smoke else "--full")
        if planner.get("rows"):
            probes["planner"] = planner
            print(json.dumps(planner["rows"], indent=1, ensure_ascii=False), flush=True)
        else:
            missing.append(planner.get("missing", "reminder planner"))

    sessions = None
    if only is None or "sessions" in only:
        from bench.sessions import sessions_measure

        print("learner sessions (locust):", flush=True)
        sessions = sessions_measure(manifest, env=env, smoke=args.smoke)

    results = results_assemble(
        scenarios=scenarios,
        http=http,
        queries=queries,
        probes=probes,
        manifest=manifest,
        load=load,
        machine=machine,
        missing=missing,
        smoke=args.smoke,
    )
    if download is not None:
        results["download"] = download
    if sessions is not None:
        results["sessions"] = sessions
    results["seconds"] = round(time.perf_counter() - started, 1)
    (out_dir / "latest.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    (out_dir / "latest.md").write_text(markdown_render(results))
    print(f"wrote {out_dir / 'latest.md'} and latest.json in {results['seconds']:.0f} s")
    if args.drop:
        build_data.database_drop(database_url)
        build_data.database_drop(build_data.import_database_url())
        build_data.manifest_path(manifest.database).unlink(missing_ok=True)

    # The harness fails when it could not measure (errors, wrong statuses), not on missed targets.
    broken = [row["key"] for row in results["http"] if not row["clean"]]
    if sessions is not None and sessions["errors"]:
        broken.append("sessions")
    if broken:
        print(f"harness problems in: {', '.join(broken)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
