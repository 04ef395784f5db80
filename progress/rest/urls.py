"""Routes of the progress API: the content endpoints with the learner's side (module detail,
step), and the personal ones (enrollment, progress, offline sync, notes)."""

from django.urls import path

import lms.converters  # noqa: F401  (registers <id:…> and <number:…>)
from progress.rest import content_views, views

urlpatterns = [
    path("modules/<slug:module>/", content_views.ModuleDetailView.as_view(), name="module-detail"),
    path(
        "modules/<slug:module>/steps/<number:number>/",
        content_views.StepDetailView.as_view(),
        name="step-detail",
    ),
    path("enrollments/", views.EnrollmentListView.as_view(), name="enrollment-list"),
    path("modules/<slug:module>/enrollment/", views.EnrollmentView.as_view(), name="enrollment"),
    path(
        "modules/<slug:module>/progress/",
        views.ModuleProgressView.as_view(),
        name="module-progress",
    ),
    path(
        "modules/<slug:module>/steps/<number:number>/progress/",
        views.StepProgressEventView.as_view(),
        name="step-progress",
    ),
    path(
        "modules/<slug:module>/steps/<number:number>/notes/",
        views.StepNotesView.as_view(),
        name="step-notes",
    ),
    path("progress/sync/", views.ProgressSyncView.as_view(), name="progress-sync"),
]
