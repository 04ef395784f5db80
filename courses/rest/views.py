"""Content API: the module list and term cards. Readable without log-in (open courseware).

The module detail and the step, which also show or record the signed-in learner's progress,
are served by progress.rest.content_views.
"""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics
from rest_framework.permissions import AllowAny

from courses.rest.serializers import ModuleListSerializer, TermCardSerializer
from courses.selectors import module_id_get, module_list, term_card_list
from lms.openapi import error_codes


@extend_schema_view(get=extend_schema(summary="The modules of the course"))
class ModuleListView(generics.ListAPIView):
    permission_classes = [AllowAny]
    serializer_class = ModuleListSerializer

    def get_queryset(self):
        return module_list()


@extend_schema_view(
    get=extend_schema(
        summary="The module's term cards",
        extensions=error_codes({404: ["module_not_found"]}),
    )
)
class TermCardListView(generics.ListAPIView):
    permission_classes = [AllowAny]
    serializer_class = TermCardSerializer
    pagination_class = None

    def get_queryset(self):
        module_id_get(slug=self.kwargs["module"])
        return term_card_list(module_slug=self.kwargs["module"])
