"""Routes of the content API."""

from django.urls import path

from courses.rest import views

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
