"""The content endpoints that also show the signed-in learner's progress: the module with its
outline (and the learner's status on each step) and the step. Readable without log-in (open
courseware).

Reading changes nothing: a GET (or its 304) records no progress, so an app may prefetch a whole
module without moving the learner's resume point. Opening a step is the explicit ``opened``
event (``POST …/steps/{n}/progress/``), which the web reader sends too (README, "API").

They live here, not in courses.rest: content knows nothing of learners, so the view that joins
the two sits in the app that owns the learner's side (the one import-linter exception that lets
progress.rest use courses.rest's serializers and courses.selectors; see ARCHITECTURE.md).
"""

from django.core.cache import cache
from django.http import HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_cache_control, patch_vary_headers
from drf_spectacular.utils import extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from courses.rest.serializers import StepDetailSerializer
from courses.selectors import CONTENT_CACHE_SECONDS, module_get, step_etag, step_get
from lms.errors import StepNotFound
from lms.etags import (
    IF_NONE_MATCH,
    NOT_MODIFIED,
    etag_header,
    etag_matches,
    etag_of,
    not_modified_or,
    with_etag,
)
from lms.openapi import error_codes
from progress.rest.serializers import ModuleDetailWithProgressSerializer
from progress.selectors import outline_status_get


class ModuleDetailView(APIView):
    """The module with its outline; its ETag is a hash of the body, so it changes with the
    content and with the learner's progress (``If-None-Match`` → ``304``)."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="A module with its outline (and my status on each step)",
        parameters=[IF_NONE_MATCH, etag_header(200, 304)],
        responses={200: ModuleDetailWithProgressSerializer, 304: NOT_MODIFIED},
        extensions=error_codes({404: ["module_not_found"]}),
    )
    def get(self, request, module: str):
        content = module_get(slug=module)
        # An enrolled learner also sees the status of each step.
        outline_status = None
        if request.user.is_authenticated:
            outline_status = outline_status_get(
                learner_id=request.user.pk,
                module_slug=content.slug,
                module_id=content.pk,
                steps=content.active_steps,
            )
        body = _renderer.render(
            ModuleDetailWithProgressSerializer(
                content, context={"outline_status": outline_status}
            ).data
        )
        response = not_modified_or(
            request, etag=etag_of(body), body=body, content_type=_renderer.media_type
        )
        # Each learner's outline shows their own status: no shared cache may keep it.
        patch_vary_headers(response, ["Authorization"])
        if request.user.is_authenticated:
            patch_cache_control(response, private=True)
        return response


_renderer = JSONRenderer()


class StepDetailView(APIView):
    """A step with its sections; ``If-None-Match`` with the current ETag gets ``304``."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="A step with its sections, quick checks and term card",
        parameters=[IF_NONE_MATCH, etag_header(200, 304)],
        responses={200: StepDetailSerializer, 304: NOT_MODIFIED},
        extensions=error_codes({404: ["module_not_found", "step_not_found"]}),
    )
    def get(self, request, module: str, number: int):
        etag = step_etag(module_slug=module, number=number)
        if etag is None:
            raise StepNotFound(module, number)
        if etag_matches(request.headers.get("If-None-Match"), etag):
            return with_etag(HttpResponseNotModified(), etag)
        # The body is a function of the step's ETag (a hash of everything it shows): kept
        # rendered in the shared cache under it.
        body = cache.get(f"courses:step-body:{module}:{number}:{etag}")
        if body is None:
            content = step_get(module_slug=module, number=number)
            body = _renderer.render(StepDetailSerializer(content).data)
            # The ETag of what was read now (an import may have changed the step meanwhile).
            etag = content.etag
            cache.set(f"courses:step-body:{module}:{number}:{etag}", body, CONTENT_CACHE_SECONDS)
        return with_etag(HttpResponse(body, content_type=_renderer.media_type), etag)
