"""Quick checks, exam and certificates over REST. Another learner's attempt is a 404, never
a 403, so attempt ids reveal nothing."""

import dataclasses

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import generics, status
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from accounts import api as accounts_api
from lms.downloads import private_download
from lms.errors import NotFound
from lms.openapi import error_codes
from quizzes import selectors
from quizzes.attempt_rules import seconds_left
from quizzes.eligibility import REASON_CODES
from quizzes.rest.serializers import (
    AnswersInputSerializer,
    AttemptSerializer,
    CertificateSerializer,
    CertificateVerificationSerializer,
    ExamOverviewSerializer,
    QuickCheckRatingSerializer,
    RatingInputSerializer,
    ResultSerializer,
    SavedAnswersSerializer,
    StepQuickCheckSerializer,
)
from quizzes.services.attempt_answers import exam_attempt_answers_save
from quizzes.services.attempt_finalize import exam_attempt_submit
from quizzes.services.attempt_start import exam_attempt_start
from quizzes.services.quick_checks import quick_check_rate

_MODULE_NOT_FOUND = ["module_not_found", "not_enrolled"]
_STEP_NOT_FOUND = ["module_not_found", "step_not_found", "not_enrolled"]
_LOCATION = OpenApiParameter(
    "Location",
    location=OpenApiParameter.HEADER,
    response=[201],
    description="The new attempt (GET it, relative to the server).",
)
_ERRORS = {
    400: OpenApiResponse(description="Invalid input (the one error shape)"),
    404: OpenApiResponse(description="Not found (also: another learner's attempt)"),
    409: OpenApiResponse(description="Not possible now; error.code and detail say why"),
}


class StepQuickCheckListView(APIView):
    """The step's quick checks with my latest self-rating of each."""

    @extend_schema(
        responses={200: StepQuickCheckSerializer(many=True), 404: _ERRORS[404]},
        summary="The step's quick checks with my latest self-rating of each",
        extensions=error_codes({404: _STEP_NOT_FOUND}),
    )
    def get(self, request, module: str, number: int):
        rows = selectors.quick_check_ratings_for_step(
            learner_id=request.user.pk, module_slug=module, step_number=number
        )
        return Response(StepQuickCheckSerializer(rows, many=True).data)


class QuickCheckAnswerView(APIView):
    """Rate myself on a quick check after revealing its answer (knew / partly / not_yet)."""

    @extend_schema(
        request=RatingInputSerializer,
        responses={
            200: QuickCheckRatingSerializer,
            201: QuickCheckRatingSerializer,
            400: _ERRORS[400],
            404: _ERRORS[404],
        },
        summary="Rate myself on a quick check (knew, partly, not_yet)",
        extensions=error_codes(
            {
                400: ["invalid_rating"],
                404: [*_STEP_NOT_FOUND, "quick_check_not_found"],
                409: ["reflection_prompt"],
            }
        ),
    )
    def post(self, request, module: str, number: int, quick_check: int):
        data = RatingInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        outcome = quick_check_rate(
            learner_id=request.user.pk,
            module_slug=module,
            step_number=number,
            quick_check_id=quick_check,
            rating=data.validated_data["rating"],
        )
        return Response(
            QuickCheckRatingSerializer(outcome.rating).data,
            status=status.HTTP_201_CREATED if outcome.created else status.HTTP_200_OK,
        )


class ExamOverviewView(APIView):
    """The module's exam: policy, whether I may start and why not, my attempts and grade."""

    @extend_schema(
        responses={200: ExamOverviewSerializer, 404: _ERRORS[404]},
        summary="The module's exam: policy, whether I may start, my attempts and grade",
        extensions=error_codes({404: _MODULE_NOT_FOUND}),
    )
    def get(self, request, module: str):
        overview = selectors.exam_overview(
            learner_id=request.user.pk,
            module_slug=module,
            full_name_given=accounts_api.certificate_name_given(request.user),
        )
        return Response(ExamOverviewSerializer(overview).data)


class _ExamWriteView(APIView):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "exam"


class ExamAttemptStartView(_ExamWriteView):
    """Start an attempt: the server draws the items and sets the deadline from its clock."""

    @extend_schema(
        request=None,
        responses={
            201: OpenApiResponse(AttemptSerializer, description="The attempt, started now."),
            404: _ERRORS[404],
            409: _ERRORS[409],
        },
        parameters=[_LOCATION],
        summary="Start an exam attempt (the server draws the items and sets the deadline)",
        description=(
            "A refusal is a `409` whose code is the first reason against starting "
            "(EligibilityReasonEnum) and whose detail lists every reason, with the steps "
            "still to complete for the completion gate."
        ),
        extensions=error_codes(
            {404: ["module_not_found"], 409: [*REASON_CODES, "no_items", "attempt_in_progress"]}
        ),
    )
    def post(self, request, module: str):
        started = exam_attempt_start(
            learner_id=request.user.pk,
            module_slug=module,
            full_name_given=accounts_api.certificate_name_given(request.user),
        )
        body = selectors.attempt_view(
            attempt=started.attempt,
            module_slug=started.module_slug,
            items=started.items,
            result=None,
            now=timezone.now(),
        )
        return Response(
            AttemptSerializer(body).data,
            status=status.HTTP_201_CREATED,
            headers={"Location": reverse("exam-attempt-detail", args=[started.attempt.pk])},
        )


