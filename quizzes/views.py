"""The public certificate verification page: anyone holding the code can check a certificate."""

from django.http import Http404
from django.shortcuts import render
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from quizzes.selectors import certificate_by_code


@require_safe
# Not stored for reuse without asking: a revoked certificate (deleted by an admin or with its
# account) must stop verifying at once; it was "public, max-age=300", five more minutes.
@cache_control(no_cache=True)
def certificate_verify(request, code: str):
    """Name, module, date and score of the certificate with this code; 404 for any other code."""
    certificate = certificate_by_code(code=code)
    if certificate is None:
        raise Http404("unknown certificate")
    return render(request, "quizzes/certificate_verify.html", {"certificate": certificate})
