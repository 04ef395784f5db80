"""Privacy endpoints: GET /api/v1/me/export/ and DELETE /api/v1/me/ (erasure); ``MeView`` here
adds DELETE to accounts' GET and PATCH on ``me/``."""

from __future__ import annotations

from django.contrib.auth import logout as session_logout
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
    extend_schema_view,
)
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.rest.throttles import LoginRateThrottle
from accounts.rest.views import MeView as AccountMeView
from lms.openapi import error_codes
from lms.serializers import BodySerializer
from privacy import services as privacy
from privacy.rest.serializers import DataExportSerializer
from reviews import api as reviews_api


class AccountDeleteSerializer(BodySerializer):
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class DataExportView(APIView):
    @extend_schema(
        responses={200: OpenApiResponse(DataExportSerializer, description="All my data")},
        parameters=[
            OpenApiParameter(
                "Content-Disposition",
                location=OpenApiParameter.HEADER,
                response=[200],
                description='attachment; filename="lernpfad-<username>.json"',
            )
        ],
        summary="Everything Lernpfad stores about me, as JSON (data export)",
        description=(
            "Profile and preferences, devices and token metadata (never a token), enrollments, "
            "progress and its events, notes, quick-check ratings, review cards and logs, "
            "reminders and notifications, exam attempts (answers, correctness and correct keys "
            "only as far as the exam's review policy shows them now) and certificates."
        ),
    )
    def get(self, request):
        export = privacy.account_export(user=request.user)
        response = Response(export)
        filename = f"lernpfad-{request.user.username}.json"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response


class _DeleteBodySchema(AutoSchema):
    """Documents the request body of DELETE too (drf-spectacular only does for POST/PUT/PATCH)."""

    def _get_request_body(self, direction="request"):
        if self.method != "DELETE":
            return super()._get_request_body(direction)
        self.method = "POST"
        try:
            return super()._get_request_body(direction)
        finally:
            self.method = "DELETE"


# No docstring: drf-spectacular would take it as the description of MeView's other operations.
class AccountDeleteMixin:
    schema = _DeleteBodySchema()

    # Re-entering the password is a log-in: the same throttle keeps it from being guessed.
    def get_throttles(self):
        if self.request.method == "DELETE":
            self.throttle_scope = "login"
            return [LoginRateThrottle()]
        return super().get_throttles()

    @extend_schema(
        request=AccountDeleteSerializer,
        responses={204: OpenApiResponse(description="Account and personal data deleted")},
        summary="Delete my account and my data (enter the password again)",
        extensions=error_codes({403: ["password_incorrect"]}),
        description=(
            "Deletes the account, its tokens and sessions, progress, notes, reviews, reminders, "
            "notifications and exam attempts. The answers of the first finished attempt per "
            "module are kept without any link to the account, so item statistics stay right; "
            "certificates are revoked (their verification link stops working)."
        ),
    )
    def delete(self, request):
        data = AccountDeleteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        privacy.account_delete(user=request.user, password=data.validated_data["password"])
        session_logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema_serializer(component_name="MeDetail")
class MeDetailSerializer(AccountMeView.serializer_class):
    """My account and preferences, and the private calendar address (the reviews app's)."""

    calendar_feed = serializers.SerializerMethodField(
        help_text="My private calendar address (/me/calendar-feed/), or null when I have none."
    )

    class Meta(AccountMeView.serializer_class.Meta):
        fields = [*AccountMeView.serializer_class.Meta.fields, "calendar_feed"]
        read_only_fields = fields

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_calendar_feed(self, user) -> str | None:
        return reviews_api.calendar_feed_url(learner=user)


@extend_schema_view(
    get=extend_schema(responses=MeDetailSerializer),
    patch=extend_schema(responses=MeDetailSerializer),
)
class MeView(AccountDeleteMixin, AccountMeView):
    serializer_class = MeDetailSerializer
