"""Content API readable without log-in: the module list, term cards and the module bundle.
Nothing here knows of learners, so each ETag is a pure function of the content.
"""

from django.http import HttpResponse, HttpResponseNotModified
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from courses.rest.serializers import (
    BundleQuerySerializer,
    ModuleBundleSerializer,
    ModuleListSerializer,
    TermCardSerializer,
)
from courses.selectors import (
    module_bundle_get,
    module_id_get,
    module_list,
    module_manifest_find,
    module_manifest_get,
    term_card_list,
)
from courses.services.content_versions import module_version_record
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

_renderer = JSONRenderer()


class ModuleListView(generics.ListAPIView):
    permission_classes = [AllowAny]
    serializer_class = ModuleListSerializer

    @extend_schema(summary="Modules")
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        return module_list()


class TermCardListView(generics.ListAPIView):
    """The module's term cards; the ETag is a hash of the body."""

    permission_classes = [AllowAny]
    serializer_class = TermCardSerializer
    pagination_class = None

    @extend_schema(
        summary="The module's term cards",
        parameters=[IF_NONE_MATCH, etag_header(200, 304)],
        extensions=error_codes({404: ["module_not_found"]}),
        responses={200: TermCardSerializer(many=True), 304: NOT_MODIFIED},
    )
    def get(self, request, module: str):
        module_id_get(slug=module)
        cards = term_card_list(module_slug=module)
        body = _renderer.render(TermCardSerializer(cards, many=True).data)
        return not_modified_or(
            request, etag=etag_of(body), body=body, content_type=_renderer.media_type
        )


class ModuleBundleView(APIView):
    """A whole module in one request, for an app that works offline."""

    permission_classes = [AllowAny]

    @extend_schema(
        summary="The whole module for offline use (outline, steps, term cards, quick checks)",
        description=(
            "One request instead of one per step: the outline with each step's `content_hash` "
            "(its ETag without quotes), every active step as `GET …/steps/{number}/` gives it, "
            "the term cards and the quick checks with their role. `version` changes whenever "
            "any of it changes; it is also the ETag (`If-None-Match` → `304`). With "
            "`?since=<version>` the steps, term cards and quick checks that changed since that "
            "version are sent (the outline always whole) and `removed` lists what is gone; "
            "a version the server does not know (any more) gets the whole bundle "
            "(`delta: false`). Reading records no progress."
        ),
        parameters=[
            IF_NONE_MATCH,
            etag_header(200, 304),
            OpenApiParameter(
                "since",
                OpenApiTypes.STR,
                pattern="^[0-9a-f]{24}$",
                description="The `version` of the bundle the client holds: send only changes. "
                "Not 24 hex digits: `400`.",
            ),
        ],
        responses={200: ModuleBundleSerializer, 304: NOT_MODIFIED},
        extensions=error_codes({404: ["module_not_found"]}),
    )
    def get(self, request, module: str):
        query = BundleQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)  # a bad ?since= is a 400, also with If-None-Match
        since = query.validated_data.get("since", "")
        manifest = module_manifest_get(slug=module)
        etag = f'"{manifest.version}"'
        if etag_matches(request.headers.get("If-None-Match"), etag):
            return with_etag(HttpResponseNotModified(), etag)
        module_version_record(manifest=manifest)
        before = None
        if since:
            before = module_manifest_find(module_id=manifest.module_id, version=since)
        bundle = module_bundle_get(manifest=manifest, since=before)
        body = _renderer.render(ModuleBundleSerializer(bundle).data)
        return with_etag(HttpResponse(body, content_type=_renderer.media_type), etag)
