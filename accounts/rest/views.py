"""Accounts API: registration and tokens for mobile apps, log-out, devices, the own profile."""

from django.contrib.auth import logout as session_logout
from drf_spectacular.utils import OpenApiResponse, extend_schema
from knox.models import AuthToken
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services
from accounts.rest.serializers import (
    DeviceSerializer,
    MeSerializer,
    MeUpdateSerializer,
    RegisterSerializer,
    TokenRequestSerializer,
    TokenResponseSerializer,
)
from accounts.rest.throttles import LoginRateThrottle
from accounts.selectors import device_list


class _AnonymousLoginView(APIView):
    """Open to anyone.

    No authentication classes: a stale session cookie must not turn these into CSRF-checked
    requests, and there is no account yet to authenticate.
    """

    authentication_classes = []
    permission_classes = [AllowAny]


class RegisterView(_AnonymousLoginView):
    # Creating accounts is rated per client address (THROTTLE_LOGIN): nothing else stops one
    # address from filling the user table.
    throttle_classes = [LoginRateThrottle]
    throttle_scope = "login"

    @extend_schema(
        request=RegisterSerializer,
        responses={201: TokenResponseSerializer},
        summary="Create an account and a token for this device",
    )
    def post(self, request):
        serializer = RegisterSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        device_name = data.pop("device_name")
        user = services.user_register(**data)
        instance, token = services.token_create(
            user=user, device_name=device_name, request=request._request
        )
        payload = TokenResponseSerializer.payload(instance=instance, token=token, user=user)
        return Response(TokenResponseSerializer(payload).data, status=status.HTTP_201_CREATED)


class TokenView(_AnonymousLoginView):
    """Not rated: django-axes counts the failed log-ins, per account and per client address,
    and locks them (429 ``login_locked``); successful log-ins are never limited."""

    @extend_schema(
        request=TokenRequestSerializer,
        responses={200: TokenResponseSerializer},
        summary="Log in a device: username or e-mail and password give a token",
    )
    def post(self, request):
        serializer = TokenRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        user = services.user_authenticate(
            request=request._request,
            username=data["username"],
            email=data["email"],
            password=data["password"],
        )
        instance, token = services.token_create(
            user=user, device_name=data["device_name"], request=request._request
        )
        payload = TokenResponseSerializer.payload(instance=instance, token=token, user=user)
        return Response(TokenResponseSerializer(payload).data)


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
    )
    def delete(self, request, device_id: int):
        services.device_delete(user_id=request.user.pk, device_id=device_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# DELETE (erasure after re-entering the password) is added by privacy.rest.views.MeView, which
# is what the route serves.
class MeView(APIView):
    @extend_schema(responses=MeSerializer, summary="My account and preferences")
    def get(self, request):
        return Response(MeSerializer(request.user).data)

    @extend_schema(
        request=MeUpdateSerializer,
        responses=MeSerializer,
        summary="Change my profile and preferences",
    )
    def patch(self, request):
        serializer = MeUpdateSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        user = services.user_update(user=request.user, changes=serializer.validated_data)
        return Response(MeSerializer(user).data)
