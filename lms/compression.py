"""Compression of the API's JSON responses: brotli when the client asks for it, else gzip.

What is compressed, and why that is safe from BREACH
----------------------------------------------------
BREACH reads a secret out of a compressed response by its length: it needs (1) a secret in
the body, (2) input of the attacker's reflected in the same body, and (3) a victim's browser
that the attacker can make send many authenticated requests while watching their sizes.

- Only JSON (``application/json``, ``…+json``) and the OpenAPI schema are compressed. HTML
  pages are not: they carry the CSRF token in their forms and reflect input (``?next=``, form
  values), which is (1) and (2) together. Static files come compressed from whitenoise; they
  hold no secret.
- No JSON body of this API carries the CSRF token (DRF reads it from the cookie and the
  ``X-CSRFToken`` header). The one body that carries a credential, the token a log-in issues
  (``POST /api/v1/auth/token/``), is never compressed (``never_compress``); nor are downloads
  (``Content-Disposition: attachment``, the data export).
- The remaining bodies hold the learner's own data, not a credential, and (3) fails for them:
  an API token is never sent by a browser on its own, and the session cookie is ``SameSite=Lax``
  (production settings), so a cross-site page cannot make the victim's browser fetch them
  authenticated.
- gzip keeps Django's own mitigation (``GZipMiddleware``: up to 100 random bytes in the gzip
  header, so lengths are noisy); brotli has no header to pad, which is why it is used only for
  the same bodies gzip would compress, never for an exception to the rules above.

Each compressed response gets ``Vary: Accept-Encoding`` and a weak ETag (``W/"…"``, RFC 9110
8.8.1); ``lms.etags`` matches the weak form, so ``If-None-Match`` works through compression.
"""

from __future__ import annotations

import brotli
from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import patch_vary_headers
from django.utils.text import compress_string

# Below this a compressed body saves nothing worth the CPU (Django's GZipMiddleware uses 200).
MIN_SIZE = 200
# Brotli quality: 11 costs ~20x the CPU of 5 for a few percent; 5 is about gzip's speed and
# already smaller (bench/README.md, the bundle line).
BROTLI_QUALITY = 5
_COMPRESSED_TYPES = ("application/json", "application/vnd.oai.openapi")


def never_compress(response: HttpResponseBase) -> HttpResponseBase:
    """Mark a response that carries a secret (a log-in token): it leaves uncompressed."""
    response.carries_secret = True
    return response


def accepted_encoding(header: str) -> str | None:
    """The encoding to use for an ``Accept-Encoding`` header: "br", "gzip" or None.

    Honours q-values (``gzip;q=0`` refuses gzip) and ``*``; of two equally acceptable
    encodings brotli wins (smaller)."""
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
            # Django's own path (with its random-length header), which checks the header again
            # by a regular expression: it sees "gzip" in it.
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


def precompressed(request: HttpRequest, response: HttpResponseBase, *, cache, key) -> None:
    """Compress a body that is a pure function of ``key`` once per encoding and keep it in
    ``cache`` (an ``lms.content_cache.ContentCache``), instead of on every request. For public
    content only (the module bundle): a kept gzip body has a fixed length per version, which is
    harmless where the body carries no secret (see above). The middleware then leaves the
    response alone (it has a Content-Encoding)."""
    if not _compressible(response) or len(response.content) < MIN_SIZE:
        return
    patch_vary_headers(response, ("Accept-Encoding",))
    encoding = accepted_encoding(request.META.get("HTTP_ACCEPT_ENCODING", ""))
    if encoding is None:
        return
    compressed = cache.get((key, encoding))
    if compressed is None:
        if encoding == "br":
            compressed = brotli.compress(response.content, quality=BROTLI_QUALITY)
        else:
            compressed = compress_string(response.content)
        cache.put((key, encoding), compressed)
    if len(compressed) >= len(response.content):
        return
    response.content = compressed
    response.headers["Content-Length"] = str(len(compressed))
    etag = response.get("ETag")
    if etag and etag.startswith('"'):
        response.headers["ETag"] = "W/" + etag
    response.headers["Content-Encoding"] = encoding
