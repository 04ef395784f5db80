"""Two checkouts side by side: ``python -m bench.compare --before DIR --after DIR``.

Each checkout measures itself with its own bench code (``bench.run``, ``bench.sessions``), run
from its own folder against its own PostgreSQL database and port range. The two take turns,
round after round (before, after; then after, before, so neither always runs second on a machine
whose load drifts): the study-session capacity (locust, bench/locustfile.py) and the step 304,
due queue and review lines of ``make bench``. Writes compare.md and compare.json (medians over
the rounds, after ÷ before, every round's figures, the command, the machine).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[1]
SIDES = ("before", "after")
LINES = ("step_304", "due", "review")
# ~10 % apart from 400 up: the capacity's resolution is finer than the 15 % it is judged by.
STAGES = (100, 200, 300, 400, 450, 500, 550, 600, 660, 730, 800, 880, 970, 1070, 1180, 1300)
STAGES += (1430, 1570, 1730, 1900, 2100, 2300, 2500, 2800, 3100)
P95_LIMIT_MS = 100
CAPACITY_KEPT = 0.85  # the floor for after ÷ before learners
LINE_KEPT = 0.8  # the lines within 20 % of before

# Runs in the checkout's folder with its own code: its bench.sessions, its locustfile.
SESSIONS_DRIVER = """
import json, os, sys
from pathlib import Path
from urllib.parse import urlparse
from bench import build_data
from bench.sessions import sessions_measure
import lms
assert Path(lms.__file__).resolve().is_relative_to(Path.cwd().resolve()), lms.__file__
manifest = build_data.manifest_load(urlparse(os.environ["BENCH_DATABASE_URL"]).path.lstrip("/"))
section = sessions_measure(manifest, env=dict(os.environ), **json.loads(sys.argv[1]))
print("COMPARE_SESSIONS " + json.dumps(section))
"""


def side_env(side: str, checkout: Path, *, smoke: bool, ports: str, work: Path) -> dict[str, str]:
    database = f"lernpfad_compare_{side}_bench" + ("_smoke" if smoke else "")
    return {
        **os.environ,
        # The checkout's own packages first (the venv's editable install points elsewhere).
        "PYTHONPATH": str(checkout),
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "BENCH_DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{database}",
        "LERNPFAD_TEST_PORTS": ports,
        # collectstatic's output (bench.run runs it), outside the checkout.
        "LERNPFAD_STATIC_ROOT": str(work / f"static-{side}"),
    }


def run_in(checkout: Path, env: dict[str, str], side: str, *args: str) -> str:
    """``python ARGS`` in the checkout's folder; echoes and returns its output."""
    process = subprocess.Popen(
        [sys.executable, *args],
        cwd=checkout,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = []
    for line in process.stdout:
        output.append(line)
        if not line.startswith("COMPARE_SESSIONS "):
            print(f"[{side}] {line}", end="", flush=True)
    if process.wait():
        print(f"[{side}] exit status {process.returncode}", flush=True)
    return "".join(output)


def capacity(stages: list[dict]) -> tuple[int, float]:
    """Learners (and req/s) of the last stage with p95 < 100 ms and no failures, in order."""
    learners, rps = 0, 0.0
    for stage in stages:
        if stage["p95_ms"] >= P95_LIMIT_MS or stage["failures"]:
            break
        learners, rps = stage["learners"], stage["rps"]
    return learners, rps


def round_measure(args, side: str, checkout: Path, env: dict[str, str], out: Path) -> dict:
    """One turn of one checkout: the wrk lines (bench.run), then the study sessions."""
    lines_dir = out / side
    (lines_dir / "latest.json").unlink(missing_ok=True)  # a failed run must not read an old one
    command = ["-m", "bench.run", "--reuse", "--only", ",".join(args.lines), "--rounds", "1"]
    command += ["--seconds", str(args.seconds), "--out", str(lines_dir)]
    run_in(checkout, env, side, *command, *(["--smoke"] if args.smoke else []))
    if not (lines_dir / "latest.json").exists():
        raise SystemExit(f"{side}: bench.run wrote no results (its output is above)")
    results = json.loads((lines_dir / "latest.json").read_text())
    rows = {row["key"]: row for row in results["http"]}
    settings = {"smoke": args.smoke, "stages": args.stages, "seconds": args.stage_seconds}
    output = run_in(checkout, env, side, "-c", SESSIONS_DRIVER, json.dumps(settings))
    marker = next(
        (line for line in output.splitlines() if line.startswith("COMPARE_SESSIONS ")), ""
    )
    if not marker:
        raise SystemExit(f"{side}: bench.sessions gave no result (its output is above)")
    sessions = json.loads(marker.removeprefix("COMPARE_SESSIONS "))
    learners, rps = capacity(sessions["stages"])
    return {
        "side": side,
        "machine": results["machine"],
        "learners": learners,
        "learners_rps": rps,
        "session_errors": sessions["errors"],
        "stages": sessions["stages"],
        "lines": {
            key: {f: rows[key][f] for f in ("rps", "ratio", "p99_ms", "clean", "paired_floor_rps")}
            for key in args.lines
        },
    }


def git_describe(checkout: Path) -> str:
    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(checkout), *args], capture_output=True, text=True
        ).stdout.strip()

    dirty = " (with uncommitted changes)" if git("status", "--porcelain", "--", ".") else ""
    return f"{checkout} at {git('rev-parse', '--short', 'HEAD')}{dirty}"


