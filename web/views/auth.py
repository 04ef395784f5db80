"""Sign up, log in, log out, password reset (Django's auth views with our templates), language."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.services import user_register, user_update
from lms.errors import DomainError
from web.forms import LanguageForm, LoginForm, SignUpForm
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
    """Create an account with the accounts service, log the learner in, go to the dashboard."""
    if request.user.is_authenticated:
        return redirect("web:home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        language = translation.get_language() or settings.LANGUAGE_CODE
        try:
            user = user_register(
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
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Welcome to Lernpfad! Your account is ready."))
            return remember_language(redirect("web:home"), user.language)
    return render(request, "web/auth/signup.html", {"form": form, "nav": "signup"})


class LoginView(auth_views.LoginView):
    """Django's log-in; afterwards the interface speaks the learner's stored language."""

    template_name = "web/auth/login.html"
    authentication_form = LoginForm
    redirect_authenticated_user = True
    extra_context = {"nav": "login"}

    def form_valid(self, form):
        response = super().form_valid(form)
        return remember_language(response, form.get_user().language)


class LogoutView(auth_views.LogoutView):
    next_page = reverse_lazy("web:home")


class PasswordResetView(auth_views.PasswordResetView):
    template_name = "web/auth/password_reset_form.html"
    email_template_name = "web/auth/password_reset_email.txt"
    subject_template_name = "web/auth/password_reset_subject.txt"
    success_url = reverse_lazy("web:password_reset_done")


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "web/auth/password_reset_done.html"


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "web/auth/password_reset_confirm.html"
    success_url = reverse_lazy("web:password_reset_complete")


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
