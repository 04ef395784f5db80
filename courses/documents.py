"""Parse module documents and "Lernbegriff" term cards into frozen dataclasses (no Django).

Lossless: every non-empty source line lands in exactly one field. Anything malformed raises
DocumentError naming file and line, never a half-parsed document.
"""

from __future__ import annotations

import datetime
import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from charset_normalizer import from_bytes

# Section headings in the order they must appear within a step / a card (heading -> kind).
MODULE_SECTION_KINDS: dict[str, str] = {
    "1. Verstehen": "verstehen",
    "2. Anwenden": "anwenden",
    "Übung": "uebung",
    "3. Technisch einordnen": "einordnen",
    "4. Vertiefen": "vertiefen",
    "5. Prüfen": "pruefen",
    "Zusammenfassung": "zusammenfassung",
    "Optionale Praxisaufgabe": "praxisaufgabe",
    "Lernauftrag für diesen Schritt": "lernauftrag",
}
CARD_SECTION_KINDS: dict[str, str] = {
    "Orientierung": "orientierung",
    "Praktische Anwendung": "praktische_anwendung",
    "Technisches Verständnis": "technisches_verstaendnis",
    "Betrieb und Debugging": "betrieb_debugging",
    "Übung": "uebung",
    "Quick-Check": "quick_check",
}
CARD_KIND_LINE = "Lernbegriff"
CARD_TITLE_SEPARATOR = " — "
EXAM_HEADING = "Abschlussprüfung"

_MODULE_ORDER = {heading: index for index, heading in enumerate(MODULE_SECTION_KINDS)}
_CARD_ORDER = {heading: index for index, heading in enumerate(CARD_SECTION_KINDS)}
_MODULE_ONLY_HEADINGS = frozenset(MODULE_SECTION_KINDS) - frozenset(CARD_SECTION_KINDS)

# Digit counts are bounded so int() never meets a number too long to convert.
_HEADER_RE = re.compile(r"^(?P<series>\S.*?)\s+(?P<number>\d{1,9}):\s+(?P<title>\S.*)$")
# Only the canonical spelling is accepted: the renderer rebuilds the line from the numbers.
_STEP_RE = re.compile(r"^Schritt (?P<number>[1-9]\d{0,5}) / (?P<total>[1-9]\d{0,5})$")
_STEP_LIKE_RE = re.compile(r"^\s*schritt\s*\d+\s*/", re.IGNORECASE)
_LEVEL_RE = re.compile(r"^[A-Z]{1,3}\d{1,2}$")
_FOOTER_RE = re.compile(
    r"^Stand:\s+(?P<date>\d{4}-\d{2}-\d{2})\s+(?P<count>\d{1,4})\s+Quellen?\s+"
    r"(?P<status>[A-Za-z][\w-]*)$"
)
_FOOTER_LIKE_RE = re.compile(r"^\s*Stand\s*:")
# A short numbered line without closing punctuation reads as a heading ("6. Wiederholen"),
# while a numbered sentence in a task list ("1. Notiere den Sollzustand.") stays content.
_NUMBERED_HEADING_RE = re.compile(r"^\d{1,2}\.\s+\S.{0,78}$")
_HEADING_END_PUNCTUATION = tuple('.:;,!?…"“”)')

_SENTENCE_PUNCTUATION = tuple('.:!?…"“')
_COMMAND_MAX_LENGTH = 200
_TERM_MAX_LENGTH = 120
_TERM_END_PUNCTUATION = tuple(".:;,…")
_TRUNCATION_MARKS = ("...", "…")

_NEWLINE_RE = re.compile(r"\r\n|\r|\n")
_NEWLINE_BYTES_RE = re.compile(rb"\r\n|\r|\n")
# C0/C1 controls (tab allowed), Unicode line separators, lone surrogates and a BOM after the
# first one: never in a well-formed document, and a sign of garbage or a botched conversion.
_FORBIDDEN_CHAR_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff]")

