"""The interface catalogs: German complete, English filled, and the compiled .mo files current."""

from __future__ import annotations

import gettext
import importlib.util
from pathlib import Path

from django.conf import settings

LOCALE = Path(settings.BASE_DIR) / "locale"


def _catalog_tools():
    spec = importlib.util.spec_from_file_location("fill_catalogs", LOCALE / "fill_catalogs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _po_entries(path: Path) -> list[tuple[str | None, str, list[str]]]:
    tools = _catalog_tools()
    entries = []
    for lines in tools._entries(path.read_text(encoding="utf-8")):
        _comments, fields = tools._fields(lines)
        msgid = tools._unquote(fields.get("msgid", ['""']))
        if not msgid:
            continue
        context = tools._unquote(fields["msgctxt"]) if "msgctxt" in fields else None
        strings = [tools._unquote(v) for k, v in sorted(fields.items()) if k.startswith("msgstr")]
        entries.append((context, msgid, strings))
    return entries


def test_german_catalog_is_complete():
    assert _catalog_tools().missing_german(LOCALE / "de" / "LC_MESSAGES" / "django.po") == []


def test_compiled_catalogs_match_the_po_files():
    for language in ("de", "en"):
        folder = LOCALE / language / "LC_MESSAGES"
        with (folder / "django.mo").open("rb") as handle:
            compiled = gettext.GNUTranslations(handle)
        for context, msgid, strings in _po_entries(folder / "django.po"):
            if len(strings) == 1:
                got = compiled.pgettext(context, msgid) if context else compiled.gettext(msgid)
                assert got == strings[0], (language, msgid)
            else:
                assert compiled.ngettext(msgid, "x", 1) == strings[0], (language, msgid)
