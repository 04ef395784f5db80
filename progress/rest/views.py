"""Personal API of the progress app: enrollment, progress, offline sync and notes.

Everything here needs log-in (the default permission) and only ever reads or writes the
requesting learner's own rows.
"""

from django.urls import reverse
from django.utils import timezone
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, status
from rest_framework.response import Response
from rest_framework.views import APIView

from lms.etags import IF_MATCH, etag_header, with_etag
from lms.openapi import error_codes
from progress import selectors as progress_selectors
from progress.rest.serializers import (
    CompletionRefusedErrorSerializer,
    EnrollmentSerializer,
    ModuleProgressSerializer,
    NotesConflictErrorSerializer,
    StepEventSerializer,
    StepNotesSerializer,
    StepProgressStateSerializer,
    SyncRequestSerializer,
    SyncResponseSerializer,
)
from progress.services import enrollment as enrollment_services
from progress.services import notes as notes_services
from progress.services import step_events as step_event_services
from progress.services import sync as sync_services
from progress.services.step_events import COMPLETION_REFUSED

_MODULE_NOT_FOUND = ["module_not_found", "not_enrolled"]
_STEP_NOT_FOUND = ["module_not_found", "step_not_found", "not_enrolled"]


@extend_schema_view(get=extend_schema(summary="My enrollments with progress counts"))
class EnrollmentListView(generics.ListAPIView):
    """My enrollments with progress counts (paginated)."""

    serializer_class = EnrollmentSerializer

    def get_queryset(self):
        return progress_selectors.enrollment_list(learner_id=self.request.user.pk)


class EnrollmentView(APIView):
    """My enrollment in one module."""

    @extend_schema(
        responses=EnrollmentSerializer,
        summary="My enrollment in this module",
        extensions=error_codes({404: _MODULE_NOT_FOUND}),
    )
    def get(self, request, module: str):
        enrollment = progress_selectors.enrollment_get(
            learner_id=request.user.pk, module_slug=module
        )
        return Response(EnrollmentSerializer(enrollment).data)

    @extend_schema(
        request=None,
        responses={201: EnrollmentSerializer, 200: EnrollmentSerializer},
        parameters=[
            OpenApiParameter(
                "Location",
                location=OpenApiParameter.HEADER,
                response=[201],
                description="The enrollment (relative to the server).",
            )
        ],
        summary="Enroll in this module (201 the first time, 200 after)",
        extensions=error_codes({404: ["module_not_found"]}),
    )
    def post(self, request, module: str):
        _, created = enrollment_services.enrollment_create(
            learner_id=request.user.pk, module_slug=module
        )
        enrollment = progress_selectors.enrollment_get(
            learner_id=request.user.pk, module_slug=module
        )
        return Response(
            EnrollmentSerializer(enrollment).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
            headers={"Location": reverse("enrollment", args=[module])} if created else None,
        )

    @extend_schema(
        responses={204: OpenApiResponse(description="Unenrolled; progress and notes are kept")},
        summary="Unenroll from this module",
        extensions=error_codes({404: _MODULE_NOT_FOUND}),
    )
    def delete(self, request, module: str):
        enrollment_services.enrollment_delete(learner_id=request.user.pk, module_slug=module)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ModuleProgressView(APIView):
    @extend_schema(
        responses=ModuleProgressSerializer,
        summary="My progress in this module",
        extensions=error_codes({404: _MODULE_NOT_FOUND}),
    )
    def get(self, request, module: str):
        progress = progress_selectors.module_progress_get(
            learner_id=request.user.pk, module_slug=module
        )
        return Response(ModuleProgressSerializer(progress).data)


class StepProgressEventView(APIView):
    @extend_schema(
        request=StepEventSerializer,
        responses={
            200: StepProgressStateSerializer,
            409: OpenApiResponse(
                CompletionRefusedErrorSerializer,
                description="`completed` before the evidence the module's rule asks for: "
                "`error.detail` lists the sections not seen, the quick checks not answered and "
                "the seconds left; nothing is recorded.",
            ),
        },
        summary="Record a progress event for this step (idempotent)",
        description=(
            "Events: opened, section_viewed (with the section kind), completed, reopened. "
            "`completed` applies only with the evidence the module's rule asks for (by default "
            "every section seen, every rated quick check answered, and a share of the step's "
            "reading time passed since the first event on the step), else 409 "
            "`completion_evidence_missing` listing every missing part. The offline sync "
            "applies the same rule with the events' client times."
        ),
        extensions=error_codes(
            {
                400: ["unknown_section", "unknown_event"],
                404: _STEP_NOT_FOUND,
                409: [COMPLETION_REFUSED],
            }
        ),
    )
    def post(self, request, module: str, number: int):
        serializer = StepEventSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        outcome = step_event_services.step_event_record(
            learner_id=request.user.pk,
            module_slug=module,
            number=number,
            kind=serializer.validated_data["event"],
            section=serializer.validated_data["section"],
        )
        payload = StepProgressStateSerializer.payload(module=module, number=number, outcome=outcome)
        return Response(StepProgressStateSerializer(payload).data)