class ExamAttemptDetailView(APIView):
    """My attempt: items and options, saved answers, time left; the result once finalized."""

    @extend_schema(
        responses={200: AttemptSerializer, 404: _ERRORS[404]},
        summary="My attempt: items, saved answers, time left; the result once finalized",
        extensions=error_codes({404: ["attempt_not_found"]}),
    )
    def get(self, request, attempt: int):
        body = selectors.exam_attempt_get(learner_id=request.user.pk, attempt_id=attempt)
        return Response(AttemptSerializer(body).data)


class ExamAttemptAnswersView(_ExamWriteView):
    """Save some or all answers (autosave). All or nothing per request."""

    @extend_schema(
        request=AnswersInputSerializer,
        responses={
            200: SavedAnswersSerializer,
            400: _ERRORS[400],
            404: _ERRORS[404],
            409: _ERRORS[409],
        },
        summary="Save some or all answers of my attempt (autosave; all or nothing)",
        extensions=error_codes(
            {404: ["attempt_not_found"], 409: ["attempt_finalized", "deadline_passed"]}
        ),
    )
    def put(self, request, attempt: int):
        data = AnswersInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        now = timezone.now()
        saved = exam_attempt_answers_save(
            learner_id=request.user.pk,
            attempt_id=attempt,
            answers=data.validated_data["answers"],
            now=now,
        )
        body = {
            "attempt": saved.attempt.pk,
            "saved_count": saved.saved_count,
            "answered_count": saved.answered_count,
            "saved_at": saved.saved_at,
            "seconds_left": seconds_left(deadline_at=saved.attempt.deadline_at, now=now),
        }
        return Response(SavedAnswersSerializer(body).data)


class ExamAttemptSubmitView(_ExamWriteView):
    """Submit: graded on the server from the saved answers; again: the same result."""

    @extend_schema(
        request=None,
        responses={200: ResultSerializer, 404: _ERRORS[404]},
        summary="Submit my attempt: graded on the server; again gives the same result",
        extensions=error_codes({404: ["attempt_not_found"], 409: ["attempt_finalized"]}),
    )
    def post(self, request, attempt: int):
        # Whatever the body holds (scores, correctness) is deliberately never read.
        done = exam_attempt_submit(learner=request.user, attempt_id=attempt)
        result = selectors.attempt_result_view(
            attempt=done.attempt,
            policy=done.policy,
            items=done.items,
            attempts=done.attempts,
            certificate_code=done.certificate_code,
        )
        return Response(ResultSerializer(result).data)


@extend_schema_view(get=extend_schema(summary="My certificates, newest first"))
class CertificateListView(generics.ListAPIView):
    """My certificates, newest first."""

    serializer_class = CertificateSerializer

    def get_queryset(self):
        return selectors.certificate_list(learner_id=self.request.user.pk)

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(
            CertificateSerializer(selectors.certificates_view(page), many=True).data
        )


class CertificateVerifyView(APIView):
    """Check a certificate by its code: public, throttled; unknown and revoked codes are the
    same 404."""

    authentication_classes = []
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "certificate_verify"

    @extend_schema(
        responses={
            200: CertificateVerificationSerializer,
            404: OpenApiResponse(description="No valid certificate: unknown or revoked code"),
        },
        summary="Verify a certificate (public)",
    )
    def get(self, request, code: str):
        certificate = selectors.certificate_valid_by_code(code=code)
        if certificate is None:
            raise NotFound(_("There is no valid certificate with this code."), code="not_found")
        body = dataclasses.asdict(certificate) | {"valid": True}
        return Response(CertificateVerificationSerializer(body).data)


class PDFRenderer(BaseRenderer):
    """Lets a client ask for ``Accept: application/pdf``. The PDF itself goes out as a plain
    HttpResponse; what this renders is an error, which stays JSON in the one error shape."""

    media_type = "application/pdf"
    format = "pdf"
    charset = None

    def render(self, data, accepted_media_type=None, renderer_context=None):
        response = (renderer_context or {}).get("response")
        if response is not None:
            response["Content-Type"] = "application/json"
        return JSONRenderer().render(data, renderer_context=renderer_context)


class CertificatePdfView(APIView):
    """My certificate as a PDF (A4, with a QR code of its verification page); another
    learner's or a revoked one is a 404."""

    renderer_classes = [JSONRenderer, PDFRenderer]

    @extend_schema(
        responses={
            (200, "application/pdf"): OpenApiResponse(
                response=OpenApiTypes.BINARY, description="The certificate as a PDF document."
            ),
            404: OpenApiResponse(
                description="Not a valid certificate of yours (another's, revoked, unknown)"
            ),
        },
        summary="Download my certificate as a PDF",
        # DRF's ?format= override is no part of this operation (the answer is the PDF).
        parameters=[OpenApiParameter("format", exclude=True)],
    )
    def get(self, request, code: str):
        pdf = selectors.learner_certificate_pdf(
            learner_id=request.user.pk, code=code, time_zone=request.user.time_zone
        )
        return private_download(pdf.content, content_type="application/pdf", filename=pdf.filename)
