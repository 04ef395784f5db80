"""REST routes of the quizzes app: quick-check ratings, the exam, certificates."""

from django.urls import path

import lms.converters  # noqa: F401  (registers <id:…> and <number:…>)
from quizzes.rest import views

urlpatterns = [
    path(
        "modules/<slug:module>/steps/<number:number>/quick-checks/",
        views.StepQuickCheckListView.as_view(),
        name="step-quick-check-list",
    ),
    path(
        "modules/<slug:module>/steps/<number:number>/quick-checks/<id:quick_check>/answers/",
        views.QuickCheckAnswerView.as_view(),
        name="quick-check-answer",
    ),
    path("modules/<slug:module>/exam/", views.ExamOverviewView.as_view(), name="exam-overview"),
    path(
        "modules/<slug:module>/exam/attempts/",
        views.ExamAttemptStartView.as_view(),
        name="exam-attempt-start",
    ),
    path(
        "exam-attempts/<id:attempt>/",
        views.ExamAttemptDetailView.as_view(),
        name="exam-attempt-detail",
    ),
    path(
        "exam-attempts/<id:attempt>/answers/",
        views.ExamAttemptAnswersView.as_view(),
        name="exam-attempt-answers",
    ),
    path(
        "exam-attempts/<id:attempt>/submit/",
        views.ExamAttemptSubmitView.as_view(),
        name="exam-attempt-submit",
    ),
    path("certificates/", views.CertificateListView.as_view(), name="certificate-list"),
    path(
        "certificates/verify/<str:code>/",
        views.CertificateVerifyView.as_view(),
        name="certificate-verify-api",
    ),
    path(
        "certificates/<str:code>/pdf/",
        views.CertificatePdfView.as_view(),
        name="certificate-pdf",
    ),
]
