"""manage.py demo_setup: create the demo admin and learner and print how to log in."""

from django.core.management.base import BaseCommand

from accounts import api as accounts_api

DEMO_USERS = (
    # username, password, is_staff
    ("admin", "lernpfad-admin-demo", True),
    ("lena", "lernpfad-lena-demo", False),
)


class Command(BaseCommand):
    help = "Create (or reset) the demo admin and demo learner; for local use only."

    def handle(self, *args, **options):
        for username, password, is_staff in DEMO_USERS:
            accounts_api.demo_user_reset(
                username=username,
                password=password,
                display_name="Demo Admin" if is_staff else "Lena Lernende",
                # The name her certificate states (a certifying exam asks for it first).
                full_name="Demo Admin" if is_staff else "Lena Lernende",
                is_staff=is_staff,
            )
        self.stdout.write(
            self.style.SUCCESS(
                "Demo log-in (local use only):\n"
                "  admin:   admin / lernpfad-admin-demo   -> http://127.0.0.1:8000/admin/\n"
                "  learner: lena  / lernpfad-lena-demo    -> http://127.0.0.1:8000/\n"
                "  API docs: http://127.0.0.1:8000/api/docs/"
            )
        )
