"""Moodle's GIFT format (https://docs.moodle.org/en/GIFT_format), read as Moodle reads it and
written back: plain Python. Per-answer feedback, ``$CATEGORY:`` lines, the comments before a
question (a Moodle tag ``[tag:step:<slug>]`` among them names the step the question is about)
and ``[html]`` texts (sanitised, quizzes/item_html.py) are kept both ways; what is not
(partial credit, essays, descriptions) is skipped with a warning; anything malformed is an
error and imports nothing."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from html.parser import HTMLParser
from typing import Any

from quizzes.answers import (
    MATCHING,
    MAX_ANSWER_TEXT,
    MAX_NUMBER_TEXT,
    MAX_PAIRS,
    MULTIPLE_CHOICE,
    NUMERICAL,
    PAIR_ARROW,
    SHORT_ANSWER,
    SINGLE_CHOICE,
    TRUE_FALSE,
    answer_key_errors,
)
from quizzes.generator import TRUE_FALSE_OPTIONS
from quizzes.item_html import item_html_clean

__all__ = [
    "GiftError",
    "GiftItem",
    "GiftMessage",
    "GiftParse",
    "decimal_text",
    "gift_decode",
    "gift_parse",
    "gift_write",
]

OPTION_KEYS = "abcdefghijklmnopqrstuvwxyz"
MAX_TITLE = 255
HEADER = "// Lernpfad item bank in Moodle's GIFT format (https://docs.moodle.org/en/GIFT_format)\n"
# Wrong options' weight on export, so a Moodle learner ticking everything scores 0.
WRONG_WEIGHT = "-100"


def gettext_noop(message: str) -> str:
    """Marks a message for the catalogs (``makemessages`` knows the name); the caller
    translates it when it shows it."""
    return message


@dataclass(frozen=True)
class GiftItem:
    """One question with the fields of ``ExamItem`` that GIFT carries; ``line`` is where it
    starts in the file it was read from (0 for an item to write)."""

    kind: str
    prompt: str
    options: list[dict[str, str]] = field(default_factory=list)
    correct_keys: list[str] = field(default_factory=list)
    answer_key: dict[str, Any] = field(default_factory=dict)
    explanation: str = ""
    title: str = ""
    # "html": prompt, options, feedback and explanation are sanitised HTML; "plain": text.
    text_format: str = "plain"
    # Feedback on single answers: by option key (choice kinds, "true"/"false") or by the index
    # of an accepted answer ("0", "1", … short answer and numerical).
    answer_feedback: dict[str, str] = field(default_factory=dict)
    # The Moodle question category ($CATEGORY:) and the comment lines before the question
    # (without their "//"); neither is shown to learners.
    category: str = ""
    comment: str = ""
    # The slug of the step the question is about: a Moodle question tag in the comment before
    # it ("// [tag:step:cuda-out-of-memory]"), kept apart from ``comment``.
    step: str = ""
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class GiftMessage:
    """An error or a warning at a line: ``message`` is English with ``%(name)s`` placeholders."""

    line: int
    code: str
    message: str
    params: dict[str, Any] = field(default_factory=dict)

    def render(self, source: str, translate: Callable[[str], str] = gettext_noop) -> str:
        """``source:line: message``, the message through ``translate`` (Django's gettext)."""
        return f"{source}:{self.line}: {translate(self.message) % self.params}"


class GiftError(ValueError):
    """A malformed GIFT file: every problem found, each at its line."""

    def __init__(self, source: str, errors: Sequence[GiftMessage]) -> None:
        self.source = source
        self.errors = list(errors)
        super().__init__("\n".join(error.render(source) for error in self.errors))


@dataclass(frozen=True)
class GiftParse:
    """The questions of a file that Lernpfad can use, and what it left out or changed."""

    items: list[GiftItem]
    warnings: list[GiftMessage]


# --- reading ------------------------------------------------------------------------------------

# Escaped special characters are held by Unicode noncharacters while a question is split.
_ESCAPABLE = "\\~=#{}:n"
_HOLD = {char: chr(0xFDD0 + index) for index, char in enumerate(_ESCAPABLE)}
_RELEASE = {held: ("\n" if char == "n" else char) for char, held in _HOLD.items()}
_ESCAPE_RE = re.compile(r"\\([\\~=#{}:n])")
_HELD_RE = re.compile("[\ufdd0-\ufddf]")
_FORMAT_RE = re.compile(r"\[(html|moodle|plain|markdown)\]")
_WEIGHT_RE = re.compile(r"%(-?\d+(?:\.\d+)?)%")
# A number in a GIFT file: Moodle writes a point; a decimal comma is read too.
_GIFT_NUMBER_RE = re.compile(r"[-+]?(?:\d+(?:[.,]\d*)?|[.,]\d+)(?:[eE][-+]?\d{1,3})?")
_TRUE_FALSE = {"T": True, "TRUE": True, "F": False, "FALSE": False}
_MEDIA_TAGS = frozenset({"img", "video", "audio", "iframe", "object", "embed", "svg", "picture"})
_BLOCK_TAGS = frozenset(
    {"p", "div", "li", "tr", "ul", "ol", "table", "blockquote", "pre", "h1", "h2", "h3", "h4"}
)


def gift_decode(data: bytes, *, source: str = "gift") -> str:
    """The text of a GIFT file (UTF-8, with or without a byte-order mark); another encoding
    is a ``GiftError`` at the line of the first byte that is no UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        message = gettext_noop("The file is not UTF-8 text (Moodle writes GIFT as UTF-8).")
        raise GiftError(source, [GiftMessage(line, "not_utf8", message)]) from exc


class _GiftProblems(Exception):
    """Raised inside the parser; ``gift_parse`` collects them into one ``GiftError``."""

    def __init__(self, errors: list[GiftMessage]) -> None:
        super().__init__(errors)
        self.errors = errors


def gift_parse(text: str, *, source: str = "gift") -> GiftParse:
    """Read a GIFT file. Raises ``GiftError`` listing every malformed question (each at its
    line); otherwise returns the items in file order and the warnings."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")
    # The noncharacters that hold escapes while a question is read never belong in text.
    text = _HELD_RE.sub("", text)
    items: list[GiftItem] = []
    warnings: list[GiftMessage] = []
    errors: list[GiftMessage] = []
    # A $CATEGORY: line holds for every question after it, as in Moodle.
    category = ""
    for first_line, lines in _blocks(text.split("\n")):
        question = _Question(first_line, lines)
        try:
            item = question.parse()
        except _GiftProblems as problems:
            errors.extend(problems.errors)
            continue
        warnings.extend(question.warnings)
        if question.category is not None:
            category = question.category
        if item is not None:
            items.append(dataclasses.replace(item, category=category))
    if not errors and not items:
        errors.append(
            GiftMessage(1, "no_questions", gettext_noop("The file holds no question to import."))
        )
    if errors:
        raise GiftError(source, errors)
    return GiftParse(items=items, warnings=warnings)


