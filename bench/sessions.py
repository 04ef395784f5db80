"""Learners per server, measured: ``python -m bench.sessions [--smoke] [--stages 50,100,…]``.

Simulated learners (locust, from PyPI, on the same machine as the server and PostgreSQL), each
with its own browser session and knox token, study as bench/locustfile.py describes (step pages
in the browser, progress events, module progress, the due queue, reviews, sometimes the exam's
page) with think time. The number of learners is raised stage by stage until the p95 latency
passes 100 ms; each stage runs against the same gunicorn as production's (bench.run), its
statistics reset once every learner has arrived. Per stage: requests/s, p50/p95/p99, errors and
the CPU share (of the machine's cores, from /proc) of gunicorn, of PostgreSQL's backends of the
benchmark database and of locust itself.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]
FULL_STAGES = (50, 100, 200, 300, 400, 500, 600, 800, 1000, 1200, 1600, 2400, 3200)
SMOKE_STAGES = (5,)
P95_LIMIT_MS = 100
P99_LIMIT_MS = 250


def learners_prepare(manifest, count: int) -> list[dict]:
    """``count`` enrolled learners (not the ones the HTTP lines rotate through), each with a new
    token, a new session and the ids of their review cards."""
    from bench.build_data import sessions_create, tokens_copy
    from courses.models import Module
    from progress.models import Enrollment
    from reviews.models import ReviewCard

    module_id = Module.objects.get(slug=manifest.module).id
    rotating = {learner for learner, _ in manifest.learner_tokens}
    ids = list(
        Enrollment.objects.filter(module_id=module_id)
        .exclude(learner_id__in=rotating)
        .order_by("learner_id")
        .values_list("learner_id", flat=True)[:count]
    )
    if len(ids) < count:
        raise SystemExit(f"the data set has {len(ids)} enrolled learners, the stages need {count}")
    from django.utils import timezone

    tokens = tokens_copy(ids, now=timezone.now())
    sessions = sessions_create(ids)
    cards: dict[int, list[int]] = {i: [] for i in ids}
    for learner, card in ReviewCard.objects.filter(learner_id__in=ids).values_list(
        "learner_id", "id"
    ):
        cards[learner].append(card)
    return [
        {"id": i, "token": tokens[i], "session": sessions[i], "cards": cards[i]}
        for i in ids
        if cards[i]
    ]


# --- CPU from /proc ---------------------------------------------------------------------------


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # utime and stime (fields 14 and 15 of stat; here 11 and 12 after the name).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _descendants(root: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int(
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
                )
            except (OSError, IndexError, ValueError):
                continue
    found, frontier = {root}, [root]
    while frontier:
        current = frontier.pop()
        for pid, parent in parents.items():
            if parent == current and pid not in found:
                found.add(pid)
                frontier.append(pid)
    return found


def _database_backends(database: str) -> set[int]:
    import psycopg

    from bench.build_data import _server_url
    from bench.settings import BENCH_DATABASE_URL

    server_url, _name = _server_url(BENCH_DATABASE_URL)
    with psycopg.connect(server_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [database],
        ).fetchall()
    return {row[0] for row in rows}


class CpuMeter:
    """CPU seconds of process groups between start() and stop(), as a share of all cores."""

    def __init__(self, groups):
        self.groups = groups  # name -> callable returning the pids now

    def start(self) -> None:
        self.started = time.monotonic()
        self.before = {
            name: {pid: _cpu_seconds(pid) for pid in pids()} for name, pids in self.groups.items()
        }

    def stop(self) -> dict[str, float]:
        wall = time.monotonic() - self.started
        cores = os.cpu_count() or 1
        shares = {}
        for name, pids in self.groups.items():
            before = self.before[name]
            used = sum(_cpu_seconds(pid) - before.get(pid, 0.0) for pid in pids())
            shares[name] = round(max(used, 0.0) / (wall * cores), 3)
        return shares


# --- one stage ----------------------------------------------------------------------------------


def stage_run(
    *, base: str, users: int, seconds: float, env: dict[str, str], tmp: Path, meter: CpuMeter
) -> dict:
    prefix = tmp / f"stage-{users}"
    spawn_rate = max(users / 2, 1)
    command = [
        str(Path(sys.executable).with_name("locust")),
        "-f",
        str(BASE_DIR / "bench" / "locustfile.py"),
        "--headless",
        "--host",
        base,
        "-u",
        str(users),
        "-r",
        str(spawn_rate),
        "-t",
        f"{int(seconds + 3)}s",
        "--reset-stats",
        "--csv",
        str(prefix),
        "--only-summary",
        "--loglevel",
        "WARNING",
        "--stop-timeout",
        "15",
    ]
    process = subprocess.Popen(
        command, cwd=BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    locust_pid = process.pid
    meter.groups["locust"] = lambda: _descendants(locust_pid)
    time.sleep(2.5)  # the learners arrive (spawn rate: half of them a second)
    meter.start()
    time.sleep(seconds)
    shares = meter.stop()
    output, _ = process.communicate(timeout=seconds + 120)
    rows = list(csv.DictReader(open(f"{prefix}_stats.csv")))  # noqa: SIM115
    total = next(row for row in rows if row["Name"] == "Aggregated")
    by_name = {
        row["Name"]: {
            "requests": int(row["Request Count"]),
            "failures": int(row["Failure Count"]),
            "p50_ms": float(row["50%"]),
            "p95_ms": float(row["95%"]),
            "p99_ms": float(row["99%"]),
        }
        for row in rows
        if row["Name"] != "Aggregated"
    }
    failures_file = Path(f"{prefix}_failures.csv")
    failures = list(csv.DictReader(open(failures_file))) if failures_file.exists() else []  # noqa: SIM115
    return {
        "learners": users,
        "requests": int(total["Request Count"]),
        "rps": float(total["Requests/s"]),
        "failures": int(total["Failure Count"]),
        "p50_ms": float(total["50%"]),
        "p95_ms": float(total["95%"]),
        "p99_ms": float(total["99%"]),
        "cpu_share": shares,
        "by_request": by_name,
        "failure_samples": failures[:5],
        "locust_exit": process.returncode,
        "locust_tail": output[-1500:] if process.returncode not in (0, 1) else "",
    }


def sessions_measure(
    manifest, *, env: dict[str, str], smoke: bool, stages=None, seconds=None
) -> dict:
    """Ramp the learners stage by stage until p95 passes 100 ms; returns every stage."""
    from django.conf import settings
    from django.db import connections

    from bench.run import gunicorn_running, gunicorn_workers
    from bench.scenarios import LoadSettings

    stages = list(stages or (SMOKE_STAGES if smoke else FULL_STAGES))
    seconds = seconds or (4 if smoke else 25)
    think_scale = 0.05 if smoke else 1.0
    learners = learners_prepare(manifest, max(stages))
    connections.close_all()
    load = LoadSettings(rounds=1, seconds=seconds, connections=0, threads=1, warmup_seconds=0)
    results: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="lernpfad-sessions-") as tmp_name:
        tmp = Path(tmp_name)
        data_file = tmp / "learners.json"
        data_file.write_text(
            json.dumps(
                {
                    "module": manifest.module,
                    "step_numbers": manifest.step_numbers,
                    "session_cookie": settings.SESSION_COOKIE_NAME,
                    "run_tag": f"s{int(time.time())}",
                    "learners": learners,
                }
            )
        )
        locust_env = {
            **env,
            "BENCH_SESSIONS_FILE": str(data_file),
            "BENCH_THINK_SCALE": str(think_scale),
        }
        pids: list[int] = []
        with gunicorn_running(
            env=env,
            log_path=tmp / "gunicorn.log",
            workers=gunicorn_workers(load),
            pid_out=pids,
        ) as base:
            meter = CpuMeter(
                {
                    "gunicorn": lambda: _descendants(pids[0]),
                    "postgresql": lambda: _database_backends(manifest.database),
                }
            )
            # Warm-up (not recorded): the workers' first requests compile templates and fill
            # the per-process caches.
            stage_run(
                base=base,
                users=stages[0],
                seconds=min(seconds, 5),
                env=locust_env,
                tmp=tmp,
                meter=meter,
            )
            for users in stages:
                result = stage_run(
                    base=base, users=users, seconds=seconds, env=locust_env, tmp=tmp, meter=meter
                )
                result["load_average"] = round(os.getloadavg()[0], 2)
                results.append(result)
                print(
                    f"  {users:5d} learners  {result['rps']:7.1f} req/s  "
                    f"p50 {result['p50_ms']:5.0f}  p95 {result['p95_ms']:5.0f}  "
                    f"p99 {result['p99_ms']:5.0f} ms  failures {result['failures']}  "
                    f"CPU {result['cpu_share']}",
                    flush=True,
                )
                if result["p95_ms"] >= P95_LIMIT_MS:
                    break
    at_p95 = [r["learners"] for r in results if r["p95_ms"] < P95_LIMIT_MS]
    at_p99 = [r["learners"] for r in results if r["p99_ms"] < P99_LIMIT_MS]
    return {
        "stages": results,
        "learners_p95_under_100ms": max(at_p95) if at_p95 else 0,
        "learners_p99_under_250ms": max(at_p99) if at_p99 else 0,
        "errors": sum(r["failures"] for r in results),
        "seconds_per_stage": seconds,
        "think_scale": think_scale,
        "ramp_ended": bool(results) and results[-1]["p95_ms"] >= P95_LIMIT_MS,
        "load_generator": "locust (PyPI), FastHttpUser, one process on the same machine",
    }


def markdown_lines(section: dict) -> list[str]:
    lines = [
        "",
        "## Learners per server (study sessions)",
        "",
        "Simulated learners (bench/locustfile.py; load generator: locust from PyPI, one process "
        "on the same 2 cores as gunicorn and PostgreSQL), each with its own session cookie and "
        "knox token, about eight requests a minute with think time "
        f"(× {section['think_scale']:g}): two step pages in the browser, a progress event, the "
        "module progress, the due queue, three reviews, one minute in ten the exam's page. "
        f"Stages of {section['seconds_per_stage']:g} s after every learner arrived, raised "
        "until p95 passed 100 ms. CPU share: of both cores, from /proc.",
        "",
        f"**{section['learners_p95_under_100ms']:,} learners at once with p95 < 100 ms; "
        f"{section['learners_p99_under_250ms']:,} with p99 < 250 ms; errors "
        f"{section['errors']}.**"
        + ("" if section["ramp_ended"] else " (the last stage still had p95 < 100 ms)"),
        "",
        "| learners | req/s | p50 ms | p95 ms | p99 ms | failures | gunicorn CPU | PostgreSQL CPU "
        "| locust CPU | load average |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for stage in section["stages"]:
        cpu = stage["cpu_share"]
        lines.append(
            f"| {stage['learners']:,} | {stage['rps']:.1f} | {stage['p50_ms']:.0f} | "
            f"{stage['p95_ms']:.0f} | {stage['p99_ms']:.0f} | {stage['failures']} | "
            f"{cpu.get('gunicorn', 0):.0%} | {cpu.get('postgresql', 0):.0%} | "
            f"{cpu.get('locust', 0):.0%} | {stage['load_average']} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="the smoke data set, short stages")
    parser.add_argument("--stages", help="learners per stage, e.g. 50,100,200")
    parser.add_argument("--seconds", type=float, help="seconds per stage (full: 25, smoke: 4)")
    args = parser.parse_args(argv)

    from bench.run import bench_database_url

    os.environ["BENCH_DATABASE_URL"] = bench_database_url(smoke=args.smoke)
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings"
    from urllib.parse import urlparse

    from bench import build_data  # sets Django up

    manifest = build_data.manifest_load(urlparse(os.environ["BENCH_DATABASE_URL"]).path.lstrip("/"))
    stages = [int(s) for s in args.stages.split(",")] if args.stages else None
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bench.settings"}
    section = sessions_measure(
        manifest, env=env, smoke=args.smoke, stages=stages, seconds=args.seconds
    )
    print("\n".join(markdown_lines(section)))
    return 0 if section["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
