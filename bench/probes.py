"""Measurements that run in their own process: ``python -m bench.probes import|planner``.

Each prints one line ``PROBE_RESULT {json}`` with ``rows`` for the report table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import django
from django.db import connection, transaction


def rows_written_in_transaction() -> int:
    """Rows inserted, updated or deleted so far by this transaction (PostgreSQL's own count)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COALESCE(SUM(n_tup_ins + n_tup_upd + n_tup_del), 0) "
            "FROM pg_stat_xact_user_tables"
        )
        return int(cursor.fetchone()[0])


class _Rollback(Exception):
    pass


def import_probe(rounds: int = 3) -> dict:
    """First import into an empty database and re-import of the same documents.

    Runs in the empty migrated copy (BENCH_PROBE_DATABASE_URL), each round inside a transaction
    that is rolled back, so the copy stays empty; the re-import is measured again on the full
    benchmark database by the caller's second call (``--database full``).
    """
    from courses.services.importing import course_import

    first, again, first_rows, again_rows, reported = [], [], [], [], []
    for _ in range(rounds):
        try:
            with transaction.atomic():
                before = rows_written_in_transaction()
                started = time.perf_counter()
                course_import()
                first.append(time.perf_counter() - started)
                middle = rows_written_in_transaction()
                started = time.perf_counter()
                report = course_import()
                again.append(time.perf_counter() - started)
                first_rows.append(middle - before)
                again_rows.append(rows_written_in_transaction() - middle)
                reported.append(report.rows_written)
                raise _Rollback
        except _Rollback:
            pass
    return {
        "first_seconds": statistics.median(first),
        "first_rows": first_rows[0],
        "again_seconds": statistics.median(again),
        "again_rows": max(again_rows),
        "again_rows_reported": max(reported),
    }


def reimport_full_probe() -> dict:
    """Re-import into the full benchmark database (10,000 learners' progress attached)."""
    from courses.services.importing import course_import

    with transaction.atomic():
        before = rows_written_in_transaction()
        started = time.perf_counter()
        report = course_import()
        seconds = time.perf_counter() - started
        written = rows_written_in_transaction() - before
    return {"seconds": seconds, "rows": written, "rows_reported": report.rows_written}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("name", choices=["import", "reimport", "planner", "preview"])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--full", action="store_true")
    args = parser.parse_args()
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings"
    if os.environ.get("BENCH_PROBE_DATABASE_URL"):
        os.environ["BENCH_DATABASE_URL"] = os.environ["BENCH_PROBE_DATABASE_URL"]
    sink = None
    if args.name == "planner":
        from bench import planner_probe

        # The SMTP sink's address goes into EMAIL_URL, which the settings read at start-up.
        sink, handler = planner_probe.smtp_sink_start()
    django.setup()
    if args.name == "import":
        result = import_probe()
    elif args.name == "reimport":
        result = reimport_full_probe()
    elif args.name == "preview":
        from bench import preview_probe

        result = preview_probe.run()
    else:
        result = planner_probe.run(smoke=args.smoke, handler=handler)
        sink.stop()
    sys.stdout.write("PROBE_RESULT " + json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