def _blocks(lines: list[str]) -> Iterable[tuple[int, list[str]]]:
    """Blocks of non-blank lines (comment lines belong to their block), with the number of
    each block's first line."""
    block: list[str] = []
    start = 0
    for number, line in enumerate(lines, start=1):
        if line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


def _release(text: str) -> str:
    return _HELD_RE.sub(lambda match: _RELEASE.get(match.group(0), ""), text)


# Moodle reads "[tag:…]" in the comment before a question as the question's tags (and keeps
# "step:<slug>" as one); Lernpfad reads this one as the step the question is about.
_STEP_TAG_RE = re.compile(r"[ \t]*\[tag:step:([A-Za-z0-9_-]+)\]")


def _step_tag(comment: str) -> tuple[str, str]:
    """The step slug the comment's first ``[tag:step:<slug>]`` names ("" without one), and the
    comment without that tag (a line it leaves blank dropped)."""
    match = _STEP_TAG_RE.search(comment)
    if match is None:
        return "", comment
    lines = comment.split("\n")
    kept: list[str] = []
    for line in lines:
        if match.group(0) in line:
            line = line.replace(match.group(0), "", 1)
            if not line.strip():
                continue
        kept.append(line)
    return match.group(1), "\n".join(kept)


def step_tag_keep(comment: str, step: str) -> str:
    """The comment with ``[tag:step:<step>]`` as its last line, as the writer puts a step's tag
    after the comment: for a step the importing module lacks, kept for the next export."""
    return f"{comment}\n [tag:step:{step}]" if comment else f" [tag:step:{step}]"


def _leading_comment(lines: list[str]) -> str:
    """The comment lines just before a block's question (after its $CATEGORY: line), each
    without its "//": what the writer puts back before the question."""
    comment: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("//"):
            comment.append(stripped[2:])
        elif stripped.startswith("$CATEGORY:"):
            comment = []
        else:
            break
    return "\n".join(comment)


