"""Mutated GIFT files against the reader: every mutant either reads into items the bank accepts
(and that the writer writes back to the same items) or fails with a ``GiftError`` naming lines
of the file. Nothing else may escape ``gift_parse`` (no IndexError, ValueError, …): the admin
page shows the error, never a 500. Examples: ``LERNPFAD_FUZZ_EXAMPLES`` (default 60)."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizzes.answers import answer_key_errors
from quizzes.gift import GiftError, gift_parse, gift_write
from quizzes.models import exam_item_shape_errors

SAMPLE = (Path(__file__).parent / "data" / "moodle-sample.gift").read_text(encoding="utf-8")
LINES = SAMPLE.split("\n")
EXAMPLES = int(os.environ.get("LERNPFAD_FUZZ_EXAMPLES", "60"))
DERANDOMIZE = os.environ.get("LERNPFAD_FUZZ_SEED", "8") != "random"
# What GIFT gives meaning to, and what else might trip a reader.
SPECIALS = "{}~=#:%\\->.[]$/\n\t ,0123456789TF" + "äß\u00a0\ufeff\u200b"

mutation = st.one_of(
    st.tuples(st.just("drop"), st.integers(0, 10_000)),
    st.tuples(st.just("duplicate"), st.integers(0, 10_000)),
    st.tuples(st.just("swap"), st.integers(0, 10_000), st.integers(0, 10_000)),
    st.tuples(st.just("insert"), st.integers(0, 10_000), st.text(SPECIALS, max_size=6)),
    st.tuples(st.just("cut"), st.integers(0, 10_000)),
)


def mutate(lines: list[str], op: tuple) -> list[str]:
    if not lines:
        return lines
    kind, index = op[0], op[1] % len(lines)
    if kind == "drop":
        return lines[:index] + lines[index + 1 :]
    if kind == "duplicate":
        return [*lines[: index + 1], lines[index], *lines[index + 1 :]]
    if kind == "swap":
        other = op[2] % len(lines)
        swapped = list(lines)
        swapped[index], swapped[other] = swapped[other], swapped[index]
        return swapped
    if kind == "insert":
        line = lines[index]
        at = len(op[2]) % (len(line) + 1)
        return [*lines[:index], line[:at] + op[2] + line[at:], *lines[index + 1 :]]
    return lines[:index]


def check(text: str) -> None:
    line_count = text.count("\n") + 1
    try:
        parsed = gift_parse(text, source="f.gift")
    except GiftError as error:
        assert error.errors
        for problem in error.errors:
            assert 1 <= problem.line <= line_count, (problem, line_count)
            assert problem.render("f.gift").startswith(f"f.gift:{problem.line}: ")
        return
    for item in parsed.items:
        assert item.prompt and 1 <= item.line <= line_count
        assert not exam_item_shape_errors(
            kind=item.kind, options=item.options, correct_keys=item.correct_keys
        ), item
        assert not answer_key_errors(kind=item.kind, answer_key=item.answer_key), item
    for warning in parsed.warnings:
        assert 1 <= warning.line <= line_count
    written = gift_write(parsed.items)
    assert gift_parse(written).items == parsed.items
    assert gift_write(gift_parse(written).items) == written


@settings(
    max_examples=EXAMPLES,
    derandomize=DERANDOMIZE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(mutation, min_size=1, max_size=6))
def test_mutated_moodle_files_read_or_fail_at_a_line(ops):
    lines = LINES
    for op in ops:
        lines = mutate(lines, op)
    check("\n".join(lines))


@settings(max_examples=EXAMPLES, derandomize=DERANDOMIZE, deadline=None)
@given(st.text(SPECIALS + "abcxyz", max_size=200))
def test_any_text_reads_or_fails_at_a_line(text):
    check(text)


def test_known_awkward_inputs():
    for text in (
        "{",
        "}",
        "::",
        "::a::",
        "x{#..}",
        "x{#:}",
        "x{#1..}",
        "x{=->}",
        "x{=a->b =->}",
        "x{~%%a ~b}",
        "x{~%100.5%a =b}",
        "x{T#}",
        "x{####}",
        "x{#####}",
        "[html]<p>{=a ~b}",
        "[html]{=<img src=x> ~b}",
        "\\",
        "x{=a\\}",
        "$CATEGORY:",
        "x\ufdd0{=a ~b}",
        "x{#1e999999}",
        "x{#" + "9" * 500 + "}",
    ):
        check(text)
