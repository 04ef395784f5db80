"""Sign up and e-mail confirmation, log in, log out, password reset (Django's auth views with
our templates and forms), language."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.selectors import email_confirmation_link_state
from accounts.services import (
    email_confirm,
    email_mark_confirmed,
    login_locked_error,
    user_register,
    user_update,
)
from lms.errors import DomainError
from web.forms import (
    EmailConfirmationResendForm,
    LanguageForm,
    LoginForm,
    PasswordResetRequestForm,
    PasswordResetSetForm,
    SignUpForm,
)
from web.sso import login_providers
from web.views.common import safe_next

LANGUAGE_COOKIE_MAX_AGE = 365 * 24 * 60 * 60


def remember_language(response: HttpResponse, language: str) -> HttpResponse:
    """Store the interface language in Django's language cookie (LocaleMiddleware reads it)."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=LANGUAGE_COOKIE_MAX_AGE,
        samesite="Lax",
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
    )
    return response


def signup(request: HttpRequest) -> HttpResponse:
    """Sign up with the accounts service, then "check your mail" — the same page whether the
    address was free (a confirmation link is on its way) or had an account already (its owner
    is told), so the page does not tell who has an account. Nobody is logged in here."""
    if request.user.is_authenticated:
        return redirect("web:home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        language = translation.get_language() or settings.LANGUAGE_CODE
        try:
            user_register(
                username=form.cleaned_data["username"],
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
                full_name=form.cleaned_data["full_name"],
                language=language[:2],
            )
        except DomainError as exc:
            detail = exc.detail if isinstance(exc.detail, dict) else {}
            placed = False
            for field, errors in detail.items():
                name = "password1" if field == "password" else field
                if name in form.fields:
                    for error in errors if isinstance(errors, list) else [errors]:
                        form.add_error(name, str(error))
                    placed = True
            if not placed:
                form.add_error(None, exc.message)
        else:
            return remember_language(redirect("web:signup_sent"), language[:2])
    return render(request, "web/auth/signup.html", {"form": form, "nav": "signup"})


def signup_sent(request: HttpRequest) -> HttpResponse:
    """After sign-up: the confirmation link is in the mail (or, for a taken address, a note to
    its owner — the visitor cannot tell which)."""
    return render(request, "web/auth/signup_sent.html", {"nav": "signup"})


@require_http_methods(["GET", "POST"])
def email_confirm_page(request: HttpRequest, token: str) -> HttpResponse:
    """The link of a confirmation mail. GET shows a button (mail scanners open every link and
    must not confirm anything); POST confirms through ``accounts.services.email_confirm``."""
    if request.method == "POST":
        try:
            user = email_confirm(token=token)
        except DomainError as exc:
            return _confirm_failed(request, exc)
        messages.success(request, _("Your e-mail address is confirmed."))
        if request.user.is_authenticated and request.user.pk == user.pk:
            return redirect("web:settings")
        if request.user.is_authenticated:
            return redirect("web:home")
        messages.info(request, _("Welcome to Lernpfad! Log in to start learning."))
        return redirect("web:login")
    state = email_confirmation_link_state(token=token)
    if state != "valid":
        return _confirm_failed(request, None, expired=state == "expired")
    return render(request, "web/auth/email_confirm.html", {"nav": "signup"})


def _confirm_failed(request, exc: DomainError | None, *, expired: bool = False) -> HttpResponse:
    expired = expired or (exc is not None and exc.code == "confirmation_link_expired")
    message = exc.message if exc is not None and exc.code == "email_taken" else None
    return render(
        request,
        "web/auth/email_confirm_failed.html",
        {"expired": expired, "message": message, "nav": "signup"},
        status=400,
    )


def email_confirmation_resend(request: HttpRequest) -> HttpResponse:
    """Ask for the confirmation link again; the same answer for every address."""
    form = EmailConfirmationResendForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.info(
            request, _("If an account waits to confirm this address, a new link is on its way.")
        )
        return redirect("web:signup_sent")
    return render(request, "web/auth/email_confirm_resend.html", {"form": form, "nav": "login"})


class LoginView(auth_views.LoginView):
    """Django's log-in; afterwards the interface speaks the learner's stored language."""

    template_name = "web/auth/login.html"
    authentication_form = LoginForm
    redirect_authenticated_user = True
    extra_context = {"nav": "login"}

    def get_context_data(self, **kwargs):
        # One button per institution's identity provider (web.sso), each a form.
        return super().get_context_data(**kwargs) | {"sso_providers": login_providers(self.request)}

    def form_valid(self, form):
        response = super().form_valid(form)
        return remember_language(response, form.get_user().language)


class LogoutView(auth_views.LogoutView):
    next_page = reverse_lazy("web:home")


class PasswordResetView(auth_views.PasswordResetView):
    """Django's view; its form hands the address to the worker, which mails the link
    (accounts.mails), so a known and an unknown address get the same answer after the same
    work."""

    template_name = "web/auth/password_reset_form.html"
    form_class = PasswordResetRequestForm
    success_url = reverse_lazy("web:password_reset_done")

    def get_context_data(self, **kwargs):
        # Accounts of an institution's log-in may have no password here: the page says so.
        names = ", ".join(provider["name"] for provider in login_providers(self.request))
        return super().get_context_data(**kwargs) | {"sso_provider_names": names}


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "web/auth/password_reset_done.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "web/auth/password_reset_confirm.html"
    form_class = PasswordResetSetForm
    success_url = reverse_lazy("web:password_reset_complete")

    def form_valid(self, form):
        response = super().form_valid(form)
        # The reset link went to the address: that confirms it, if it was still waiting.
        email_mark_confirmed(user=form.user)
        return response


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "web/auth/password_reset_complete.html"


@require_POST
def language_set(request: HttpRequest) -> HttpResponse:
    """Switch the interface language: a cookie, and the learner's profile when signed in."""
    form = LanguageForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest(_("Unknown language."))
    language = form.cleaned_data["language"]
    if request.user.is_authenticated and request.user.language != language:
        user_update(user=request.user, changes={"language": language})
    translation.activate(language)
    return remember_language(redirect(safe_next(request, "/")), language)


def login_locked(request: HttpRequest, original_response=None, credentials=None) -> HttpResponse:
    """The page of a locked log-in (django-axes' ``AXES_LOCKOUT_CALLABLE``: the web and admin
    log-in forms, the password page). An API answer is left as it is: it already says
    ``login_locked`` in the error shape (``accounts.services``)."""
    if original_response is not None and request.path.startswith("/api/"):
        return original_response
    error = login_locked_error()
    response = render(
        request, "web/auth/locked.html", {"message": error.message, "nav": "login"}, status=429
    )
    response["Retry-After"] = str(error.detail["retry_after_seconds"])
    return response
