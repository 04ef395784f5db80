"""A certificate as an A4 PDF (fpdf2) with a vector QR code of its verification URL.
Set in DejaVu Sans (``LERNPFAD_PDF_FONT_DIR``) for any letter; without it, Helvetica (Latin-1)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from pathlib import Path

import segno
from django.conf import settings
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from fpdf import FPDF

from lms.local_time import zone_info
from quizzes.data import CertificateView

FONT_FAMILY = "DejaVuSans"
FONT_FILES = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf"}
FALLBACK_FAMILY = "helvetica"
# The QR code's error correction: "M" recovers 15 % of the symbol (a folded or stamped print).
QR_ERROR = "m"
QR_SIZE_MM = 42.0
QR_QUIET_ZONE = 4  # modules of white around the symbol, as ISO/IEC 18004 asks


@dataclass(frozen=True)
class PdfFont:
    family: str
    unicode: bool


def font_paths() -> dict[str, Path]:
    """The font file of each style ("" regular, "B" bold) in ``LERNPFAD_PDF_FONT_DIR``."""
    directory = Path(settings.LERNPFAD_PDF_FONT_DIR)
    return {style: directory / name for style, name in FONT_FILES.items()}


def fonts_available() -> bool:
    return all(path.is_file() for path in font_paths().values())


def _font_register(pdf: FPDF) -> PdfFont:
    if fonts_available():
        for style, path in font_paths().items():
            pdf.add_font(FONT_FAMILY, style, str(path))
        return PdfFont(family=FONT_FAMILY, unicode=True)
    return PdfFont(family=FALLBACK_FAMILY, unicode=False)


def _printable(text: str, font: PdfFont) -> str:
    """``text`` as the font can print it: unchanged for the Unicode font; for the core font,
    letters outside Latin-1 without their accents (Ł stays unprintable: "?")."""
    if font.unicode:
        return text
    out = []
    for char in text:
        if ord(char) < 256:
            out.append(char)
            continue
        base = "".join(
            c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c)
        )
        out.append(base if base and all(ord(c) < 256 for c in base) else "?")
    return "".join(out)


def qr_matrix(url: str) -> tuple[tuple[bool, ...], ...]:
    """The QR code of ``url`` as rows of dark (True) and light modules, quiet zone included."""
    qr = segno.make(url, error=QR_ERROR, micro=False)
    return tuple(
        tuple(bool(module) for module in row) for row in qr.matrix_iter(border=QR_QUIET_ZONE)
    )


def _qr_draw(pdf: FPDF, matrix: tuple[tuple[bool, ...], ...], *, x: float, y: float) -> None:
    module = QR_SIZE_MM / len(matrix)
    pdf.set_fill_color(0, 0, 0)
    for row_index, row in enumerate(matrix):
        # One rectangle per run of dark modules in a row: fewer drawing operations.
        start = None
        for column, dark in enumerate((*row, False)):
            if dark and start is None:
                start = column
            elif not dark and start is not None:
                pdf.rect(
                    x + start * module,
                    y + row_index * module,
                    (column - start) * module,
                    module,
                    style="F",
                )
                start = None


def certificate_pdf(certificate: CertificateView, *, time_zone: str | None = None) -> bytes:
    """The certificate as PDF bytes, in the active language; the date in ``time_zone`` (the
    learner's; default: the server's)."""
    pdf = FPDF(orientation="landscape", unit="mm", format="A4")
    pdf.set_auto_page_break(auto=False)
    pdf.set_margins(20, 20, 20)
    font = _font_register(pdf)
    title = _("Certificate")
    pdf.set_title(_printable(f"{title} – {certificate.module_title}", font))
    pdf.set_author("Lernpfad")
    pdf.set_creator("Lernpfad")
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin

    # A frame around the page, as on a printed certificate.
    pdf.set_draw_color(37, 99, 235)
    pdf.set_line_width(1.2)
    pdf.rect(10, 10, pdf.w - 20, pdf.h - 20)
    pdf.set_line_width(0.3)
    pdf.rect(13, 13, pdf.w - 26, pdf.h - 26)

    def line(text: str, *, size: float, style: str = "", height: float, gap: float = 0) -> None:
        pdf.set_font(font.family, style, size)
        pdf.set_x(pdf.l_margin)
        pdf.multi_cell(width, height, _printable(text, font), align="C")
        if gap:
            pdf.ln(gap)

    pdf.set_y(26)
    pdf.set_text_color(37, 99, 235)
    line("Lernpfad", size=13, style="B", height=7, gap=4)
    pdf.set_text_color(17, 24, 39)
    line(title, size=34, style="B", height=15, gap=6)
    line(_("This certifies that"), size=14, height=8, gap=2)
    line(certificate.learner_name, size=28, style="B", height=13, gap=3)
    line(_("passed the final exam of the module"), size=14, height=8, gap=2)
    line(certificate.module_title, size=18, style="B", height=9, gap=3)
    zone = zone_info(time_zone) if time_zone else timezone.get_default_timezone()
    issued = timezone.localtime(certificate.issued_at, zone)
    line(
        _("with %(score)s %% on %(date)s.")
        % {
            "score": formats.number_format(certificate.score_percent, decimal_pos=0),
            "date": formats.date_format(issued, "DATE_FORMAT"),
        },
        size=14,
        height=8,
    )

    # Bottom: how to check it, and the QR code of the verification page.
    qr_x = pdf.w - pdf.r_margin - QR_SIZE_MM - 4
    qr_y = pdf.h - 20 - QR_SIZE_MM - 4
    _qr_draw(pdf, qr_matrix(certificate.url), x=qr_x, y=qr_y)
    pdf.set_text_color(75, 85, 99)
    pdf.set_xy(pdf.l_margin + 4, qr_y + 6)
    text_width = qr_x - pdf.l_margin - 12
    pdf.set_font(font.family, "", 10)
    pdf.multi_cell(
        text_width,
        5.5,
        _printable(_("Anyone can check this certificate at"), font),
        align="L",
    )
    pdf.set_x(pdf.l_margin + 4)
    pdf.set_text_color(37, 99, 235)
    pdf.multi_cell(
        text_width, 5.5, _printable(certificate.url, font), align="L", link=certificate.url
    )
    pdf.set_text_color(75, 85, 99)
    pdf.set_x(pdf.l_margin + 4)
    pdf.multi_cell(
        text_width,
        5.5,
        _printable(_("Certificate code: %(code)s") % {"code": certificate.code}, font),
        align="L",
    )
    return bytes(pdf.output())
