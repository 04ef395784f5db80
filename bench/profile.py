"""Profile one line of the benchmark in-process: ``python -m bench.profile due [-n 200] [--cpu]``.

``--plain`` times without a profiler instead: CPU per request over ``--runs`` runs of ``-n``
requests each after 20 warm-up ones, and their median (the sweeps in bench/results).

Sends the line's own requests (same tokens, cards, attempts) through Django's test client against
the benchmark database (built by ``bench.run`` or ``bench.build_data``) and prints where the time
goes: pyinstrument's call tree (wall time, database waits included), or with ``--cpu`` cProfile
with a CPU clock (Python work only, sorted by cumulative time). Consuming lines (review,
exam_submit) use rows of the first round; run ``bench.run`` again afterwards for fresh ones.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("line", help="step, step_304, progress, due, review, exam_submit, floor…")
    parser.add_argument("-n", type=int, default=200, help="requests to profile")
    parser.add_argument("--cpu", action="store_true", help="cProfile on a CPU clock")
    parser.add_argument("--smoke", action="store_true", help="profile the smoke database")
    parser.add_argument("--plain", action="store_true", help="time without a profiler")
    parser.add_argument("--runs", type=int, default=3, help="with --plain: runs of -n requests")
    args = parser.parse_args()

    from bench.run import bench_database_url

    os.environ["BENCH_DATABASE_URL"] = bench_database_url(smoke=args.smoke)
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings"
    import django

    django.setup()
    from urllib.parse import urlparse

    from django.test import Client

    from bench.build_data import manifest_load
    from bench.run import scenarios_build
    from bench.scenarios import LoadSettings

    manifest = manifest_load(urlparse(os.environ["BENCH_DATABASE_URL"]).path.lstrip("/"))
    load = LoadSettings(rounds=1, seconds=1, connections=1, threads=1, warmup_seconds=0)
    scenarios, _missing = scenarios_build(manifest, load=load, only={args.line})
    scenario = next((s for s in scenarios if s.key == args.line), None)
    if scenario is None:
        raise SystemExit(f"no line '{args.line}' in this checkout")
    if scenario.prepare is not None:
        # As ``bench.run`` before each round (the exam line renews its learners' tokens there):
        # without it every request would pay work no request of the run pays.
        scenario.prepare(0)
    requests = scenario.requests(0)
    client = Client(HTTP_HOST="127.0.0.1")

    def send(index: int) -> None:
        request = requests[index % len(requests)]
        response = client.generic(
            request.method,
            request.path,
            data=request.body or "",
            content_type="application/json",
            headers=request.headers,
        )
        if response.status_code != scenario.expect:
            raise SystemExit(f"{request.path}: {response.status_code} {response.content[:300]!r}")

    if args.plain:
        for index in range(20):
            send(index)
        runs = []
        for run in range(args.runs):
            cpu_started = time.process_time()
            for index in range(args.n):
                send(20 + run * args.n + index)
            runs.append((time.process_time() - cpu_started) / args.n * 1000)
        shown = ", ".join(f"{ms:.2f}" for ms in runs)
        print(f"{args.line}: {statistics.median(runs):.2f} ms CPU per request (runs: {shown})")
        return
    send(0)  # warm-up
    started, cpu_started = time.perf_counter(), time.process_time()
    if args.cpu:
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        for index in range(1, args.n + 1):
            send(index)
        profiler.disable()
        out = io.StringIO()
        order = os.environ.get("BENCH_PROFILE_SORT", "cumulative")  # or tottime: own time
        pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(60)
        report = out.getvalue()
    else:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.0005)
        profiler.start()
        for index in range(1, args.n + 1):
            send(index)
        profiler.stop()
        report = profiler.output_text(unicode=True, color=False)
    wall = (time.perf_counter() - started) / args.n * 1000
    cpu = (time.process_time() - cpu_started) / args.n * 1000
    print(report)
    print(f"{args.line}: {args.n} requests, {wall:.2f} ms wall and {cpu:.2f} ms CPU per request")


if __name__ == "__main__":
    main()
