"""The courses app's one plain-SQL statement: the step ETag read, every step request's first
read and a 304's only one."""

from __future__ import annotations

from courses.models import STEP_ACTIVE
from lms.sql import dict_rows

# Not ORM: building this query cost about five times the CPU of running it (bench/README.md,
# step lines), on the line that answers most step requests.
_STEP_HASHES = (
    "SELECT s.content_hash AS step_hash, c.content_hash AS card_hash "
    "FROM courses_step s JOIN courses_module m ON m.id = s.module_id "
    "LEFT JOIN courses_termcard c ON c.step_id = s.id "
    "WHERE m.slug = %s AND s.number = %s AND s.status = %s"
)


def step_hashes(*, module_slug: str, number: int) -> dict | None:
    """The content hashes of an active step (``step_hash``) and its term card (``card_hash``,
    None without one); None when there is no such step."""
    rows = dict_rows(_STEP_HASHES, [module_slug, number, STEP_ACTIVE])
    return rows[0] if rows else None