def summary_rows(rounds: list[dict], lines: list[str]) -> list[dict]:
    def figure(side: str, pick) -> float:
        return statistics.median(pick(r) for r in rounds if r["side"] == side)

    def row(what: str, pick, kept: float | None, digits: int) -> dict:
        before, after = figure("before", pick), figure("after", pick)
        share = after / before if before else None
        passed = None if kept is None else share is not None and share >= kept
        return {
            "what": what,
            "before": round(before, digits),
            "after": round(after, digits),
            "share": share,
            "kept": kept,
            "passed": passed,
        }

    floors = {"step_304": "anonymous floor", "due": "token floor", "review": "token floor"}
    result = [
        row(
            "learners at once, p95 < 100 ms, no failures", lambda r: r["learners"], CAPACITY_KEPT, 1
        ),
        row("req/s at that number of learners", lambda r: r["learners_rps"], None, 1),
    ]
    for key in lines:
        result += [
            row(f"{key}: req/s", lambda r, k=key: r["lines"][k]["rps"], LINE_KEPT, 0),
            row(
                f"{key}: ÷ {floors.get(key, 'floor')}",
                lambda r, k=key: r["lines"][k]["ratio"],
                LINE_KEPT,
                2,
            ),
            row(f"{key}: p99 ms", lambda r, k=key: r["lines"][k]["p99_ms"], None, 1),
        ]
    return result


