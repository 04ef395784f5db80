"""The pure completion rule (progress.completion_rules): no database, no Django."""

from __future__ import annotations

import datetime
import subprocess
import sys
from pathlib import Path

from progress.completion_rules import (
    RULE_FREE,
    RULE_SECTIONS,
    RULE_SECTIONS_QUICK_CHECK,
    CompletionRequirement,
    MissingEvidence,
    completion_missing,
    reading_seconds,
    time_spent_seconds,
)

T0 = datetime.datetime(2026, 3, 1, 9, 0, tzinfo=datetime.UTC)
KINDS = ("verstehen", "anwenden", "pruefen")


def requirement(
    rule=RULE_SECTIONS_QUICK_CHECK, share=30, chars=7 * 180 * 10
) -> CompletionRequirement:
    # 7 * 180 * 10 characters: ten minutes of reading.
    return CompletionRequirement.for_step(
        rule=rule,
        reading_time_share=share,
        section_kinds=KINDS,
        quick_check_ids=(11, 12),
        body_chars=chars,
    )


def test_reading_time_and_its_share():
    assert reading_seconds(7 * 180) == 60
    assert reading_seconds(1) == 1 and reading_seconds(0) == 0
    assert requirement(share=30).min_seconds == 180
    assert requirement(share=0).min_seconds == 0
    # Out of range shares are clamped, an unknown rule is the strictest.
    assert requirement(share=250).min_seconds == 600
    assert requirement(rule="whatever").rule == RULE_SECTIONS_QUICK_CHECK


def test_nothing_done_lists_every_missing_part():
    missing = completion_missing(
        requirement(), sections_viewed=(), quick_checks_answered=(), first_opened_at=None, at=T0
    )
    assert missing == MissingEvidence(
        sections=KINDS, quick_check_ids=(11, 12), seconds_left=180, min_seconds=180
    )
    assert missing


def test_everything_done_in_time_is_nothing_missing():
    missing = completion_missing(
        requirement(),
        sections_viewed=["pruefen", "verstehen", "anwenden", "extra"],
        quick_checks_answered=[12, 11],
        first_opened_at=T0,
        at=T0 + datetime.timedelta(seconds=180),
    )
    assert not missing and missing.min_seconds == 180


def test_time_counts_from_the_first_event_and_a_second_short_is_missing():
    missing = completion_missing(
        requirement(),
        sections_viewed=KINDS,
        quick_checks_answered=(11, 12),
        first_opened_at=T0,
        at=T0 + datetime.timedelta(seconds=179),
    )
    assert missing == MissingEvidence(seconds_left=1, min_seconds=180)
    # A clock that runs backwards (an offline completion before the first view) spent nothing.
    assert time_spent_seconds(first_opened_at=T0, at=T0 - datetime.timedelta(hours=1)) == 0


def test_the_sections_rule_ignores_the_quick_checks_and_free_asks_nothing():
    sections = completion_missing(
        requirement(rule=RULE_SECTIONS),
        sections_viewed=KINDS[:2],
        quick_checks_answered=(),
        first_opened_at=T0,
        at=T0 + datetime.timedelta(hours=1),
    )
    assert sections == MissingEvidence(sections=("pruefen",), min_seconds=180)
    free = completion_missing(
        requirement(rule=RULE_FREE),
        sections_viewed=(),
        quick_checks_answered=(),
        first_opened_at=None,
        at=T0,
    )
    assert not free


def test_the_rule_module_imports_no_django():
    code = (
        "import sys; import progress.completion_rules; "
        "sys.exit(any(m == 'django' or m.startswith('django.') for m in sys.modules))"
    )
    root = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", code], cwd=root, check=False).returncode == 0
