"""The knox token look-up (accounts.sql.tokens_with_user, used by accounts.auth): one statement,
no cache (a revoked or expired token is refused by the very next request, in every process),
and a connection the server dropped is replaced instead of failing the request."""

from __future__ import annotations

import datetime

import psycopg
import pytest
from django.db import connection
from django.utils import timezone
from knox.models import AuthToken
from knox.settings import CONSTANTS

from accounts import services as account_services
from tests.factories import learner_create, token_client
from tests.helpers.queries import assert_queries_within

ME = "/api/v1/me/"


def authenticate(token: str):
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from accounts.auth import TokenAuthentication

    request = Request(APIRequestFactory().get("/", HTTP_AUTHORIZATION=f"Token {token}"))
    return TokenAuthentication().authenticate(request)


@pytest.mark.django_db
def test_the_token_and_its_user_are_one_statement():
    user = learner_create("tara", first_name="Tara", language="en")
    _instance, token = account_services.token_create(user=user, device_name="phone")
    AuthToken.objects.update(expiry=timezone.now() + datetime.timedelta(days=30))

    def run():
        found_user, auth_token = authenticate(token)
        # The whole user is loaded: reading its fields asks nothing more.
        assert (found_user.pk, found_user.first_name, found_user.language) == (
            user.pk,
            "Tara",
            "en",
        )
        assert found_user.date_joined == user.date_joined
        assert found_user.is_active is True
        assert auth_token.user is found_user

    assert_queries_within(run, budget=1)


@pytest.mark.django_db
def test_a_token_deleted_elsewhere_is_refused_by_the_next_request():
    user = learner_create("tom")
    _instance, token = account_services.token_create(user=user, device_name="phone")
    client = token_client(token)
    assert client.get(ME).status_code == 200
    # As another process revoking it would: straight in the table, no signal in this one.
    from accounts.models import Device

    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {Device._meta.db_table}")
        cursor.execute(f"DELETE FROM {AuthToken._meta.db_table}")
    response = client.get(ME)
    assert response.status_code == 401
    assert response.json()["error"]["code"]


@pytest.mark.django_db
def test_an_expired_token_is_refused_and_deleted():
    user = learner_create("uma")
    _instance, token = account_services.token_create(user=user, device_name="phone")
    client = token_client(token)
    assert client.get(ME).status_code == 200
    AuthToken.objects.update(expiry=timezone.now() - datetime.timedelta(seconds=1))
    assert client.get(ME).status_code == 401
    assert not AuthToken.objects.exists()


@pytest.mark.django_db
def test_the_expiry_is_renewed_as_knox_renews_it():
    user = learner_create("vera")
    _instance, token = account_services.token_create(user=user, device_name="phone")
    old = timezone.now() + datetime.timedelta(days=1)
    AuthToken.objects.update(expiry=old)
    assert token_client(token).get(ME).status_code == 200
    assert AuthToken.objects.get().expiry > old + datetime.timedelta(days=20)


@pytest.mark.django_db
def test_an_inactive_user_is_refused():
    user = learner_create("walt")
    _instance, token = account_services.token_create(user=user, device_name="phone")
    type(user).objects.filter(pk=user.pk).update(is_active=False)
    assert token_client(token).get(ME).status_code == 401


@pytest.mark.django_db(transaction=True)
def test_a_dropped_connection_is_replaced_by_the_token_statement_itself():
    """The token statement stands in for the health check: the server ending the connection
    between requests costs a reconnect, not a failed request."""
    from django.core import signals

    from accounts.sql import tokens_with_user

    user = learner_create("xena")
    _instance, token = account_services.token_create(user=user, device_name="phone")
    connection.ensure_connection()
    backend = connection.connection.info.backend_pid
    settings = connection.settings_dict
    # A new request: Django marks the reused connection's health as not checked yet.
    signals.request_started.send(sender=None)
    connection.health_check_enabled = True
    connection.health_check_done = False
    with psycopg.connect(
        host=settings["HOST"] or "127.0.0.1",
        port=settings["PORT"] or 5432,
        user=settings["USER"],
        password=settings["PASSWORD"] or None,
        dbname=settings["NAME"],
        autocommit=True,
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [backend])
    [found] = tokens_with_user(token[: CONSTANTS.TOKEN_KEY_LENGTH])
    assert found.user_id == user.pk
    assert connection.connection.info.backend_pid != backend
