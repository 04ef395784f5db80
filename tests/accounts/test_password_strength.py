"""Weak passwords are refused wherever a password is set, with a message in the learner's
language (accounts/passwords.py: zxcvbn with German words)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import default_token_generator
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from rest_framework.test import APIClient

from accounts.passwords import PasswordStrengthValidator
from lms.management.commands.demo_setup import DEMO_USERS
from tests.factories import learner_password

User = get_user_model()

# What the security probe got through, and the shapes next to them.
WEAK = [" " * 10, "Passwort123", "Sommer2026!", "Lernpfad123"]
MORE_WEAK = ["Winter2025!", "Hallo2026!", "Qwertz123!", "Fussball2026", "Schatz2026!"]
STRONG = "Wanderer-Spiegel-Kompass-47"
MESSAGE = {
    "de": "Dieses Passwort ist zu leicht zu erraten.",
    "en": "This password is too easy to guess.",
}


def _messages(password: str, user=None) -> list[str]:
    try:
        validate_password(password, user=user)
    except ValidationError as error:
        return list(error.messages)
    return []


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("password", WEAK + MORE_WEAK)
def test_weak_passwords_are_refused_in_the_learners_language(password, language):
    with translation.override(language):
        messages = _messages(password)
    strength = [message for message in messages if message.startswith(MESSAGE[language])]
    assert strength, messages
    other = MESSAGE["en" if language == "de" else "de"]
    assert not any(other in message for message in messages)


def test_the_message_says_why_and_what_helps():
    with translation.override("de"):
        (message,) = [m for m in _messages("Passwort123") if m.startswith(MESSAGE["de"])]
    assert message != MESSAGE["de"]  # zxcvbn's warning or advice follows, translated
    assert "Wörter" in message or "Passwort" in message.removeprefix(MESSAGE["de"])


@pytest.mark.django_db
def test_the_accounts_own_name_is_a_weak_base(make_learner):
    lena = make_learner("lenamaria", email="lenamaria@example.org")
    with translation.override("en"):
        messages = _messages("Lenamaria2026!", user=lena)
    assert any(message.startswith(MESSAGE["en"]) for message in messages), messages


@pytest.mark.parametrize(
    "password",
    [
        STRONG,
        "correct horse battery staple",
        # A passphrase longer than zxcvbn reads (72 characters): the beginning decides.
        "Ein langer Satz über den Wanderweg am Fluss, die alte Mühle und den Turm " * 2,
    ],
)
def test_strong_passwords_pass(password):
    assert _messages(password) == []


@pytest.mark.django_db
@pytest.mark.parametrize("username", ["lena", "mara", "admin", "learner7", "owner"])
def test_the_test_and_demo_passwords_still_pass(username):
    user = User(username=username, email=f"{username}@example.org")
    assert _messages(learner_password(username), user=user) == []
    # demo_setup sets its passwords without the validators (Django's similarity check refused
    # them before); the strength check alone takes them.
    strength = PasswordStrengthValidator()
    for demo_name, demo_password, *_flags in DEMO_USERS:
        strength.validate(demo_password, user=User(username=demo_name, email=""))


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("password", WEAK)
def test_api_registration_refuses_them(password, language):
    response = APIClient().post(
        "/api/v1/auth/register/",
        {"username": "mara", "email": "mara@example.org", "password": password},
        format="json",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 400
    messages = response.json()["error"]["detail"]["password"]
    assert any(message.startswith(MESSAGE[language]) for message in messages), messages
    assert not User.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("password", WEAK)
def test_web_sign_up_refuses_them(password, language):
    response = Client().post(
        "/signup/",
        {
            "username": "mara",
            "email": "mara@example.org",
            "password1": password,
            "password2": password,
        },
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    errors = response.context["form"].errors["password1"]
    assert any(error.startswith(MESSAGE[language]) for error in errors), errors
    assert not User.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("password", WEAK)
def test_the_password_page_refuses_them(make_learner, password, language):
    lena = make_learner("lena")
    client = Client()
    client.force_login(lena)
    response = client.post(
        "/settings/password/",
        {
            "old_password": learner_password("lena"),
            "new_password1": password,
            "new_password2": password,
        },
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    errors = response.context["form"].errors["new_password1"]
    assert any(error.startswith(MESSAGE[language]) for error in errors), errors
    lena.refresh_from_db()
    assert lena.check_password(learner_password("lena"))


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("password", WEAK)
def test_the_reset_link_refuses_them(make_learner, password, language):
    lena = make_learner("lena")
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    uid = urlsafe_base64_encode(force_bytes(lena.pk))
    form = client.get(
        f"/password-reset/{uid}/{default_token_generator.make_token(lena)}/", follow=True
    )
    response = client.post(
        form.redirect_chain[-1][0], {"new_password1": password, "new_password2": password}
    )
    assert response.status_code == 200
    errors = response.context["form"].errors["new_password2"]
    assert any(error.startswith(MESSAGE[language]) for error in errors), errors


@pytest.mark.django_db
@pytest.mark.parametrize("password", WEAK)
def test_the_admin_refuses_them(make_learner, password):
    lena = make_learner("lena")
    admin = Client()
    admin.force_login(make_learner("admin", is_staff=True, is_superuser=True))
    changed = admin.post(
        f"/admin/accounts/user/{lena.pk}/password/",
        {"usable_password": "true", "password1": password, "password2": password},
    )
    assert changed.status_code == 200
    assert any(e.startswith(MESSAGE["de"]) for e in changed.context["form"].errors["password2"])
    added = admin.post(
        "/admin/accounts/user/add/",
        {
            "username": "neu",
            "usable_password": "true",
            "password1": password,
            "password2": password,
        },
    )
    assert added.status_code == 200
    assert any(
        e.startswith(MESSAGE["de"]) for e in added.context["adminform"].form.errors["password2"]
    )
    assert not User.objects.filter(username="neu").exists()


@pytest.mark.django_db
def test_a_strong_password_is_taken_everywhere(make_learner):
    response = APIClient().post(
        "/api/v1/auth/register/",
        {"username": "mara", "email": "mara@example.org", "password": STRONG},
        format="json",
    )
    assert response.status_code == 202, response.content
    lena = make_learner("lena")
    client = Client()
    client.force_login(lena)
    changed = client.post(
        "/settings/password/",
        {
            "old_password": learner_password("lena"),
            "new_password1": STRONG,
            "new_password2": STRONG,
        },
    )
    assert changed.status_code == 302
