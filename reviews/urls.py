"""Web routes of the reviews app (outside the API): the unsubscribe link of reminder e-mails."""

from django.urls import path

from reviews import views

urlpatterns = [
    path(
        "reminders/unsubscribe/<str:token>/",
        views.unsubscribe,
        name="reminder-unsubscribe",
    ),
]
