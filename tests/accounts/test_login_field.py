"""One log-in field for the username or the e-mail address (accounts.services)."""

from __future__ import annotations

import pytest

from accounts.services import user_authenticate_by_login
from lms.errors import InvalidInput
from tests.conftest import user_password

pytestmark = pytest.mark.django_db


def test_the_field_holds_the_username_or_the_email_address(make_user):
    lena = make_user("lena", email="lena@example.org")
    password = user_password("lena")
    assert user_authenticate_by_login(login="lena", password=password) == lena
    assert user_authenticate_by_login(login="LENA@example.org", password=password) == lena


def test_a_username_with_an_at_wins_over_another_accounts_address(make_user):
    owner = make_user("sam@example.org", email="sam.owner@example.org")
    make_user("sam", email="sam@example.org")
    found = user_authenticate_by_login(
        login="sam@example.org", password=user_password("sam@example.org")
    )
    assert found == owner


@pytest.mark.parametrize("login", ["lena", "lena@example.org", "nobody@example.org"])
def test_a_wrong_password_or_unknown_login_is_one_error(make_user, login):
    make_user("lena", email="lena@example.org")
    with pytest.raises(InvalidInput) as refused:
        user_authenticate_by_login(login=login, password="not-the-password")
    assert refused.value.code == "invalid_credentials"