class _HtmlText(HTMLParser):
    """The text of an HTML fragment: paragraphs and ``<br>`` as line breaks, media noted."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.media = False
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._hidden += 1
        elif tag == "br":
            self.parts.append("\n")
        elif tag in _MEDIA_TAGS:
            self.media = True
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self._hidden:
            self.parts.append(data)


def _html_text(html: str) -> tuple[str, bool]:
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line), parser.media


class _Question:
    """One block of a GIFT file parsed into at most one item; offsets into the held text give
    the line of a problem."""

    def __init__(self, first_line: int, lines: list[str]) -> None:
        self.first_line = first_line
        # Comment lines become empty lines: the block keeps its line numbers.
        self.text = _ESCAPE_RE.sub(
            lambda match: _HOLD[match.group(1)],
            "\n".join("" if line.strip().startswith("//") else line for line in lines),
        )
        self.step, self.comment = _step_tag(_leading_comment(lines))
        self.category: str | None = None
        self.warnings: list[GiftMessage] = []
        self._warned: set[str] = set()
        self.format = "moodle"

    # -- helpers --

    def line(self, offset: int) -> int:
        return self.first_line + self.text.count("\n", 0, max(0, offset))

    def error(self, offset: int, code: str, message: str, **params) -> _GiftProblems:
        return _GiftProblems([GiftMessage(self.line(offset), code, message, params)])

    def warn(self, offset: int, code: str, message: str, **params) -> None:
        if code not in self._warned:
            self._warned.add(code)
            self.warnings.append(GiftMessage(self.line(offset), code, message, params))

    def plain(self, raw: str, offset: int) -> str:
        """A text of the question as Lernpfad keeps it: an optional format marker read, HTML
        made plain, escapes released, surrounding space removed."""
        text = raw.strip()
        fmt = self.format
        marker = _FORMAT_RE.match(text)
        if marker:
            fmt, text = marker.group(1), text[marker.end() :]
        text = _release(text)
        if fmt == "html":
            text, media = _html_text(text)
            if media:
                self.warn(
                    offset,
                    "media_dropped",
                    gettext_noop("An image or embedded media in the HTML text was left out."),
                )
        return text.strip()

    def answers(self, body: str, offset: int, markers: str) -> list[tuple[str, str, int]]:
        """``body`` cut at each marker character: (marker, text, offset of the text); the text
        before the first marker comes with marker ""."""
        parts, start, marker = [], 0, ""
        for index, char in enumerate(body):
            if char in markers:
                parts.append((marker, body[start:index], offset + start))
                start, marker = index + 1, char
        parts.append((marker, body[start:], offset + start))
        return parts

    def rich(self, raw: str, offset: int) -> str:
        """A text a learner reads (prompt, option, feedback, explanation): in an ``[html]``
        question sanitised HTML, else as ``plain``."""
        text = raw.strip()
        marker = _FORMAT_RE.match(text)
        fmt = marker.group(1) if marker else self.format
        if fmt != "html":
            return self.plain(raw, offset)
        text = _release(text[marker.end() :] if marker else text)
        if _html_text(text)[1]:
            self.warn(
                offset,
                "media_dropped",
                gettext_noop("An image or embedded media in the HTML text was left out."),
            )
        return item_html_clean(text)

    def feedback(self, text: str, offset: int) -> tuple[str, str]:
        """An answer and its feedback ``#…`` (empty without one)."""
        answer, hash_mark, feedback = text.partition("#")
        if not hash_mark:
            return answer, ""
        return answer, self.rich(feedback, offset + len(answer) + 1)

    # -- the question --

    def parse(self) -> GiftItem | None:
        text = self.text
        start = len(text) - len(text.lstrip())
        if not text.strip():
            return None  # comments only
        if text.startswith("$CATEGORY:", start):
            # Kept with the questions after it (the admin chose the module); a question may
            # follow directly.
            end = text.find("\n", start)
            self.category = _release(text[start + len("$CATEGORY:") : end if end >= 0 else None])
            self.category = self.category.strip()
            if end < 0 or not text[end:].strip():
                return None
            start = end + 1 + (len(text[end + 1 :]) - len(text[end + 1 :].lstrip()))
        question_start = start
        title = ""
        if text.startswith("::", start):
            close = text.find("::", start + 2)
            if close < 0:
                raise self.error(
                    start,
                    "title_unclosed",
                    gettext_noop("The title after :: is not closed with ::."),
                )
            title = " ".join(_release(text[start + 2 : close]).split())
            if len(title) > MAX_TITLE:
                raise self.error(
                    start,
                    "title_too_long",
                    gettext_noop("The title is longer than %(limit)s characters."),
                    limit=MAX_TITLE,
                )
            start = close + 2
        opening, closing = text.find("{", start), text.find("}", start)
        if opening < 0 and closing < 0:
            self.warn(
                start,
                "description_skipped",
                gettext_noop(
                    "Skipped: a text without an answer block { … } (a Moodle description) is "
                    "no question."
                ),
            )
            return None
        if closing >= 0 and (opening < 0 or closing < opening):
            raise self.error(
                closing,
                "stray_brace",
                gettext_noop("} without an opening {: write \\} for a brace in the text."),
            )
        if closing < 0:
            raise self.error(
                opening,
                "unclosed_brace",
                gettext_noop("The answer block opened here is not closed with }."),
            )
        nested = text.find("{", opening + 1, closing)
        if nested >= 0:
            raise self.error(
                nested,
                "nested_brace",
                gettext_noop(
                    "{ inside an answer block: write \\{ for a brace, and close the block with }."
                ),
            )
        after = text[closing + 1 :]
        extra = min((i for i in (after.find("{"), after.find("}")) if i >= 0), default=-1)
        if extra >= 0:
            raise self.error(
                closing + 1 + extra,
                "second_block",
                gettext_noop("A question has one answer block { … }; this is a second one."),
            )
        self.format = "moodle"
        prompt_raw = text[start:opening] + ("_____" + after if after.strip() else "")
        marker = _FORMAT_RE.match(prompt_raw.strip())
        if marker:
            self.format = marker.group(1)
        prompt = self.rich(prompt_raw, start)
        body, body_offset = text[opening + 1 : closing], opening + 1
        explanation = ""
        general = body.rfind("####")
        if general >= 0:
            explanation = self.rich(body[general + 4 :], body_offset + general)
            body = body[:general]
        item = self.item(body, body_offset, opening)
        if item is None:
            return None
        if not prompt:
            raise self.error(
                start, "empty_prompt", gettext_noop("The question has no text before its answers.")
            )
        return GiftItem(
            kind=item["kind"],
            prompt=prompt,
            options=item.get("options", []),
            correct_keys=item.get("correct_keys", []),
            answer_key=item.get("answer_key", {}),
            explanation=explanation,
            title=title,
            text_format="html" if self.format == "html" else "plain",
            answer_feedback=item.get("answer_feedback", {}),
            comment=self.comment,
            step=self.step,
            line=self.line(question_start),
        )

    def item(self, body: str, offset: int, opening: int) -> dict | None:
        """The kind and answers of the answer block, told apart as Moodle does."""
        stripped = body.strip()
        if not stripped:
            self.warn(
                opening,
                "essay_skipped",
                gettext_noop("Skipped: an essay question {} has no answer Lernpfad could grade."),
            )
            return None
        if stripped.startswith("#"):
            return self.numerical(body, offset)
        if "~" in stripped:
            return self.choice(body, offset)
        if "=" in stripped and PAIR_ARROW in stripped:
            return self.matching(body, offset)
        value = stripped.split("#", 1)[0].strip()
        if value in _TRUE_FALSE:
            # {TRUE#feedback if wrong#feedback if right}: by the option the learner chose.
            correct = "true" if _TRUE_FALSE[value] else "false"
            wrong = "false" if correct == "true" else "true"
            _value, _hash, feedbacks = stripped.partition("#")
            wrong_feedback, _hash, right_feedback = feedbacks.partition("#")
            feedback = {
                wrong: self.rich(wrong_feedback, offset),
                correct: self.rich(right_feedback, offset),
            }
            return {
                "kind": TRUE_FALSE,
                "options": [{"key": key, "text": text} for key, text in TRUE_FALSE_OPTIONS],
                "correct_keys": [correct],
                "answer_feedback": {key: text for key, text in feedback.items() if text},
            }
        return self.short_answer(body, offset)

    def weight(self, text: str, offset: int) -> tuple[Decimal | None, str, int]:
        """A leading ``%50%`` weight (None without one), the rest, and the rest's offset."""
        lead = len(text) - len(text.lstrip())
        match = _WEIGHT_RE.match(text, lead)
        if not match:
            return None, text, offset
        value = Decimal(match.group(1))
        if not Decimal(-100) <= value <= Decimal(100):
            raise self.error(
                offset + lead,
                "bad_weight",
                gettext_noop("The weight %(weight)s %% is not between -100 %% and 100 %%."),
                weight=match.group(1),
            )
        return value, text[match.end() :], offset + match.end()

    def choice(self, body: str, offset: int) -> dict:
        parts = self.answers(body, offset, "=~")
        _marker, lead_text, lead_offset = parts[0]
        if lead_text.strip():
            raise self.error(
                lead_offset,
                "text_before_answers",
                gettext_noop("Every answer starts with = (right) or ~ (wrong): %(text)s"),
                text=_release(lead_text.strip())[:60],
            )
        single = any(marker == "=" for marker, _text, _offset in parts)
        answers: list[tuple[Decimal, str, int]] = []
        feedback: dict[str, str] = {}
        for marker, raw, part_offset in parts[1:]:
            if marker == "=":
                # As in Moodle: "=" is the full mark, and no weight follows it.
                weight, rest, rest_offset = Decimal(100), raw, part_offset
            else:
                weight, rest, rest_offset = self.weight(raw, part_offset)
                weight = Decimal(0) if weight is None else weight
            answer, answer_feedback = self.feedback(rest, rest_offset)
            text = self.rich(answer, rest_offset)
            if not text:
                raise self.error(rest_offset, "empty_answer", gettext_noop("An answer is empty."))
            if answer_feedback and len(answers) < len(OPTION_KEYS):
                feedback[OPTION_KEYS[len(answers)]] = answer_feedback
            answers.append((weight, text, rest_offset))
        if len(answers) < 2:
            raise self.error(
                offset, "too_few_answers", gettext_noop("A choice question needs two answers.")
            )
        if len(answers) > len(OPTION_KEYS):
            raise self.error(
                offset,
                "too_many_answers",
                gettext_noop("A choice question has at most %(limit)s answers."),
                limit=len(OPTION_KEYS),
            )
        texts = [" ".join(text.casefold().split()) for _weight, text, _offset in answers]
        for index, text in enumerate(texts):
            if text in texts[:index]:
                raise self.error(
                    answers[index][2],
                    "duplicate_answer",
                    gettext_noop("Two answers read the same: %(text)s"),
                    text=answers[index][1][:60],
                )
        options = [
            {"key": OPTION_KEYS[index], "text": text}
            for index, (_w, text, _o) in enumerate(answers)
        ]
        if single:
            full = [i for i, (weight, _t, _o) in enumerate(answers) if weight == 100]
            if len(full) != 1:
                raise self.error(
                    offset,
                    "single_choice_right_answers",
                    gettext_noop(
                        "A question with = has exactly one right answer; this one has "
                        "%(count)s. For several right answers give them weights "
                        "(~%%50%%… ~%%50%%…)."
                    ),
                    count=len(full),
                )
            partial = [(w, o) for w, _t, o in answers if 0 < w < 100]
            if partial:
                self.warn(
                    partial[0][1],
                    "partial_credit_wrong",
                    gettext_noop(
                        "Answers with partial credit (%(weights)s) count as wrong: Lernpfad "
                        "gives an item full marks or none."
                    ),
                    weights=", ".join(f"{decimal_text(w)} %" for w, _o in partial),
                )
            return {
                "kind": SINGLE_CHOICE,
                "options": options,
                "correct_keys": [OPTION_KEYS[full[0]]],
                "answer_feedback": feedback,
            }
        right = [(index, w) for index, (w, _t, _o) in enumerate(answers) if w > 0]
        if not right:
            raise self.error(
                offset,
                "no_right_answer",
                gettext_noop(
                    "No answer is right: mark it with =, or several with positive weights "
                    "(~%%50%%…)."
                ),
            )
        weights = [w for _index, w in right]
        if max(weights) - min(weights) > Decimal("0.01") or abs(sum(weights) - 100) > Decimal(
            "0.01"
        ):
            self.warn(
                offset,
                "weights_all_or_nothing",
                gettext_noop(
                    "The right answers' weights (%(weights)s) are not kept: a learner must "
                    "choose exactly the answers with a positive weight (all or nothing)."
                ),
                weights=", ".join(f"{decimal_text(w)} %" for w in weights),
            )
        return {
            "kind": MULTIPLE_CHOICE,
            "options": options,
            "correct_keys": [OPTION_KEYS[index] for index, _w in right],
            "answer_feedback": feedback,
        }

    def short_answer(self, body: str, offset: int) -> dict:
        accepted, dropped, feedback = [], [], {}
        for _marker, raw, part_offset in self.answers(body, offset, "="):
            if not raw.strip():
                continue
            weight, rest, rest_offset = self.weight(raw, part_offset)
            answer, answer_feedback = self.feedback(rest, rest_offset)
            text = self.plain(answer, rest_offset)
            if not text:
                raise self.error(rest_offset, "empty_answer", gettext_noop("An answer is empty."))
            if weight is None or weight == 100:
                if answer_feedback:
                    feedback[str(len(accepted))] = answer_feedback
                accepted.append(text)
            else:
                dropped.append((weight, part_offset))
        return {
            "kind": SHORT_ANSWER,
            "answer_key": self.typed_key(SHORT_ANSWER, {"accepted": accepted}, dropped, offset),
            "answer_feedback": feedback,
        }

    def numerical(self, body: str, offset: int) -> dict:
        start = body.index("#") + 1
        rest = body[start:]
        wrong = rest.find("~")
        if wrong >= 0:
            if rest[wrong + 1 :].replace("#", "").strip():
                self.warn(
                    offset + start + wrong,
                    "feedback_dropped",
                    gettext_noop(
                        "The feedback for any other number (~#…) is not kept; the feedback "
                        "of each right answer (=14#…) is."
                    ),
                )
            rest = rest[:wrong]
        answers, dropped, feedback = [], [], {}
        for _marker, raw, part_offset in self.answers(rest, offset + start, "="):
            if not raw.strip():
                continue
            weight, value_raw, value_offset = self.weight(raw, part_offset)
            value_text, answer_feedback = self.feedback(value_raw, value_offset)
            answer = self.number_answer(_release(value_text).strip(), value_offset)
            if weight is None or weight == 100:
                if answer_feedback:
                    feedback[str(len(answers))] = answer_feedback
                answers.append(answer)
            else:
                dropped.append((weight, part_offset))
        return {
            "kind": NUMERICAL,
            "answer_key": self.typed_key(NUMERICAL, {"answers": answers}, dropped, offset),
            "answer_feedback": feedback,
        }

    def number_answer(self, text: str, offset: int) -> dict:
        if ".." in text:
            low, _sep, high = text.partition("..")
            answer = {"min": self.number(low, offset), "max": self.number(high, offset)}
            if Decimal(answer["min"]) > Decimal(answer["max"]):
                raise self.error(
                    offset,
                    "range_reversed",
                    gettext_noop("In %(text)s the lower end is above the upper one."),
                    text=text,
                )
            return answer
        value, colon, tolerance = text.partition(":")
        answer = {
            "value": self.number(value, offset),
            "tolerance": self.number(tolerance, offset) if colon else "0",
        }
        if Decimal(answer["tolerance"]) < 0:
            raise self.error(
                offset,
                "negative_tolerance",
                gettext_noop("The tolerance in %(text)s is negative."),
                text=text,
            )
        return answer

    def number(self, text: str, offset: int) -> str:
        text = text.strip()
        if not _GIFT_NUMBER_RE.fullmatch(text):
            raise self.error(
                offset,
                "not_a_number",
                gettext_noop(
                    "%(text)s is not a number: write {#14}, {#14:0.5} (value:tolerance) or "
                    "{#13..15} (range)."
                ),
                text=text[:40] or "–",
            )
        try:
            number = decimal_text(Decimal(text.replace(",", ".")))
        except InvalidOperation as exc:  # pragma: no cover - the pattern admits numbers only
            raise self.error(offset, "not_a_number", gettext_noop("Not a number.")) from exc
        if len(number) > MAX_NUMBER_TEXT:
            # A learner could not type it (quizzes.answers.MAX_NUMBER_TEXT).
            raise self.error(
                offset,
                "number_too_long",
                gettext_noop("%(text)s has more digits than a learner can type."),
                text=text[:40],
            )
        return number

    def matching(self, body: str, offset: int) -> dict:
        parts = self.answers(body, offset, "=")
        if parts[0][1].strip():
            raise self.error(
                parts[0][2],
                "text_before_pairs",
                gettext_noop("Every pair of a matching question starts with =: %(text)s"),
                text=_release(parts[0][1].strip())[:60],
            )
        pairs = []
        for _marker, raw, part_offset in parts[1:]:
            if PAIR_ARROW not in raw:
                raise self.error(
                    part_offset,
                    "pair_without_arrow",
                    gettext_noop("A matching pair is written =left -> right: %(text)s"),
                    text=_release(raw.strip())[:60] or "=",
                )
            left, _arrow, right = raw.partition(PAIR_ARROW)
            right_text = _release(right).strip()
            if not right_text:
                raise self.error(
                    part_offset,
                    "pair_without_answer",
                    gettext_noop("A matching pair has nothing after ->."),
                )
            pairs.append({"left": self.plain(left, part_offset), "right": right_text})
            lefts = [" ".join(p["left"].casefold().split()) for p in pairs if p["left"]]
            if pairs[-1]["left"] and lefts.count(lefts[-1]) > 1:
                raise self.error(
                    part_offset,
                    "duplicate_pair",
                    gettext_noop("Two pairs have the same left side: %(text)s"),
                    text=pairs[-1]["left"][:60],
                )
        matched = sum(1 for pair in pairs if pair["left"])
        if not 2 <= matched <= MAX_PAIRS:
            raise self.error(
                offset,
                "pair_count",
                gettext_noop(
                    "A matching question has 2 to %(limit)s pairs; this one has %(count)s."
                ),
                limit=MAX_PAIRS,
                count=matched,
            )
        return {
            "kind": MATCHING,
            "answer_key": self.typed_key(MATCHING, {"pairs": pairs}, [], offset),
        }

    def typed_key(
        self, kind: str, key: dict, dropped: list[tuple[Decimal, int]], offset: int
    ) -> dict:
        """The answer key of a typed item, checked; ``dropped`` are the partial answers left
        out (weight, offset)."""
        if dropped:
            self.warn(
                dropped[0][1],
                "partial_answers_dropped",
                gettext_noop(
                    "Answers worth less than 100 %% (%(weights)s) are left out: Lernpfad "
                    "gives an item full marks or none."
                ),
                weights=", ".join(f"{decimal_text(w)} %" for w, _o in dropped),
            )
        if kind == SHORT_ANSWER and not key["accepted"]:
            raise self.error(
                offset,
                "no_full_answer",
                gettext_noop("No answer is worth 100 %%: a short answer needs one."),
            )
        if kind == NUMERICAL and not key["answers"]:
            raise self.error(
                offset,
                "no_full_answer",
                gettext_noop("No number is worth 100 %%: a numerical question needs one."),
            )
        if kind == SHORT_ANSWER and any("*" in answer for answer in key["accepted"]):
            self.warn(
                offset,
                "wildcard_literal",
                gettext_noop("* in a short answer is compared as it is, not as a wildcard."),
            )
        if kind == SHORT_ANSWER and any(len(a) > MAX_ANSWER_TEXT for a in key["accepted"]):
            raise self.error(
                offset,
                "answer_too_long",
                gettext_noop("An answer is longer than %(limit)s characters."),
                limit=MAX_ANSWER_TEXT,
            )
        # The rules the bank applies to every item (the cases above with their own words).
        problems = answer_key_errors(kind=kind, answer_key=key)
        if problems:
            raise self.error(
                offset,
                "bad_answers",
                gettext_noop("The answers are not valid: %(problem)s"),
                problem=" ".join(problems),
            )
        return key