# Words that end with a dot without ending the sentence (compared case-insensitively).
# Single letters ("z. B.", "d. h.", "u. a.", "e. g.") are handled by a separate rule.
_ABBREVIATIONS = frozenset(
    {
        "abb",
        "abs",
        "bspw",
        "bzgl",
        "bzw",
        "ca",
        "dr",
        "etc",
        "evtl",
        "ggf",
        "inkl",
        "kap",
        "max",
        "min",
        "mind",
        "nr",
        "prof",
        "sog",
        "tab",
        "usw",
        "vgl",
        "vs",
        "zzgl",
    }
)
_SENTENCE_END_RE = re.compile(r"[.!?…]+[\"'”“»’)\]]*(?=\s+\S)")
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})


def gettext_noop(message: str) -> str:
    """Marks a message for the catalogues (``makemessages`` knows the name); whoever shows a
    ``DocumentError`` translates it (``DocumentError.localized``)."""
    return message


class DocumentError(ValueError):
    """A document that does not follow the format; ``str()`` is ``"path:line: message"``
    in English, ``localized(gettext)`` in the reader's language. ``message`` is a
    ``%(name)s`` template filled from ``params``."""

    def __init__(self, path: str, line: int, message: str, params: dict | None = None) -> None:
        # Positional args only, so the exception pickles (Celery) and compares by value.
        super().__init__(path, line, message, params or {})
        self.path = path
        self.line = line
        self.template = message
        self.params = params or {}

    @property
    def message(self) -> str:
        return self.template % self.params if self.params else self.template

    def localized(self, translate) -> str:
        """``path:line: message`` with the message translated by ``translate`` (gettext)."""
        text = translate(self.template)
        return f"{self.path}:{self.line}: {text % self.params if self.params else text}"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True)
class SectionDoc:
    """One section: its heading as in the source and its non-empty body lines."""

    kind: str
    heading: str
    lines: tuple[str, ...]
    line: int
    truncated: bool
    commands: tuple[str, ...]


@dataclass(frozen=True)
class QuickCheckDoc:
    """A "5. Prüfen" line split at its first "? "; the question keeps its "?"."""

    question: str
    answer: str
    line: int


@dataclass(frozen=True)
class StepDoc:
    """One "Schritt i / n" block of a module document."""

    number: int
    total: int
    term: str
    lead: tuple[str, ...]
    definition: str
    level: str
    sections: tuple[SectionDoc, ...]
    quick_checks: tuple[QuickCheckDoc, ...]
    as_of: datetime.date | None
    source_count: int | None
    status: str
    footer: str
    line: int
    source_lines: tuple[str, ...]

    @property
    def source_hash(self) -> str:
        return sha256_lines(self.source_lines)


@dataclass(frozen=True)
class ExamDoc:
    """The final exam block: repeated module header, "Abschlussprüfung", heading blocks.

    ``line`` is the line of the repeated header, where the block starts.
    """

    header: str
    heading: str
    line: int
    blocks: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class ModuleDoc:
    """A module document: header, steps and an optional final exam."""

    path: str
    header: str
    series: str
    number: int
    title: str
    steps: tuple[StepDoc, ...]
    exam: ExamDoc | None


@dataclass(frozen=True)
class TermCardDoc:
    """A "Lernbegriff" term card."""

    path: str
    kind_line: str
    title_line: str
    term: str
    module_title: str
    lead: tuple[str, ...]
    sections: tuple[SectionDoc, ...]
    line: int
    source_lines: tuple[str, ...]

    @property
    def source_hash(self) -> str:
        return sha256_lines(self.source_lines)

    @property
    def command(self) -> str | None:
        """The first command of the card's Übung, None without an Übung."""
        for section in self.sections:
            if section.kind == "uebung" and section.commands:
                return section.commands[0]
        return None


class _Footer(NamedTuple):
    text: str
    as_of: datetime.date
    source_count: int
    status: str


class _Line(NamedTuple):
    number: int  # 1-based line in the source
    text: str  # right-stripped, never empty


# The encodings a course admin's text files come in besides UTF-8 (Windows and old Mac editors,
# UTF-16 from "Unicode" in Notepad), by the name an admin knows them under.
FALLBACK_ENCODINGS = {
    "cp1252": "Windows-1252",
    "iso8859_15": "ISO-8859-15",
    "mac_roman": "Mac Roman",
    "utf_16": "UTF-16",
    "utf_32": "UTF-32",
}
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff")  # UTF-16 and UTF-32 start with one of these


