"""Error views (JSON for the API, plain pages elsewhere) and the health endpoints, which
``lms.middleware.HealthCheckMiddleware`` answers before any other middleware (English: for logs).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db import Error as DatabaseError
from django.http import HttpResponse, JsonResponse
from django.template import TemplateDoesNotExist, loader
from kombu import Connection
from kombu.exceptions import KombuError

from lms.errors import error_body

logger = logging.getLogger(__name__)

# Seconds the readiness check waits for the broker (compose gives the whole check 5 s).
BROKER_CHECK_TIMEOUT = 2.0


ERROR_TEMPLATES = "web/errors/{status}.html"


def error_page(request, *, status: int, fallback: str, context: dict | None = None) -> HttpResponse:
    """The styled error page for ``status``, else ``fallback``. A 500 renders without context
    processors, so a broken database cannot break the error page too."""
    name = ERROR_TEMPLATES.format(status=status)
    try:
        if status >= 500:
            body = loader.get_template(name).render({"status": status, **(context or {})})
        else:
            body = loader.render_to_string(
                name, {"status": status, **(context or {})}, request=request
            )
    except TemplateDoesNotExist:
        body = fallback
    except Exception:  # the page about an error must not become a second one
        logger.exception("error page %s could not be rendered", status)
        body = fallback
    return HttpResponse(body, status=status)


def page_not_found(request, exception=None):
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("not_found", "Not found."), status=404)
    return error_page(request, status=404, fallback="<h1>404</h1><p>Seite nicht gefunden.</p>")


def permission_denied(request, exception=None):
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("permission_denied", "Permission denied."), status=403)
    return error_page(request, status=403, fallback="<h1>403</h1><p>Kein Zugriff.</p>")


def server_error(request):
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("server_error", "Internal server error."), status=500)
    return error_page(request, status=500, fallback="<h1>500</h1><p>Interner Fehler.</p>")


def too_many_requests(request, *, message: str, retry_after: int) -> HttpResponse:
    """A 429 page for a throttled form (``lms.middleware.FormThrottleMiddleware``)."""
    response = error_page(
        request,
        status=429,
        fallback=message,
        context={"message": message, "retry_after": retry_after},
    )
    response["Retry-After"] = str(retry_after)
    return response


def health_live(request) -> JsonResponse:
    """Liveness: touches neither database nor broker, so their outage restarts no container."""
    return JsonResponse({"status": "live"})


def _database_reachable() -> bool:
    try:
        with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.warning("readiness: database unreachable", exc_info=True)
        return False
    return True


def _broker_reachable() -> bool:
    transport_options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {})
    try:
        with Connection(
            settings.CELERY_BROKER_URL,
            connect_timeout=BROKER_CHECK_TIMEOUT,
            transport_options=transport_options,
        ) as broker:
            broker.ensure_connection(max_retries=1, interval_start=0, timeout=BROKER_CHECK_TIMEOUT)
    except (KombuError, OSError):
        logger.warning("readiness: broker unreachable", exc_info=True)
        return False
    return True


def health_ready(request) -> JsonResponse:
    """Readiness: 200 when database and broker answer, else 503 naming each that failed."""
    checks = {
        "database": "ok" if _database_reachable() else "unreachable",
        "broker": "ok" if _broker_reachable() else "unreachable",
    }
    failed = [name for name, state in checks.items() if state != "ok"]
    if failed:
        body = error_body(
            "not_ready",
            "Not ready: " + " and ".join(failed) + " unreachable.",
            detail={"failed": failed, "checks": checks},
        )
        return JsonResponse(body, status=503)
    return JsonResponse({"status": "ready", "checks": checks})
