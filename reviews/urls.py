"""Web routes of the reviews app: unsubscribe, the calendar feed and the /reviews/ redirect."""

from django.urls import path
from django.views.generic import RedirectView

from reviews import views

urlpatterns = [
    path(
        "reminders/unsubscribe/<str:token>/",
        views.unsubscribe,
        name="reminder-unsubscribe",
    ),
    # The private calendar address (settings page: copy, revoke, new).
    path("calendar/<str:token>.ics", views.calendar_feed, name="calendar-feed"),
    # E-mails already sent keep this link, wherever the web app puts its review page.
    path("reviews/", RedirectView.as_view(pattern_name="web:review"), name="reviews-page"),
]