@dataclass(frozen=True)
class DecodedDocument:
    """An uploaded document's text; ``encoding`` names what it was converted from ("" for
    UTF-8, which is taken as it is)."""

    text: str
    encoding: str


def _line_at(raw: bytes, offset: int) -> int:
    return len(_NEWLINE_BYTES_RE.findall(raw, 0, offset)) + 1


def document_decode(data: bytes, *, path: str) -> DecodedDocument:
    """The text of an uploaded document: UTF-8 as it is; another text encoding detected
    (charset-normalizer, among ``FALLBACK_ENCODINGS``) and converted. An empty file or one
    that is no text (an image renamed .txt) is a ``DocumentError``."""
    if not data.removeprefix(b"\xef\xbb\xbf").strip():
        raise DocumentError(path, 1, gettext_noop("the file is empty"))
    try:
        return DecodedDocument(data.decode("utf-8"), "")
    except UnicodeDecodeError as error:
        bad = error.start
    # A NUL byte outside UTF-16/32 is binary data: no detector should guess a text into it.
    match = None
    if b"\x00" not in data or data.startswith(_WIDE_BOMS):
        match = from_bytes(data, cp_isolation=list(FALLBACK_ENCODINGS)).best()
    if match is None:
        nul = data.find(b"\x00")
        offset = min(bad, nul) if nul >= 0 else bad
        raise DocumentError(
            path,
            _line_at(data, offset),
            gettext_noop(
                "not a text document (byte 0x%(byte)s is neither UTF-8 nor Windows-1252 text); "
                "upload the document as a .txt file, saved as UTF-8"
            ),
            {"byte": f"{data[offset]:02x}"},
        )
    return DecodedDocument(str(match), FALLBACK_ENCODINGS.get(match.encoding, match.encoding))


def normalize_lines(data: bytes | bytearray | memoryview | str, *, path: str) -> list[str]:
    """Decode (``document_decode``, BOM dropped), split on LF/CRLF/CR, NFC-normalize, right-strip.

    Index ``i`` of the result is source line ``i + 1``; blank lines stay as "".
    """
    if isinstance(data, bytes | bytearray | memoryview):
        text = document_decode(bytes(data), path=path).text
    elif isinstance(data, str):
        text = data
    else:
        raise TypeError(f"document data must be bytes or str, not {type(data).__name__}")
    text = text.removeprefix("\ufeff")
    lines = []
    for number, line in enumerate(_NEWLINE_RE.split(text), start=1):
        forbidden = _FORBIDDEN_CHAR_RE.search(line)
        if forbidden:
            raise DocumentError(
                path,
                number,
                gettext_noop("control character U+%(code)s in the text"),
                {"code": f"{ord(forbidden.group()):04X}"},
            )
        # NFC so a heading saved in decomposed form ("U" + combining diaeresis) still matches.
        lines.append(unicodedata.normalize("NFC", line).rstrip())
    return lines


def parse_document(
    data: bytes | bytearray | memoryview | str, *, path: str
) -> ModuleDoc | TermCardDoc:
    """Parse a module document or a term card; raises DocumentError for anything malformed."""
    items = [
        _Line(number, text)
        for number, text in enumerate(normalize_lines(data, path=path), start=1)
        if text
    ]
    if not items:
        raise DocumentError(path, 1, gettext_noop("empty document"))
    first = items[0]
    if first.text == CARD_KIND_LINE:
        return _CardParser(path, items).parse()
    if _HEADER_RE.match(first.text):
        return _ModuleParser(path, items).parse()
    raise DocumentError(
        path,
        first.number,
        gettext_noop(
            "unrecognised first line %(text)s: expected a module header "
            "like 'Self-Hosting 27: Titel' or 'Lernbegriff'"
        ),
        {"text": repr(_shorten(first.text))},
    )


