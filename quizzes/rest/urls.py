"""REST routes of the quizzes app."""

urlpatterns: list = []