def decimal_text(number: Decimal) -> str:
    """A number as the answer key keeps it: plain notation, no trailing zeros ("0.5", "100")."""
    text = format(number.normalize(), "f")
    return "0" if text in ("-0", "0") else text


# --- writing ------------------------------------------------------------------------------------

_SPECIAL_OUT = str.maketrans(
    {"\\": "\\\\", "~": "\\~", "=": "\\=", "#": "\\#", "{": "\\{", "}": "\\}", ":": "\\:"}
)


def _escape(text: str) -> str:
    return text.strip().translate(_SPECIAL_OUT).replace("\r", "").replace("\n", "\\n")


def _text_out(text: str) -> str:
    """An answer or explanation as GIFT text: one that would read as a format marker
    ("[html]…") gets ``[plain]`` before it."""
    return ("[plain]" if _FORMAT_RE.match(text.strip()) else "") + _escape(text)


def _needs_plain(item: GiftItem) -> bool:
    """Whether the prompt needs ``[plain]`` before it: a text Moodle's default format would
    read as HTML (``<``, ``&``), or a prompt that would read as a format marker or a comment."""
    texts = [item.prompt, item.explanation, *(o["text"] for o in item.options)]
    texts += list(item.answer_key.get("accepted", []))
    for pair in item.answer_key.get("pairs", []):
        texts += [pair["left"], pair["right"]]
    prompt = item.prompt.strip()
    return (
        any("<" in text or "&" in text for text in texts)
        or bool(_FORMAT_RE.match(prompt))
        or prompt.startswith("//")
    )


