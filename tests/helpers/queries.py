"""The one check of a page's or endpoint's queries (STYLE.md "Query counts stay constant").

A count that grows with the learner's steps, cards or reviews is a query in a loop; a count over
the budget is a page that does too much. Neither pins an exact number, so an honest refactor that
saves a query does not have to touch the test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext


def queries_of(run: Callable[[], Any]) -> list[str]:
    """The SQL statements ``run()`` sends, in order."""
    with CaptureQueriesContext(connection) as context:
        run()
    return [query["sql"] for query in context.captured_queries]


def assert_queries_constant(run: Callable[[], Any], *, grow: Callable[[], Any], budget: int) -> int:
    """``run()`` sends as many queries before ``grow()`` adds rows as after it, and at most
    ``budget``. Returns the count (for a test that compares two lines)."""
    few = queries_of(run)
    grow()
    many = queries_of(run)
    assert len(many) == len(few), _listing(
        f"{len(few)} queries with few rows, {len(many)} with many", many
    )
    assert len(many) <= budget, _listing(f"{len(many)} queries, budget {budget}", many)
    return len(many)


def assert_queries_within(run: Callable[[], Any], *, budget: int) -> int:
    """``run()`` sends at most ``budget`` queries (where there is nothing to grow: a write, a
    cold start). Returns the count."""
    sent = queries_of(run)
    assert len(sent) <= budget, _listing(f"{len(sent)} queries, budget {budget}", sent)
    return len(sent)


def _listing(headline: str, statements: list[str]) -> str:
    return "\n".join([headline, *(f"  {index}. {sql}" for index, sql in enumerate(statements, 1))])