def markdown(report: dict) -> str:
    m = report["machine"]
    verdicts = {True: "pass", False: "**MISS**", None: ""}
    lines = [
        "# Before and after, side by side",
        "",
        f"{report['mode']} run, {report['date']}, {report['minutes']:.0f} min. Command "
        f"(from {report['cwd']}):",
        "",
        f"    {report['command']}",
        "",
        f"- before: {report['before']}",
        f"- after: {report['after']}",
        f"- machine: {m['cores']} cores ({m['cpu']}), {m['memory_gb']} GB, Python {m['python']}, "
        f"PostgreSQL {m['postgresql']}, {m['wrk']}; one-minute load average "
        f"{report['load_average'][0]} at the start, {report['load_average'][1]} at the end",
        "",
        f"Rounds: {report['rounds']}, the two checkouts taking turns (before first in odd rounds, "
        "after first in even ones), each with its own bench code, database and gunicorn: "
        f"bench.run --only {','.join(report['lines'])} (1 round of {report['seconds']:g} s per "
        "line, each right after its floor), then bench.sessions (locust study sessions, stages "
        f"{report['stages'] or 'of the checkout'}, raised until p95 ≥ 100 ms). Figures are "
        f"medians over the rounds. Errors in the study sessions, all rounds: before "
        f"{report['session_errors']['before']}, after {report['session_errors']['after']}.",
        "",
        "| what | before | after | after ÷ before | kept at least | result |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in report["summary"]:
        share = "" if row["share"] is None else f"{row['share']:.2f}"
        kept = "" if row["kept"] is None else f"{row['kept']:g}"
        lines.append(
            f"| {row['what']} | {row['before']:,g} | {row['after']:,g} | {share} | {kept} | "
            f"{verdicts[row['passed']]} |"
        )
    keys = report["lines"]
    lines += [
        "",
        "Every round (req/s and ÷ floor per line; capacity: learners, req/s):",
        "",
        "| round | side | learners | req/s | " + " | ".join(keys) + " | clean |",
        "| ---: | --- | ---: | ---: | " + " | ".join("---:" for _ in keys) + " | --- |",
    ]
    for index, r in enumerate(report["runs"]):
        cells = [f"{r['lines'][k]['rps']:,.0f} ({r['lines'][k]['ratio']:.2f})" for k in keys]
        clean = all(r["lines"][k]["clean"] for k in keys) and not r["session_errors"]
        lines.append(
            f"| {index // 2 + 1} | {r['side']} | {r['learners']:,} | {r['learners_rps']:.1f} | "
            + " | ".join(cells)
            + f" | {'yes' if clean else '**no**'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="checkout of today's main")
    parser.add_argument("--after", type=Path, required=True, help="checkout of the new code")
    parser.add_argument("--rounds", type=int, default=3, help="turns of each checkout")
    parser.add_argument("--smoke", action="store_true", help="tiny data, short stages (a try)")
    parser.add_argument("--reuse", action="store_true", help="keep the databases a build left")
    parser.add_argument("--seconds", type=float, help="seconds per wrk run (full 10, smoke 1)")
    parser.add_argument("--stages", help="learners per stage (default: 100 … 3100, ~10 %% apart)")
    parser.add_argument("--stage-seconds", type=float, help="seconds per stage (full 25, smoke 4)")
    parser.add_argument("--lines", default=",".join(LINES), help="bench.run lines to compare")
    parser.add_argument("--ports", default="18700-18799", help="two port ranges' span, split")
    parser.add_argument("--out", type=Path, help="results folder (full: bench/results)")
    args = parser.parse_args(argv)
    args.lines = args.lines.split(",")
    args.seconds = args.seconds or (1 if args.smoke else 10)
    if args.stages:
        args.stages = [int(s) for s in args.stages.split(",")]
    elif not args.smoke:
        args.stages = list(STAGES)
    out = args.out or (
        BASE_DIR / "var" / "bench" / "compare" if args.smoke else BASE_DIR / "bench" / "results"
    )
    work = BASE_DIR / "var" / "bench" / "compare"
    low, high = (int(p) for p in args.ports.split("-"))
    middle = (low + high) // 2
    checkouts = {"before": args.before.resolve(), "after": args.after.resolve()}
    envs = {
        "before": side_env(
            "before", checkouts["before"], smoke=args.smoke, ports=f"{low}-{middle}", work=work
        ),
        "after": side_env(
            "after", checkouts["after"], smoke=args.smoke, ports=f"{middle + 1}-{high}", work=work
        ),
    }
    started, load_start = time.monotonic(), round(os.getloadavg()[0], 2)
    if not args.reuse:
        for side in SIDES:
            build = ["-m", "bench.build_data", *(["--smoke"] if args.smoke else [])]
            run_in(checkouts[side], envs[side], side, *build)
    runs = []
    for index in range(args.rounds):
        order = SIDES if index % 2 == 0 else SIDES[::-1]
        for side in order:
            print(f"round {index + 1}/{args.rounds}: {side}", flush=True)
            runs.append(round_measure(args, side, checkouts[side], envs[side], work / f"{index}"))
    report = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "mode": "smoke" if args.smoke else "full",
        "minutes": (time.monotonic() - started) / 60,
        "command": shlex.join(
            [Path(sys.executable).name, "-m", "bench.compare", *(argv or sys.argv[1:])]
        ),
        "cwd": str(Path.cwd()),
        "before": git_describe(checkouts["before"]),
        "after": git_describe(checkouts["after"]),
        "machine": runs[0]["machine"],
        "load_average": [load_start, round(os.getloadavg()[0], 2)],
        "rounds": args.rounds,
        "lines": args.lines,
        "seconds": args.seconds,
        "stages": args.stages,
        "session_errors": {
            s: sum(r["session_errors"] for r in runs if r["side"] == s) for s in SIDES
        },
        "summary": summary_rows(runs, args.lines),
        "runs": runs,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    (out / "compare.md").write_text(markdown(report))
    print(markdown(report))
    print(f"wrote {out / 'compare.md'} and compare.json")
    clean = all(line["clean"] for r in runs for line in r["lines"].values())
    return 0 if clean and not any(report["session_errors"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
