"""Error views: JSON for the API, plain pages elsewhere."""

from django.http import HttpResponse, JsonResponse

from lms.errors import error_body


def page_not_found(request, exception=None):
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("not_found", "Not found."), status=404)
    return HttpResponse("<h1>404</h1><p>Seite nicht gefunden.</p>", status=404)


def server_error(request):
    if request.path.startswith("/api/"):
        return JsonResponse(error_body("server_error", "Internal server error."), status=500)
    return HttpResponse("<h1>500</h1><p>Interner Fehler.</p>", status=500)
