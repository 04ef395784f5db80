"""Forms of the web pages. They parse input only; the rules live in the services they feed."""

from __future__ import annotations

import decimal

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm, SetPasswordForm
from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from accounts.data import DESIRED_RETENTION_MAX, DESIRED_RETENTION_MIN
from accounts.services import (
    NEW_CARDS_PER_DAY_MAX,
    REVIEWS_PER_DAY_MAX,
    email_confirmation_resend_request,
    password_reset_request,
    password_set,
    user_authenticate_by_login,
)
from lms.errors import DomainError
from lms.local_time import time_zone_names
from progress.services.notes import NOTE_MAX_LENGTH, NOTE_PROMPTS

# A retention as the page's language writes it (0.80 / 0,80), when the form is shown.
_retention_text = lazy(lambda value: number_format(value, decimal_pos=2), str)


def _full_name_field(*, help_text) -> forms.CharField:
    """The learner's real name as certificates state it (``accounts.User.full_name``)."""
    return forms.CharField(
        label=_("Full name (first and last name)"),
        max_length=150,
        required=False,
        help_text=help_text,
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )


class SignUpForm(forms.Form):
    """Input for ``accounts.services.user_register``; the service checks the password rules."""

    username = forms.CharField(
        label=_("User name"),
        max_length=150,
        help_text=_("Letters, digits and @ . + - _ only; not an e-mail address."),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none"}),
    )
    email = forms.EmailField(
        label=_("E-mail address"),
        help_text=_("For password resets and review reminders."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    full_name = _full_name_field(
        help_text=_("Optional now. Your certificates state it; an exam that certifies asks for it.")
    )
    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        help_text=_("At least 10 characters; not a common password."),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    password2 = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("password1") and cleaned.get("password1") != cleaned.get("password2"):
            self.add_error("password2", _("The two passwords differ."))
        return cleaned


class LoginForm(AuthenticationForm):
    """Django's log-in form; its one field (user name or e-mail address) goes to the accounts
    service, which decides which account it names."""

    # One message for a wrong password and an unconfirmed address: which one it is would tell
    # whether a sign-up made an account, i.e. whether its address was free.
    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": _(
            "The user name (or e-mail address) or the password is wrong – or the e-mail "
            "address is not confirmed yet: open the link we sent you."
        ),
    }

    username = forms.CharField(
        label=_("User name or e-mail address"),
        max_length=254,
        widget=forms.TextInput(
            attrs={"autofocus": True, "autocomplete": "username", "autocapitalize": "none"}
        ),
    )

    def clean(self):
        login = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if login and password:
            try:
                self.user_cache = user_authenticate_by_login(
                    request=self.request, login=login, password=password
                )
            except DomainError:
                # A locked log-in (login_locked) gets axes' lockout page instead of this form
                # (AxesMiddleware, web.views.auth.login_locked).
                raise self.get_invalid_login_error() from None
            self.confirm_login_allowed(self.user_cache)
        return self.cleaned_data


