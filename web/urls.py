"""Routes of the learner's web pages."""

urlpatterns: list = []