def _answer_out(marker: str, text: str, *, weight: str) -> str:
    """An answer after its marker. A text that starts like a weight ("%50% der Zeit") where a
    weight may stand gets its weight written out, so it is read back as text."""
    escaped = _text_out(text)
    if weight and _WEIGHT_RE.match(escaped):
        return f"{marker}%{weight}%{escaped}"
    return marker + escaped


def gift_write(items: Sequence[GiftItem]) -> str:
    """The items as a GIFT file Moodle imports (and ``gift_parse`` reads back to the same
    items): one block each, a blank line between."""
    blocks: list[str] = []
    category = ""
    for item in items:
        if item.category.strip() and item.category.strip() != category:
            category = item.category.strip()
            blocks.append(f"$CATEGORY: {category}")
        blocks.append(_item_gift(item))
    return HEADER + "".join("\n" + block + "\n" for block in blocks)


def _item_gift(item: GiftItem) -> str:
    head = "".join(f"//{line}\n" for line in item.comment.split("\n") if item.comment)
    head += f"// [tag:step:{item.step}]\n" if item.step else ""
    head += f"::{_escape(item.title)}::" if item.title.strip() else ""
    if item.text_format == "html":
        head += "[html]"
    elif _needs_plain(item):
        head += "[plain]"
    head += _escape(item.prompt)
    general = f"\t####{_text_out(item.explanation)}\n" if item.explanation.strip() else ""
    feedback = item.answer_feedback

    def with_feedback(answer: str, key: str) -> str:
        return answer + (f"#{_text_out(feedback[key])}" if feedback.get(key, "").strip() else "")

    if item.kind == TRUE_FALSE:
        value = "TRUE" if item.correct_keys == ["true"] else "FALSE"
        right, wrong = ("true", "false") if value == "TRUE" else ("false", "true")
        if any(feedback.get(key, "").strip() for key in (right, wrong)):
            value += f"#{_text_out(feedback.get(wrong, ''))}#{_text_out(feedback.get(right, ''))}"
        general = f"####{_text_out(item.explanation)}" if item.explanation.strip() else ""
        return f"{head}{{{value}{general}}}"
    lines: list[str] = []
    correct = set(item.correct_keys)
    if item.kind == SINGLE_CHOICE:
        # No weight is read after "=" in a choice question (as in Moodle), one is after "~".
        lines = [
            with_feedback(
                _answer_out("=", option["text"], weight="")
                if option["key"] in correct
                else _answer_out("~", option["text"], weight="0"),
                option["key"],
            )
            for option in item.options
        ]
        return _block(head, "", lines, general)
    if item.kind == MULTIPLE_CHOICE:
        share = decimal_text((Decimal(100) / max(1, len(correct))).quantize(Decimal("0.00001")))
        lines = [
            with_feedback(
                f"~%{share if option['key'] in correct else WRONG_WEIGHT}%"
                f"{_text_out(option['text'])}",
                option["key"],
            )
            for option in item.options
        ]
        return _block(head, "", lines, general)
    key = item.answer_key
    if item.kind == SHORT_ANSWER:
        lines = [
            with_feedback(_answer_out("=", answer, weight="100"), str(index))
            for index, answer in enumerate(key["accepted"])
        ]
        return _block(head, "", lines, general)
    if item.kind == NUMERICAL:
        lines = [
            with_feedback(f"={_number_out(answer)}", str(index))
            for index, answer in enumerate(key["answers"])
        ]
        return _block(head, "#", lines, general)
    if item.kind == MATCHING:
        lines = [
            f"={_text_out(pair['left'])} {PAIR_ARROW} {_escape(pair['right'])}"
            if pair["left"].strip()
            else f"= {PAIR_ARROW} {_escape(pair['right'])}"
            for pair in key["pairs"]
        ]
        return _block(head, "", lines, general)
    raise ValueError(f"GIFT has no form for items of kind {item.kind!r}")


def _block(head: str, opening: str, lines: list[str], general: str) -> str:
    return head + "{" + opening + "\n" + "".join(f"\t{line}\n" for line in lines) + general + "}"


def _number_out(answer: dict) -> str:
    if "min" in answer:
        return f"{_number_text(answer['min'])}..{_number_text(answer['max'])}"
    return f"{_number_text(answer['value'])}:{_number_text(answer['tolerance'])}"


def _number_text(value: Any) -> str:
    return decimal_text(Decimal(str(value).strip()))
