"""REST routes of the reviews app."""

urlpatterns: list = []
