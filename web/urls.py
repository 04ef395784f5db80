"""Routes of the learner's web pages (included at the site root)."""

from django.urls import path

import lms.converters  # noqa: F401  (registers <token:…>, <id:…>, <number:…>)
from web.views import (
    account,
    auth,
    calendar_feed,
    certificates,
    dev_outbox,
    exam,
    fsrs,
    learning,
    notes,
    pages,
    review,
    stats,
)

app_name = "web"

urlpatterns = [
    path("", pages.home, name="home"),
    path("help/keyboard/", pages.keyboard_help, name="keyboard"),
    # Accounts
    path("signup/", auth.signup, name="signup"),
    path("signup/sent/", auth.signup_sent, name="signup_sent"),
    # The paths of the links in account mails are accounts.mails' *_PATH (a test checks both).
    path("confirm-email/", auth.email_confirmation_resend, name="email_confirmation_resend"),
    path("confirm-email/<str:token>/", auth.email_confirm_page, name="email_confirm"),
    path("login/", auth.LoginView.as_view(), name="login"),
    path("logout/", auth.LogoutView.as_view(), name="logout"),
    path("password-reset/", auth.PasswordResetView.as_view(), name="password_reset"),
    path("password-reset/sent/", auth.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password-reset/<uidb64>/<token>/",
        auth.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password-reset/done/",
        auth.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("language/", auth.language_set, name="language"),
    path("settings/", account.settings_page, name="settings"),
    path("settings/password/", account.password_change_page, name="password_change"),
    path("settings/logout-everywhere/", account.logout_everywhere, name="logout_everywhere"),
    path("settings/export/", account.data_export, name="data_export"),
    path("settings/delete/", account.account_delete_page, name="account_delete"),
    path("account-deleted/", account.account_deleted, name="account_deleted"),
    path("settings/fsrs/optimize/", fsrs.fsrs_optimize, name="fsrs_optimize"),
    path("settings/calendar/new/", calendar_feed.calendar_feed_new, name="calendar_feed_new"),
    path(
        "settings/calendar/revoke/", calendar_feed.calendar_feed_revoke, name="calendar_feed_revoke"
    ),
    # Learning
    path("modules/<slug:module>/", learning.module_detail, name="module"),
    path("modules/<slug:module>/enroll/", learning.enroll, name="enroll"),
    path("modules/<slug:module>/exam-date/", fsrs.exam_date_save, name="exam_date"),
    path("modules/<slug:module>/steps/<number:number>/", learning.step_detail, name="step"),
    path(
        "modules/<slug:module>/steps/<number:number>/progress/",
        learning.step_progress,
        name="step_progress",
    ),
    path(
        "modules/<slug:module>/steps/<number:number>/sections/read/",
        learning.section_read,
        name="section_read",
    ),
    path(
        "modules/<slug:module>/steps/<number:number>/notes/", learning.note_save, name="note_save"
    ),
    path(
        "modules/<slug:module>/steps/<number:number>/quick-checks/<id:quick_check>/",
        learning.quick_check_rate,
        name="quick_check_rate",
    ),
    # Reviews and statistics
    path("review/", review.review_session, name="review"),
    path("review/rate/", review.review_rate, name="review_rate"),
    path("review/undo/", review.review_undo, name="review_undo"),
    path("stats/", stats.stats, name="stats"),
    path("my/notes/", notes.notes_page, name="notes"),
    path("dev/outbox/", dev_outbox.dev_outbox, name="dev_outbox"),
    # Exam
    path("modules/<slug:module>/exam/", exam.exam_page, name="exam"),
    path("modules/<slug:module>/exam/start/", exam.exam_start, name="exam_start"),
    path("exam/attempts/<id:attempt>/", exam.attempt_page, name="attempt"),
    path("exam/attempts/<id:attempt>/submit/", exam.attempt_submit, name="attempt_submit"),
    path("exam/attempts/<id:attempt>/result/", exam.attempt_result, name="attempt_result"),
    # Certificates (the public verification page is routed in lms.urls: its URL is printed).
    path("my/certificates/<token:code>/", certificates.certificate_page, name="certificate"),
    path(
        "my/certificates/<token:code>/pdf",
        certificates.certificate_pdf,
        name="certificate_pdf",
    ),
]
