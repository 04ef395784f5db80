"""Compression of the API's JSON responses: brotli when the client asks for it, else gzip.

Safe from BREACH because only JSON is compressed: HTML pages (CSRF token plus reflected input),
a log-in token (``never_compress``) and downloads are not, and no JSON body carries the CSRF
token; cross-site pages cannot fetch the rest authenticated (token auth, ``SameSite=Lax``).
gzip keeps Django's random-length header. The API's ETags are weak already (lms/etags.py); any
other strong one goes weak when compressed.
"""

from __future__ import annotations

import brotli
from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import patch_vary_headers

# Below this a compressed body saves nothing worth the CPU (Django's GZipMiddleware uses 200).
MIN_SIZE = 200
# Brotli quality: 11 costs ~20x the CPU of 5 for a few percent; 5 is about gzip's speed.
BROTLI_QUALITY = 5
_COMPRESSED_TYPES = ("application/json", "application/vnd.oai.openapi")


def never_compress(response: HttpResponseBase) -> HttpResponseBase:
    """Mark a response that carries a secret (a log-in token): it leaves uncompressed."""
    response.carries_secret = True
    return response


def accepted_encoding(header: str) -> str | None:
    """The encoding for an ``Accept-Encoding`` header ("br", "gzip" or None), honouring
    q-values and ``*``; brotli wins a tie."""
    weights: dict[str, float] = {}
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        name = name.strip().lower()
        if not name:
            continue
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        weights[name] = weight
    wildcard = weights.get("*", 0.0)
    best, best_weight = None, 0.0
    for encoding in ("br", "gzip"):
        weight = weights.get(encoding, wildcard)
        if weight > best_weight:
            best, best_weight = encoding, weight
    return best


def _compressible(response: HttpResponseBase) -> bool:
    content_type = response.get("Content-Type", "").split(";")[0].strip().lower()
    is_json = content_type in _COMPRESSED_TYPES or content_type.endswith("+json")
    return (
        is_json
        and not getattr(response, "carries_secret", False)
        and not response.get("Content-Disposition", "").lower().startswith("attachment")
        and not response.has_header("Content-Encoding")
    )


class CompressionMiddleware(GZipMiddleware):
    """Django's GZipMiddleware for JSON only, with brotli for clients that accept it."""

    def process_response(self, request: HttpRequest, response: HttpResponseBase):
        if not _compressible(response):
            return response
        if not response.streaming and len(response.content) < MIN_SIZE:
            return response
        encoding = accepted_encoding(request.META.get("HTTP_ACCEPT_ENCODING", ""))
        if encoding == "gzip":
            # Django's own path, with its random-length header.
            return super().process_response(request, response)
        patch_vary_headers(response, ("Accept-Encoding",))
        if encoding != "br" or response.streaming:
            return response
        compressed = brotli.compress(response.content, quality=BROTLI_QUALITY)
        if len(compressed) >= len(response.content):
            return response
        response.content = compressed
        response.headers["Content-Length"] = str(len(compressed))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):
            response.headers["ETag"] = "W/" + etag
        response.headers["Content-Encoding"] = "br"
        return response
