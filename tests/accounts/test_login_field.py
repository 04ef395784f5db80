"""One log-in field for the username or the e-mail address (accounts.services)."""

from __future__ import annotations

import pytest

from accounts.services import user_authenticate_by_login
from lms.errors import InvalidInput
from tests.factories import learner_password

pytestmark = pytest.mark.django_db


def test_the_field_holds_the_username_or_the_email_address(make_learner):
    lena = make_learner("lena", email="lena@example.org")
    password = learner_password("lena")
    assert user_authenticate_by_login(login="lena", password=password) == lena
    assert user_authenticate_by_login(login="LENA@example.org", password=password) == lena


def test_a_username_with_an_at_wins_over_another_accounts_address(make_learner):
    owner = make_learner("sam@example.org", email="sam.owner@example.org")
    make_learner("sam", email="sam@example.org")
    found = user_authenticate_by_login(
        login="sam@example.org", password=learner_password("sam@example.org")
    )
    assert found == owner


@pytest.mark.parametrize("login", ["lena", "lena@example.org", "nobody@example.org"])
def test_a_wrong_password_or_unknown_login_is_one_error(make_learner, login):
    make_learner("lena", email="lena@example.org")
    with pytest.raises(InvalidInput) as refused:
        user_authenticate_by_login(login=login, password="not-the-password")
    assert refused.value.code == "invalid_credentials"
