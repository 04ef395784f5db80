"""REST routes of the reviews app (included under /api/v1/)."""

from django.urls import path

import lms.converters  # noqa: F401  (registers <id:…> and <number:…>)
from reviews.rest import views

urlpatterns = [
    path("reviews/", views.ReviewCreateView.as_view(), name="review-create"),
    path("reviews/batch/", views.ReviewBatchView.as_view(), name="review-batch"),
    path("reviews/due/", views.DueView.as_view(), name="review-due"),
    path("reviews/undo/", views.UndoView.as_view(), name="review-undo"),
    path("reviews/stats/", views.StatsView.as_view(), name="review-stats"),
    path("reviews/forecast/", views.ForecastView.as_view(), name="review-forecast"),
    path("reviews/retention/", views.TrueRetentionView.as_view(), name="review-retention"),
    path("reviews/cards/<id:card_id>/", views.CardDetailView.as_view(), name="review-card"),
    path("reviews/parameters/", views.ParametersView.as_view(), name="review-parameters"),
    path(
        "reviews/parameters/optimize/",
        views.ParametersOptimizeView.as_view(),
        name="review-parameters-optimize",
    ),
    path("me/calendar-feed/", views.CalendarFeedView.as_view(), name="calendar-feed-detail"),
    path(
        "me/calendar-feed/rotate/",
        views.CalendarFeedRotateView.as_view(),
        name="calendar-feed-rotate",
    ),
    path("modules/<slug:module>/exam-date/", views.ExamDateView.as_view(), name="module-exam-date"),
    path("notifications/", views.NotificationListView.as_view(), name="notification-list"),
    path(
        "notifications/read-all/",
        views.NotificationReadAllView.as_view(),
        name="notification-read-all",
    ),
    path(
        "notifications/<id:notification_id>/read/",
        views.NotificationReadView.as_view(),
        name="notification-read",
    ),
]