def is_command_line(line: str) -> bool:
    """A command line in an Übung: no closing sentence punctuation, at most 200 characters."""
    return (
        bool(line) and len(line) <= _COMMAND_MAX_LENGTH and not line.endswith(_SENTENCE_PUNCTUATION)
    )


def first_sentence(text: str) -> str:
    """The first sentence of ``text``; dots of abbreviations ("z. B.", "bzw.") do not end it."""
    for match in _SENTENCE_END_RE.finditer(text):
        following = text[match.end() :].lstrip()[:1]
        if following.islower():
            continue
        if match.group().startswith(".") and _ends_with_abbreviation(text[: match.start()]):
            continue
        return text[: match.end()]
    return text


def slugify_term(term: str) -> str:
    """ASCII slug: "NVIDIA_VISIBLE_DEVICES" -> "nvidia-visible-devices", "Größe" -> "groesse"."""
    text = unicodedata.normalize("NFC", term).lower().translate(_UMLAUTS)
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    return slug or "step"


def _ends_with_abbreviation(text_before_dot: str) -> bool:
    word = re.search(r"(\w+)$", text_before_dot)
    if word is None:
        return False
    token = word.group(1)
    return (len(token) == 1 and token.isalpha()) or token.lower() in _ABBREVIATIONS


def sha256_lines(lines: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def _shorten(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _looks_like_numbered_heading(text: str) -> bool:
    return bool(_NUMBERED_HEADING_RE.match(text)) and not text.endswith(_HEADING_END_PUNCTUATION)


class _ModuleParser:
    """Walks the non-empty lines of a module document once, step by step."""

    def __init__(self, path: str, items: list[_Line]) -> None:
        self.path = path
        self.items = items
        self.header = items[0]

    def parse(self) -> ModuleDoc:
        header_match = _HEADER_RE.match(self.header.text)
        assert header_match is not None  # parse_document only dispatches matching headers
        steps: list[StepDoc] = []
        exam: ExamDoc | None = None
        position = 1
        while position < len(self.items):
            item = self.items[position]
            kind = self._kind(position)
            if kind == "step":
                step, position = self._parse_step(position, expected=len(steps) + 1)
                steps.append(step)
            elif kind == "exam" and steps:
                exam = self._parse_exam(position)
                break
            elif not steps:
                raise self._unexpected(
                    item,
                    kind,
                    gettext_noop(
                        "unexpected line %(text)s: expected 'Schritt 1 / <n>' after the "
                        "module header"
                    ),
                )
            else:
                raise self._unexpected(
                    item,
                    kind,
                    gettext_noop("unexpected line %(text)s: after the footer of step %(step)s"),
                    step=steps[-1].number,
                )
        if not steps:
            raise self._error(
                self.header.number,
                gettext_noop("module document has no 'Schritt 1 / <n>' step"),
            )
        self._check_totals(steps)
        return ModuleDoc(
            path=self.path,
            header=self.header.text,
            series=header_match["series"],
            number=int(header_match["number"]),
            title=header_match["title"],
            steps=tuple(steps),
            exam=exam,
        )

    def _error(self, line: int, message: str, **params) -> DocumentError:
        return DocumentError(self.path, line, message, params)

    def _kind(self, position: int) -> str | None:
        """Classify a line by shape; None past the end of the document."""
        if position >= len(self.items):
            return None
        text = self.items[position].text
        if _STEP_RE.match(text):
            return "step"
        if _STEP_LIKE_RE.match(text):
            return "malformed_step"
        if text in MODULE_SECTION_KINDS:
            return "heading"
        if _FOOTER_RE.match(text):
            return "footer"
        if _FOOTER_LIKE_RE.match(text):
            return "malformed_footer"
        if text == self.header.text:
            return "exam"
        if text == EXAM_HEADING:
            return "exam_heading"
        if _looks_like_numbered_heading(text):
            return "unknown_heading"
        return "content"

    def _unexpected(self, item: _Line, kind: str | None, message: str, **params) -> DocumentError:
        """The error for a line out of place; ``message`` (with ``%(text)s``) when its shape
        says nothing more."""
        text = repr(_shorten(item.text))
        if kind == "malformed_step":
            return self._error(
                item.number,
                gettext_noop("malformed step line %(text)s: write 'Schritt i / n'"),
                text=text,
            )
        if kind == "malformed_footer":
            return self._error(
                item.number,
                gettext_noop(
                    "malformed footer %(text)s: expected 'Stand: YYYY-MM-DD <n> Quellen <status>'"
                ),
                text=text,
            )
        if kind == "unknown_heading":
            return self._error(item.number, gettext_noop("unknown heading %(text)s"), text=text)
        if kind == "exam_heading":
            return self._error(
                item.number,
                gettext_noop("'Abschlussprüfung' without the repeated module header before it"),
            )
        return self._error(item.number, message, text=text, **params)

    def _parse_step(self, position: int, *, expected: int) -> tuple[StepDoc, int]:
        """A step block: "Schritt i / n", term, lead, level line, sections, footer."""
        start = position
        schritt = self.items[position]
        step_match = _STEP_RE.match(schritt.text)
        assert step_match is not None
        number, total = int(step_match["number"]), int(step_match["total"])
        if number != expected:
            raise self._error(
                schritt.number,
                gettext_noop(
                    "step number out of sequence: expected step %(expected)s, found %(found)s"
                ),
                expected=expected,
                found=repr(schritt.text),
            )
        term, position = self._parse_term(position + 1, schritt=schritt, number=number)
        lead, level, position = self._parse_lead(position, number=number)
        sections, quick_checks, position = self._parse_sections(position, number=number)
        footer, position = self._parse_footer(position, number=number)
        step = StepDoc(
            number=number,
            total=total,
            term=term.text,
            lead=tuple(item.text for item in lead),
            definition=first_sentence(" ".join(item.text for item in lead)),
            level=level.text,
            sections=tuple(sections),
            quick_checks=tuple(quick_checks),
            as_of=footer.as_of if footer else None,
            source_count=footer.source_count if footer else None,
            status=footer.status if footer else "",
            footer=footer.text if footer else "",
            line=schritt.number,
            source_lines=tuple(item.text for item in self.items[start:position]),
        )
        return step, position

    def _parse_term(self, position: int, *, schritt: _Line, number: int) -> tuple[_Line, int]:
        """The term line right after "Schritt i / n": short, not a sentence, not the level."""
        term_kind = self._kind(position)
        if term_kind is None:
            raise self._error(
                schritt.number, gettext_noop("step %(step)s ends before its term"), step=number
            )
        term = self.items[position]
        if term_kind != "content":
            if term_kind in ("malformed_step", "malformed_footer", "unknown_heading"):
                raise self._unexpected(term, term_kind, gettext_noop("unexpected line %(text)s"))
            raise self._error(
                term.number,
                gettext_noop(
                    "step %(step)s has no term: found %(text)s where the term is expected"
                ),
                step=number,
                text=repr(_shorten(term.text)),
            )
        if _LEVEL_RE.match(term.text) and self._kind(position + 1) != "content":
            raise self._error(
                term.number,
                gettext_noop(
                    "step %(step)s has no term: found the level line %(text)s where the "
                    "term is expected"
                ),
                step=number,
                text=repr(term.text),
            )
        if len(term.text) > _TERM_MAX_LENGTH or term.text.endswith(_TERM_END_PUNCTUATION):
            raise self._error(
                term.number,
                gettext_noop(
                    "step %(step)s has no term: expected a short term after %(after)s, "
                    "found the sentence %(text)s"
                ),
                step=number,
                after=repr(schritt.text),
                text=repr(_shorten(term.text)),
            )
        return term, position + 1

    def _parse_lead(self, position: int, *, number: int) -> tuple[list[_Line], _Line, int]:
        """The lead paragraph (one line at least) and the level line that ends it ("S4")."""
        lead: list[_Line] = []
        while True:
            kind = self._kind(position)
            if kind is None:
                raise self._error(
                    self.items[-1].number,
                    gettext_noop("step %(step)s ends without a level line (e.g. 'S4')"),
                    step=number,
                )
            item = self.items[position]
            if kind != "content":
                if kind in ("malformed_step", "malformed_footer", "unknown_heading"):
                    raise self._unexpected(item, kind, gettext_noop("unexpected line %(text)s"))
                raise self._error(
                    item.number,
                    gettext_noop("step %(step)s has no level line (e.g. 'S4') before %(text)s"),
                    step=number,
                    text=repr(_shorten(item.text)),
                )
            if _LEVEL_RE.match(item.text):
                break
            lead.append(item)
            position += 1
        level = self.items[position]
        if not lead:
            raise self._error(
                level.number,
                gettext_noop(
                    "step %(step)s has no lead paragraph between its term and the level line"
                ),
                step=number,
            )
        return lead, level, position + 1

    def _parse_sections(
        self, position: int, *, number: int
    ) -> tuple[list[SectionDoc], list[QuickCheckDoc], int]:
        """The step's sections in the module's heading order, with the quick checks of Prüfen."""
        sections: list[SectionDoc] = []
        quick_checks: list[QuickCheckDoc] = []
        kind = self._kind(position)
        if kind == "content":
            item = self.items[position]
            raise self._error(
                item.number,
                gettext_noop(
                    "unknown heading %(text)s: expected a section heading after "
                    "the level line of step %(step)s"
                ),
                text=repr(_shorten(item.text)),
                step=number,
            )
        previous: _Line | None = None
        while kind == "heading":
            heading = self.items[position]
            if previous is not None and _MODULE_ORDER[heading.text] <= _MODULE_ORDER[previous.text]:
                message = (
                    gettext_noop(
                        "heading %(heading)s repeated in step %(step)s (after %(previous)s)"
                    )
                    if heading.text == previous.text
                    else gettext_noop(
                        "heading %(heading)s out of order in step %(step)s (after %(previous)s)"
                    )
                )
                raise self._error(
                    heading.number,
                    message,
                    heading=repr(heading.text),
                    step=number,
                    previous=repr(previous.text),
                )
            position += 1
            body: list[_Line] = []
            while self._kind(position) == "content":
                body.append(self.items[position])
                position += 1
            section, checks = self._build_section(heading, body, step_number=number)
            sections.append(section)
            quick_checks.extend(checks)
            previous = heading
            kind = self._kind(position)
        return sections, quick_checks, position

    def _parse_footer(self, position: int, *, number: int) -> tuple[_Footer | None, int]:
        """The optional footer line ("Stand …, n Quellen, status"); None when the step has none."""
        kind = self._kind(position)
        if kind == "footer":
            footer_item = self.items[position]
            footer_match = _FOOTER_RE.match(footer_item.text)
            assert footer_match is not None
            try:
                as_of = datetime.date.fromisoformat(footer_match["date"])
            except ValueError:
                raise self._error(
                    footer_item.number,
                    gettext_noop("invalid date %(date)s in the footer"),
                    date=repr(footer_match["date"]),
                ) from None
            footer = _Footer(
                text=footer_item.text,
                as_of=as_of,
                source_count=int(footer_match["count"]),
                status=footer_match["status"],
            )
            return footer, position + 1
        if kind not in (None, "step", "exam"):
            raise self._unexpected(
                self.items[position],
                kind,
                gettext_noop("unexpected line %(text)s: in step %(step)s"),
                step=number,
            )
        return None, position

    def _build_section(
        self, heading: _Line, body: list[_Line], *, step_number: int
    ) -> tuple[SectionDoc, list[QuickCheckDoc]]:
        kind = MODULE_SECTION_KINDS[heading.text]
        if not body:
            raise self._error(
                heading.number,
                gettext_noop("section %(heading)s of step %(step)s is empty"),
                heading=repr(heading.text),
                step=step_number,
            )
        lines = tuple(item.text for item in body)
        commands: tuple[str, ...] = ()
        if kind == "uebung":
            commands = tuple(line for line in lines if is_command_line(line))
            if not commands:
                raise self._error(
                    heading.number,
                    gettext_noop(
                        "%(heading)s of step %(step)s has no command line "
                        "(a line without closing punctuation)"
                    ),
                    heading=repr(heading.text),
                    step=step_number,
                )
        checks: list[QuickCheckDoc] = []
        if kind == "pruefen":
            for item in body:
                question, separator, answer = item.text.partition("? ")
                if not separator or not question.strip():
                    raise self._error(
                        item.number,
                        gettext_noop(
                            "quick check %(text)s is not 'Frage? Antwort' "
                            "(no '? ' after the question)"
                        ),
                        text=repr(_shorten(item.text)),
                    )
                checks.append(QuickCheckDoc(question + "?", answer.strip(), item.number))
        section = SectionDoc(
            kind=kind,
            heading=heading.text,
            lines=lines,
            line=heading.number,
            truncated=kind == "zusammenfassung"
            and any(line.endswith(_TRUNCATION_MARKS) for line in lines),
            commands=commands,
        )
        return section, checks

    def _parse_exam(self, position: int) -> ExamDoc:
        header = self.items[position]
        if position + 1 >= len(self.items):
            raise self._error(
                header.number,
                gettext_noop("repeated module header without 'Abschlussprüfung' after it"),
            )
        heading = self.items[position + 1]
        if heading.text != EXAM_HEADING:
            raise self._error(
                heading.number,
                gettext_noop(
                    "expected 'Abschlussprüfung' after the repeated module header, found %(text)s"
                ),
                text=repr(_shorten(heading.text)),
            )
        blocks: list[list[str]] = []
        previous_order = -1
        for index in range(position + 2, len(self.items)):
            item = self.items[index]
            kind = self._kind(index)
            if kind == "heading":
                order = _MODULE_ORDER[item.text]
                # A heading that does not move forward in the section order opens a new block.
                if not blocks or order <= previous_order:
                    blocks.append([])
                blocks[-1].append(item.text)
                previous_order = order
            elif kind == "content" and blocks:
                blocks[-1].append(item.text)
            elif kind == "content":
                raise self._error(
                    item.number,
                    gettext_noop(
                        "expected a section heading after 'Abschlussprüfung', found %(text)s"
                    ),
                    text=repr(_shorten(item.text)),
                )
            else:
                raise self._unexpected(
                    item, kind, gettext_noop("unexpected line %(text)s: in the final exam")
                )
        return ExamDoc(
            header=header.text,
            heading=heading.text,
            line=header.number,
            blocks=tuple(tuple(block) for block in blocks),
        )

    def _check_totals(self, steps: list[StepDoc]) -> None:
        """Every "i / n" must name the actual number of steps."""
        actual = len(steps)
        totals = [step.total for step in steps]
        reference = actual if actual in totals else Counter(totals).most_common(1)[0][0]
        for step in steps:
            if step.total != reference:
                raise self._error(
                    step.line,
                    gettext_noop(
                        "'Schritt %(step)s / %(total)s' disagrees with the other steps "
                        "(/ %(reference)s); the document has %(actual)s steps"
                    ),
                    step=step.number,
                    total=step.total,
                    reference=reference,
                    actual=actual,
                )
        if reference != actual:
            raise self._error(
                steps[-1].line,
                gettext_noop(
                    "the steps say there are %(reference)s, but the document has %(actual)s"
                ),
                reference=reference,
                actual=actual,
            )


class _CardParser:
    """Walks the non-empty lines of a term card once."""

    def __init__(self, path: str, items: list[_Line]) -> None:
        self.path = path
        self.items = items

    def _error(self, line: int, message: str, **params) -> DocumentError:
        return DocumentError(self.path, line, message, params)

    def parse(self) -> TermCardDoc:
        kind_line = self.items[0]
        if len(self.items) < 2:
            raise self._error(
                kind_line.number, gettext_noop("term card has no title line 'TERM — MODULE TITLE'")
            )
        title = self.items[1]
        term, separator, module_title = title.text.rpartition(CARD_TITLE_SEPARATOR)
        if not separator:
            raise self._error(
                title.number,
                gettext_noop("term card title %(text)s has no ' — ' between term and module title"),
                text=repr(_shorten(title.text)),
            )
        term, module_title = term.strip(), module_title.strip()
        if not term or not module_title:
            raise self._error(
                title.number, gettext_noop("term card title needs a term and a module title")
            )

        lead: list[_Line] = []
        headings: list[_Line] = []
        bodies: list[list[_Line]] = []
        for item in self.items[2:]:
            current_order = _CARD_ORDER[headings[-1].text] if headings else -1
            for piece in self._split_glued_heading(item, current_order):
                if piece.text in CARD_SECTION_KINDS:
                    if headings and _CARD_ORDER[piece.text] <= _CARD_ORDER[headings[-1].text]:
                        message = (
                            gettext_noop("heading %(heading)s repeated (after %(previous)s)")
                            if piece.text == headings[-1].text
                            else gettext_noop(
                                "heading %(heading)s out of order (after %(previous)s)"
                            )
                        )
                        raise self._error(
                            piece.number,
                            message,
                            heading=repr(piece.text),
                            previous=repr(headings[-1].text),
                        )
                    headings.append(piece)
                    bodies.append([])
                    continue
                if _looks_like_numbered_heading(piece.text):
                    raise self._error(
                        piece.number,
                        gettext_noop("unknown heading %(text)s"),
                        text=repr(_shorten(piece.text)),
                    )
                if piece.text == CARD_KIND_LINE:
                    raise self._error(
                        piece.number,
                        gettext_noop("second 'Lernbegriff' line: one term card per file"),
                    )
                if piece.text in _MODULE_ONLY_HEADINGS or piece.text == EXAM_HEADING:
                    raise self._error(
                        piece.number,
                        gettext_noop("module heading %(heading)s in a term card"),
                        heading=repr(piece.text),
                    )
                (bodies[-1] if headings else lead).append(piece)
        if not lead:
            line = headings[0].number if headings else title.number
            raise self._error(
                line, gettext_noop("term card has no lead paragraph before its first heading")
            )

        sections = tuple(
            self._build_section(heading, body)
            for heading, body in zip(headings, bodies, strict=True)
        )
        source_lines = [kind_line.text, title.text, *(item.text for item in lead)]
        for section in sections:
            source_lines += [section.heading, *section.lines]
        return TermCardDoc(
            path=self.path,
            kind_line=kind_line.text,
            title_line=title.text,
            term=term,
            module_title=module_title,
            lead=tuple(item.text for item in lead),
            sections=sections,
            line=kind_line.number,
            source_lines=tuple(source_lines),
        )

    @staticmethod
    def _split_glued_heading(item: _Line, current_order: int) -> list[_Line]:
        """Split "nvidia-smiQuick-Check" into the command and the heading that follows it.

        Only a later heading glued without a space (or hyphen) counts, so prose ending in
        "… dieser Übung" or "Praxis-Übung" is left alone.
        """
        for heading, order in _CARD_ORDER.items():
            if order <= current_order or not item.text.endswith(heading):
                continue
            prefix = item.text[: -len(heading)]
            if prefix and not prefix[-1].isspace() and prefix[-1] != "-":
                return [_Line(item.number, prefix), _Line(item.number, heading)]
        return [item]

    def _build_section(self, heading: _Line, body: list[_Line]) -> SectionDoc:
        kind = CARD_SECTION_KINDS[heading.text]
        if not body:
            raise self._error(
                heading.number,
                gettext_noop("section %(heading)s is empty"),
                heading=repr(heading.text),
            )
        lines = tuple(item.text for item in body)
        commands: tuple[str, ...] = ()
        if kind == "uebung":
            # First line is a subtitle ("Sicher ausprobieren"), then instruction and command.
            if lines[0].endswith(_SENTENCE_PUNCTUATION):
                raise self._error(
                    body[0].number,
                    gettext_noop(
                        "%(heading)s must start with a subtitle such as 'Sicher ausprobieren'"
                    ),
                    heading=repr(heading.text),
                )
            commands = tuple(line for line in lines[1:] if is_command_line(line))
            if not commands:
                raise self._error(
                    heading.number,
                    gettext_noop(
                        "%(heading)s has no command line (a line without closing punctuation)"
                    ),
                    heading=repr(heading.text),
                )
        return SectionDoc(
            kind=kind,
            heading=heading.text,
            lines=lines,
            line=heading.number,
            truncated=False,
            commands=commands,
        )
