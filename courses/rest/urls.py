"""Routes of the content API."""

from django.urls import path

from courses.rest import progress_views, views

urlpatterns = [
    path("modules/", views.ModuleListView.as_view(), name="module-list"),
    path("modules/<slug:module>/", views.ModuleDetailView.as_view(), name="module-detail"),
    path(
        "modules/<slug:module>/steps/<int:number>/",
        views.StepDetailView.as_view(),
        name="step-detail",
    ),
    path(
        "modules/<slug:module>/term-cards/",
        views.TermCardListView.as_view(),
        name="term-card-list",
    ),
]

# Personal routes: enrollment, progress, offline sync, notes (courses/rest/progress_views.py).
urlpatterns += [
    path("enrollments/", progress_views.EnrollmentListView.as_view(), name="enrollment-list"),
    path(
        "modules/<slug:module>/enrollment/",
        progress_views.EnrollmentView.as_view(),
        name="enrollment",
    ),
    path(
        "modules/<slug:module>/progress/",
        progress_views.ModuleProgressView.as_view(),
        name="module-progress",
    ),
    path(
        "modules/<slug:module>/steps/<int:number>/progress/",
        progress_views.StepProgressEventView.as_view(),
        name="step-progress",
    ),
    path(
        "modules/<slug:module>/steps/<int:number>/notes/",
        progress_views.StepNotesView.as_view(),
        name="step-notes",
    ),
    path("progress/sync/", progress_views.ProgressSyncView.as_view(), name="progress-sync"),
]
