"""Accounts API: registration, e-mail confirmation, password-reset mails and tokens for mobile
apps, log-out, devices, the own profile."""

from django.contrib.auth import logout as session_logout
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from knox.models import AuthToken
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services
from accounts.rest.serializers import (
    AcceptedSerializer,
    DeviceSerializer,
    EmailConfirmedSerializer,
    EmailConfirmSerializer,
    EmailRequestSerializer,
    MeSerializer,
    MeUpdateSerializer,
    RegisterSerializer,
    TokenRequestSerializer,
    TokenResponseSerializer,
)
from accounts.rest.throttles import LoginRateThrottle
from accounts.selectors import device_list
from lms.compression import never_compress
from lms.openapi import error_codes


class _AnonymousLoginView(APIView):
    """Open to anyone; no authentication, so a stale session cookie does not trigger CSRF."""

    authentication_classes = []
    permission_classes = [AllowAny]


def _accepted(message: str) -> Response:
    return Response({"status": "mail_sent", "message": message}, status=status.HTTP_202_ACCEPTED)


class _RatedAnonymousView(_AnonymousLoginView):
    """Rated per client address (THROTTLE_LOGIN): no password is checked, so axes sees none."""

    throttle_classes = [LoginRateThrottle]
    throttle_scope = "login"


class RegisterView(_RatedAnonymousView):
    @extend_schema(
        request=RegisterSerializer,
        responses={202: AcceptedSerializer},
        summary="Sign up; the account works once its address is confirmed",
        description=(
            "Answers `202` with the same body whether the address is free or already has an "
            "account, so registration does not tell who has one. A free address gets a "
            "confirmation link (`POST auth/email-confirmation/` with its token, or the web "
            "page it opens); until then `auth/token/` refuses the account like a wrong "
            "password. The owner of a taken address gets a mail that someone tried. Bad "
            "input, a taken *username* included (user names are public), is a `400`."
        ),
    )
    def post(self, request):
        serializer = RegisterSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.user_register(**serializer.validated_data)
        return _accepted(
            _("Check your e-mail: we sent a link to confirm the address. Open it, then log in.")
        )


class EmailConfirmationView(_RatedAnonymousView):
    @extend_schema(
        request=EmailConfirmSerializer,
        responses={200: EmailConfirmedSerializer},
        summary="Confirm an e-mail address with the token of its link",
        extensions=error_codes(
            {400: ["confirmation_link_expired", "confirmation_link_invalid", "email_taken"]}
        ),
        description=(
            "The token is the last part of the link in the mail. A sign-up's account can log "
            "in afterwards; a requested new address replaces the old one. Again: `200`, no "
            "change. `400` `confirmation_link_expired`, `confirmation_link_invalid` or "
            "`email_taken` (the address belongs to another account by now)."
        ),
    )
    def post(self, request):
        serializer = EmailConfirmSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.email_confirm(token=serializer.validated_data["token"])
        return Response({"status": "confirmed", "message": _("Your e-mail address is confirmed.")})


class EmailConfirmationResendView(_RatedAnonymousView):
    @extend_schema(
        request=EmailRequestSerializer,
        responses={202: AcceptedSerializer},
        summary="Send the confirmation link again",
        description=(
            "`202` for every address; the link goes out only if an account waits to confirm "
            "this address, at most 3 confirmation mails per account and hour."
        ),
    )
    def post(self, request):
        serializer = EmailRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.email_confirmation_resend_request(email=serializer.validated_data["email"])
        return _accepted(
            _("If an account waits to confirm this address, a new link is on its way.")
        )


class PasswordResetRequestView(_RatedAnonymousView):
    @extend_schema(
        request=EmailRequestSerializer,
        responses={202: AcceptedSerializer},
        summary="Mail a link to choose a new password",
        description=(
            "`202` for every address, after the same work (the worker looks the address up), "
            "so neither the answer nor its time tells whether it has an account. At most 3 "
            "reset mails per account and hour; the link opens the web page "
            "`/password-reset/…/`."
        ),
    )
    def post(self, request):
        serializer = EmailRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.password_reset_request(email=serializer.validated_data["email"])
        return _accepted(
            _("If an account uses this address, we have sent it a link to choose a new password.")
        )


class TokenView(_AnonymousLoginView):
    """Not rated: django-axes counts the failed log-ins, per account and per client address,
    and locks them (429 ``login_locked``); successful log-ins are never limited."""

    @extend_schema(
        request=TokenRequestSerializer,
        responses={200: TokenResponseSerializer},
        summary="Log in a device: username or e-mail and password give a token",
        description=(
            "Give the password and exactly one of `login` (the username or the e-mail "
            "address), `username` or `email`. A wrong password, an unknown account and an "
            "account whose address is not confirmed yet are the same `400 invalid_credentials`; "
            "repeated failures lock the account and the client address (`429 login_locked`, "
            "detail.retry_after_seconds)."
        ),
        extensions=error_codes({400: ["invalid_credentials"], 429: ["login_locked"]}),
    )
    def post(self, request):
        serializer = TokenRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data.get("login", "").strip():
            user = services.user_authenticate_by_login(
                request=request._request, login=data["login"], password=data["password"]
            )
        else:
            user = services.user_authenticate(
                request=request._request,
                username=data.get("username", ""),
                email=data.get("email", ""),
                password=data["password"],
            )
        instance, token = services.token_create(
            user=user, device_name=data["device_name"], request=request._request
        )
        payload = TokenResponseSerializer.payload(instance=instance, token=token, user=user)
        # The body carries the new token: never compressed (BREACH, lms/compression.py).
        return never_compress(Response(TokenResponseSerializer(payload).data))


def _end_current_login(request) -> None:
    if isinstance(request.auth, AuthToken):
        services.token_delete(token=request.auth)
    else:
        session_logout(request._request)


class LogoutView(APIView):
    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="Logged out")},
        summary="Revoke the token of this request (or end the browser session)",
    )
    def post(self, request):
        _end_current_login(request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LogoutAllView(APIView):
    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="Logged out everywhere")},
        summary="Revoke every token of the account and end every browser session",
    )
    def post(self, request):
        services.credentials_revoke(user_id=request.user.pk, sessions=True)
        if not isinstance(request.auth, AuthToken):
            session_logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeviceListView(APIView):
    @extend_schema(responses=DeviceSerializer(many=True), summary="My devices with a token")
    def get(self, request):
        current = request.auth.digest if isinstance(request.auth, AuthToken) else None
        devices = device_list(user_id=request.user.pk)
        return Response(
            DeviceSerializer(devices, many=True, context={"current_digest": current}).data
        )


class DeviceDetailView(APIView):
    @extend_schema(
        responses={204: OpenApiResponse(description="Token revoked")},
        summary="Revoke the token of one of my devices",
        extensions=error_codes({404: ["device_not_found"]}),
    )
    def delete(self, request, device_id: int):
        services.device_delete(user_id=request.user.pk, device_id=device_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# DELETE (erasure after re-entering the password) is added by privacy.rest.views.MeView, which
# is what the route serves.
class MeView(APIView):
    # A subclass that serves the route may name more (privacy.rest.views.MeView).
    serializer_class = MeSerializer

    @extend_schema(responses=MeSerializer, summary="My account and preferences")
    def get(self, request):
        return Response(self.serializer_class(request.user).data)

    @extend_schema(
        request=MeUpdateSerializer,
        responses=MeSerializer,
        summary="Change my profile and preferences",
    )
    def patch(self, request):
        serializer = MeUpdateSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        user = services.user_update(user=request.user, changes=serializer.validated_data)
        return Response(self.serializer_class(user).data)