class PasswordChangeForm(forms.Form):
    """Input for ``accounts.services.password_change``, which checks the old password and the
    rules for the new one."""

    old_password = forms.CharField(
        label=_("Current password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password", "autofocus": True}),
    )
    new_password1 = forms.CharField(
        label=_("New password"),
        strip=False,
        help_text=_("At least 10 characters and not easy to guess."),
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    new_password2 = forms.CharField(
        label=_("New password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean(self):
        cleaned = super().clean()
        first, second = cleaned.get("new_password1"), cleaned.get("new_password2")
        if first and first != second:
            self.add_error("new_password2", _("The two passwords differ."))
        return cleaned


class EmailRequestForm(forms.Form):
    """An e-mail address to send a mail to, if it has an account (the answer is the same)."""

    email = forms.EmailField(
        label=_("E-mail address"),
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


class PasswordResetRequestForm(EmailRequestForm):
    """Django's password-reset view with this form: ``save`` hands the address to the worker
    (``accounts.services.password_reset_request``) instead of looking it up and mailing in the
    request, so a known and an unknown address cost the same."""

    def save(self, **_options) -> None:
        # Django's view passes the mail templates, domain and token generator; accounts.mails
        # has its own (links from LERNPFAD_SITE_URL, never the request's Host header).
        password_reset_request(email=self.cleaned_data["email"])


class PasswordResetSetForm(SetPasswordForm):
    """The reset link's new password, set by accounts (which revokes the account's tokens)."""

    def save(self, commit=True):
        return password_set(user=self.user, password=self.cleaned_data["new_password1"])


class EmailConfirmationResendForm(EmailRequestForm):
    def save(self) -> None:
        email_confirmation_resend_request(email=self.cleaned_data["email"])


class LanguageForm(forms.Form):
    language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES)


class NoteForm(forms.Form):
    """Both writing prompts' notes of a step in one form, so saving one never drops the other's
    text. A prompt whose field the form did not send stays as it is; empty text deletes it."""

    PROMPTS = NOTE_PROMPTS

    praxisaufgabe = forms.CharField(required=False, strip=False)
    lernauftrag = forms.CharField(required=False, strip=False)

    def clean(self):
        cleaned = super().clean()
        if not any(prompt in self.data for prompt in self.PROMPTS):
            raise forms.ValidationError(_("The form sent no note."), code="no_note")
        for prompt in self.PROMPTS:
            if len(cleaned.get(prompt) or "") > NOTE_MAX_LENGTH:
                self.add_error(
                    prompt,
                    _("A note has at most %(max)d characters.") % {"max": NOTE_MAX_LENGTH},
                )
        return cleaned

    def notes(self) -> dict[str, str]:
        """The notes the form sent, by prompt."""
        return {prompt: self.cleaned_data[prompt] for prompt in self.PROMPTS if prompt in self.data}


class QuickCheckRatingForm(forms.Form):
    rating = forms.ChoiceField(
        choices=[("knew", _("I knew it")), ("partly", _("Partly")), ("not_yet", _("Not yet"))]
    )


class ReviewRatingForm(forms.Form):
    card = forms.IntegerField(min_value=1)
    rating = forms.TypedChoiceField(choices=[(i, str(i)) for i in range(1, 5)], coerce=int)
    duration_ms = forms.IntegerField(min_value=0, required=False)
    client_review_id = forms.CharField(max_length=64, required=False)


class SettingsForm(forms.Form):
    """The learner's preferences; ``accounts.services.user_update`` checks and stores them."""

    display_name = forms.CharField(
        label=_("Display name"),
        max_length=150,
        required=False,
        help_text=_("How Lernpfad greets you; a nickname is fine."),
    )
    full_name = _full_name_field(
        help_text=_(
            "As it is to appear on your certificates. Needed before an exam that certifies; "
            "certificates already issued keep the name they were issued with."
        )
    )
    email = forms.EmailField(
        label=_("E-mail address"), widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES)
    time_zone = forms.ChoiceField(
        label=_("Time zone"),
        choices=lambda: time_zone_choices(),
        help_text=_("Reminders and “today” follow it."),
    )
    reminder_email = forms.BooleanField(
        label=_("Send me review reminders by e-mail"), required=False
    )
    reminder_time = forms.TimeField(
        label=_("Reminder time"),
        help_text=_("Local time of day for the daily reminder."),
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
    )
    quiet_hours_start = forms.TimeField(
        label=_("Quiet hours from"),
        required=False,
        help_text=_("No reminders in this window. Leave both empty for none."),
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
    )
    quiet_hours_end = forms.TimeField(
        label=_("Quiet hours until"),
        required=False,
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
    )
    # A decimal with two places, localized: German pages show and read "0,90" (and still read
    # "0.90"), as the help text writes the range.
    desired_retention = forms.DecimalField(
        label=_("Desired retention"),
        localize=True,
        max_digits=3,
        decimal_places=2,
        min_value=decimal.Decimal(f"{DESIRED_RETENTION_MIN:.2f}"),
        max_value=decimal.Decimal(f"{DESIRED_RETENTION_MAX:.2f}"),
        help_text=format_lazy(
            _(
                "How sure you want to be to remember a card when it comes back: {low} to "
                "{high}. Higher means more reviews."
            ),
            low=_retention_text(DESIRED_RETENTION_MIN),
            high=_retention_text(DESIRED_RETENTION_MAX),
        ),
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off", "size": 5}),
    )
    new_cards_per_day = forms.IntegerField(
        label=_("New cards per day"),
        min_value=0,
        max_value=NEW_CARDS_PER_DAY_MAX,
        help_text=_("At most this many cards you have never seen come up each day; 0 for none."),
    )
    reviews_per_day = forms.IntegerField(
        label=_("Reviews per day"),
        min_value=0,
        max_value=REVIEWS_PER_DAY_MAX,
        help_text=_(
            "At most this many reviews a day, new cards included; the rest wait for tomorrow."
        ),
    )

    @staticmethod
    def initial_from(user) -> dict:
        """The form's values from the learner's row (the retention with its two places)."""
        initial = {name: getattr(user, name) for name in SettingsForm.base_fields}
        initial["desired_retention"] = decimal.Decimal(f"{user.desired_retention:.2f}")
        return initial

    def clean_desired_retention(self) -> float:
        # The service stores a float; the form only reads the learner's way of writing it.
        return float(self.cleaned_data["desired_retention"])


# The IANA areas a time zone's name starts with, as the picker's groups name them.
_TIME_ZONE_AREAS = {
    "Africa": _("Africa"),
    "America": _("America"),
    "Antarctica": _("Antarctica"),
    "Arctic": _("Arctic"),
    "Asia": _("Asia"),
    "Atlantic": _("Atlantic"),
    "Australia": _("Australia"),
    "Europe": _("Europe"),
    "Indian": _("Indian Ocean"),
    "Pacific": _("Pacific"),
}


def time_zone_choices() -> list:
    """Every zone ``lms.local_time.time_zone_names`` allows, grouped by area for a ``<select>``
    with ``<optgroup>``s (no script needed): "Europe" › "Berlin". Zones outside the areas
    (UTC, the old country aliases such as ``Japan``) come last, under "Other"."""
    groups: dict[str, list[tuple[str, str]]] = {area: [] for area in _TIME_ZONE_AREAS}
    other: list[tuple[str, str]] = []
    for name in sorted(time_zone_names()):
        area, _slash, place = name.partition("/")
        if place and area in groups:
            groups[area].append((name, place.replace("_", " ").replace("/", " – ")))
        else:
            other.append((name, name.replace("_", " ")))
    choices = [(_TIME_ZONE_AREAS[area], zones) for area, zones in groups.items() if zones]
    if other:
        choices.append((_("Other"), other))
    return choices


class AccountDeleteForm(forms.Form):
    """The password again, as ``privacy.services.account_delete`` asks for it; an account
    without a password (single sign-on, an LTI platform) types its user name instead."""

    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        max_length=4096,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    username = forms.CharField(label=_("Your user name, to confirm"), max_length=150)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["username" if user.has_usable_password() else "password"]
