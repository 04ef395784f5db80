"""The API's ETags: making one and matching ``If-None-Match``/``If-Match``. Each tag hashes what
the body means, not its bytes, so every response carries the weak form (``W/"…"``): the same on a
``200``, compressed or not, and on the ``304`` for the same request. The strong form a client may
still hold matches as well.
"""

from __future__ import annotations

import hashlib

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_cache_control
from django.utils.http import parse_etags
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse


def etag_of(body: bytes) -> str:
    """A strong ETag for a rendered body (24 hex digits of its SHA-256)."""
    return f'"{hashlib.sha256(body).hexdigest()[:24]}"'


def _opaque(tag: str) -> str:
    return tag[2:] if tag.startswith("W/") else tag


def etag_matches(header: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` or ``If-Match`` header names ``etag`` (``*`` names any)."""
    if not header:
        return False
    tags = parse_etags(header)
    return "*" in tags or _opaque(etag) in {_opaque(tag) for tag in tags}


def not_modified_or(request: HttpRequest, *, etag: str, body: bytes, content_type: str):
    """``304`` when ``If-None-Match`` names ``etag``, else the body with its ETag; either way
    ``Cache-Control: no-cache``: a client keeps the body and asks again."""
    if etag_matches(request.headers.get("If-None-Match"), etag):
        return with_etag(HttpResponseNotModified(), etag)
    return with_etag(HttpResponse(body, content_type=content_type), etag)


def weak(etag: str) -> str:
    """``W/"…"``: compression would weaken a strong tag on a 200 (lms/compression.py, Django's
    GZipMiddleware), never on the 304 without a body; weak from the start, both say the same."""
    return etag if etag.startswith("W/") else "W/" + etag


def with_etag(response: HttpResponse, etag: str) -> HttpResponse:
    response["ETag"] = weak(etag)
    patch_cache_control(response, no_cache=True)
    return response


# --- how the schema declares them -----------------------------------------------------------

IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="The ETag of the copy the client holds: `304` without a body while it is "
    'current. A weak tag (`W/"…"`, as compressed responses carry) matches too.',
)
IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="The ETag the client last read: the write applies only while it is current, "
    "else `412` with the current version. Without the header the last write wins.",
)


def etag_header(*statuses: int) -> OpenApiParameter:
    """The ``ETag`` response header, on the given statuses."""
    return OpenApiParameter(
        "ETag",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        response=list(statuses),
        description="The version of this representation; send it back in `If-None-Match` "
        "(reads) or `If-Match` (writes).",
    )


NOT_MODIFIED = OpenApiResponse(description="Not modified: the client's copy is current (no body).")
