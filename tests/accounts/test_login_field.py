"""One log-in field for the username or the e-mail address (accounts.services)."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.test import RequestFactory

from accounts.services import user_authenticate_by_login
from lms.errors import InvalidInput
from tests.factories import learner_password

pytestmark = pytest.mark.django_db


def _request():
    # The log-in form's request: django-axes counts failures against it.
    return RequestFactory().post("/login/")


def test_the_field_holds_the_username_or_the_email_address(make_learner):
    lena = make_learner("lena", email="lena@example.org")
    password = learner_password("lena")
    assert user_authenticate_by_login(request=_request(), login="lena", password=password) == lena
    assert (
        user_authenticate_by_login(request=_request(), login="LENA@example.org", password=password)
        == lena
    )


def test_a_username_with_an_at_wins_over_another_accounts_address(make_learner):
    owner = make_learner("sam@example.org", email="sam.owner@example.org")
    make_learner("sam", email="sam@example.org")
    found = user_authenticate_by_login(
        request=_request(), login="sam@example.org", password=learner_password("sam@example.org")
    )
    assert found == owner


@pytest.mark.parametrize("login", ["lena", "lena@example.org", "nobody@example.org"])
def test_a_wrong_password_or_unknown_login_is_one_error(make_learner, login):
    make_learner("lena", email="lena@example.org")
    with pytest.raises(InvalidInput) as refused:
        user_authenticate_by_login(request=_request(), login=login, password="not-the-password")
    assert refused.value.code == "invalid_credentials"
    # One wrong password is one counted failure, whichever account the field names (it used
    # to check the password twice for an address: as a username, then as an address).
    assert sum(AccessAttempt.objects.values_list("failures_since_start", flat=True)) == 1
