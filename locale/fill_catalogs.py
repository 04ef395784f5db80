"""Keep the catalogs complete: fill English msgstr with the msgid, report missing German ones.

Run after ``manage.py makemessages -l de -l en``: English is the source language of the interface,
but German is LANGUAGE_CODE and Django falls back to it, so an empty English msgstr would show
German text; this copies every English msgid into its msgstr. German entries without a
translation are listed and make the script exit with 1.

    python locale/fill_catalogs.py && python manage.py compilemessages
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

LOCALE = Path(__file__).resolve().parent


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    parts = escaped.split("\n")
    if len(parts) == 1:
        return f'"{parts[0]}"'
    lines = [f'"{part}\\n"' for part in parts[:-1]]
    if parts[-1]:
        lines.append(f'"{parts[-1]}"')
    return '""\n' + "\n".join(lines)


def _unquote(lines: list[str]) -> str:
    out = []
    for line in lines:
        body = line.strip()[1:-1]
        out.append(
            re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)
        )
    return "".join(out)


def _entries(text: str) -> list[list[str]]:
    return [block.split("\n") for block in text.strip("\n").split("\n\n")]


def _fields(lines: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    comments, fields, current = [], {}, None
    for line in lines:
        if line.startswith("#"):
            comments.append(line)
            continue
        match = re.match(r"(msgctxt|msgid_plural|msgid|msgstr(?:\[\d\])?) (\".*\")$", line)
        if match:
            current = match.group(1)
            fields[current] = [match.group(2)]
        elif line.startswith('"') and current:
            fields[current].append(line)
    return comments, fields


def fill_english(path: Path) -> None:
    blocks = []
    for lines in _entries(path.read_text(encoding="utf-8")):
        comments, fields = _fields(lines)
        msgid = _unquote(fields.get("msgid", ['""']))
        if not msgid:  # the header
            blocks.append("\n".join(lines))
            continue
        comments = [c for c in comments if c != "#, fuzzy"]
        comments = [c.replace(", fuzzy", "") for c in comments]
        out = list(comments)
        if "msgctxt" in fields:
            out.append("msgctxt " + _quote(_unquote(fields["msgctxt"])))
        out.append("msgid " + _quote(msgid))
        if "msgid_plural" in fields:
            plural = _unquote(fields["msgid_plural"])
            out.append("msgid_plural " + _quote(plural))
            out.append("msgstr[0] " + _quote(msgid))
            out.append("msgstr[1] " + _quote(plural))
        else:
            out.append("msgstr " + _quote(msgid))
        blocks.append("\n".join(out))
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")


def missing_german(path: Path) -> list[str]:
    missing = []
    for lines in _entries(path.read_text(encoding="utf-8")):
        comments, fields = _fields(lines)
        msgid = _unquote(fields.get("msgid", ['""']))
        if not msgid:
            continue
        translations = [_unquote(v) for k, v in fields.items() if k.startswith("msgstr")]
        if not all(translations) or any("fuzzy" in c for c in comments):
            missing.append(msgid)
    return missing


if __name__ == "__main__":
    fill_english(LOCALE / "en" / "LC_MESSAGES" / "django.po")
    gaps = missing_german(LOCALE / "de" / "LC_MESSAGES" / "django.po")
    for msgid in gaps:
        print(f"missing German translation: {msgid!r}")
    sys.exit(1 if gaps else 0)
