"""Routes of the content API (the module detail and the step are progress.rest's)."""

from django.urls import path

from courses.rest import views

urlpatterns = [
    path("modules/", views.ModuleListView.as_view(), name="module-list"),
    path("modules/<slug:module>/bundle/", views.ModuleBundleView.as_view(), name="module-bundle"),
    path(
        "modules/<slug:module>/term-cards/",
        views.TermCardListView.as_view(),
        name="term-card-list",
    ),
]