class ProgressSyncView(APIView):
    @extend_schema(
        request=SyncRequestSerializer,
        responses={200: SyncResponseSerializer},
        summary="Apply progress events recorded offline",
        description=(
            "Each event: client_event_id, event, module, step, section (for section_viewed), "
            "occurred_at (ISO 8601 with offset). Replays are ignored, events apply in "
            "occurred_at order, a bad event is rejected with its reason while the rest apply. "
            "At most 500 events per request. `server_time` is the server's clock, to check the "
            "app's against the 5-minute rule. A rejected event's `error.code` is one of "
            "SyncError's codes; the batch itself is refused only when too large."
        ),
        extensions=error_codes({400: ["batch_too_large"]}),
    )
    def post(self, request):
        serializer = SyncRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        results = sync_services.progress_sync(
            learner_id=request.user.pk, events=serializer.validated_data["events"]
        )
        payload = SyncResponseSerializer.payload(results, server_time=timezone.now())
        return Response(SyncResponseSerializer(payload).data)


_NOTES_DESCRIPTION = (
    "Sets the prompts given (praxisaufgabe, lernauftrag); an empty text deletes that note; "
    "prompts left out stay as they are. With `If-Match` (the `ETag` of the last read or write) "
    "the write applies only while the notes are still that version; otherwise `412` "
    "`notes_changed` with the current texts and their `etag` in `error.detail`, and nothing "
    "is written. Without `If-Match` the last write wins. PATCH is the same as PUT."
)
_NOTES_WRITE_SCHEMA = {
    "request": StepNotesSerializer,
    "parameters": [IF_MATCH, etag_header(200)],
    "responses": {
        200: StepNotesSerializer,
        412: OpenApiResponse(
            NotesConflictErrorSerializer,
            description="The notes changed since the version `If-Match` names (another "
            "device wrote them); `error.detail` holds the current version.",
        ),
    },
    "description": _NOTES_DESCRIPTION,
    "extensions": error_codes(
        {
            400: ["unknown_prompt", "note_too_long", "prompt_not_in_step"],
            404: _STEP_NOT_FOUND,
            412: ["notes_changed"],
        }
    ),
}


class StepNotesView(APIView):
    """My notes on a step, with optimistic concurrency: the ``ETag`` of a read goes back as
    ``If-Match`` on a write (a phone and a browser editing the same note)."""

    @extend_schema(
        responses=StepNotesSerializer,
        parameters=[etag_header(200)],
        summary="My notes on this step",
        extensions=error_codes({404: _STEP_NOT_FOUND}),
    )
    def get(self, request, module: str, number: int):
        notes = progress_selectors.step_notes_get(
            learner_id=request.user.pk, module_slug=module, number=number
        )
        response = Response(StepNotesSerializer(StepNotesSerializer.payload(notes)).data)
        return with_etag(response, notes.etag)

    @extend_schema(summary="Write my notes on this step", **_NOTES_WRITE_SCHEMA)
    def put(self, request, module: str, number: int):
        serializer = StepNotesSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        notes = notes_services.step_notes_put(
            learner_id=request.user.pk,
            module_slug=module,
            number=number,
            notes=serializer.validated_data,
            if_match=request.headers.get("If-Match"),
        )
        result = progress_selectors.StepNotes(module_slug=module, number=number, notes=notes)
        response = Response(StepNotesSerializer(StepNotesSerializer.payload(result)).data)
        return with_etag(response, result.etag)

    @extend_schema(summary="Write my notes on this step (as PUT)", **_NOTES_WRITE_SCHEMA)
    def patch(self, request, module: str, number: int):
        return self.put(request, module, number)
