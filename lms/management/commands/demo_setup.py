"""manage.py demo_setup: create the demo admin and learner and print how to log in."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.utils import timezone

from accounts import api as accounts_api

DEMO_USERS = (
    # username, password, is_staff
    ("admin", "lernpfad-admin-demo", True),
    ("lena", "lernpfad-lena-demo", False),
)


class Command(BaseCommand):
    help = "Create (or reset) the demo admin and demo learner; for local use only."

    def handle(self, *args, **options):
        User = get_user_model()
        for username, password, is_staff in DEMO_USERS:
            user, _ = User.objects.get_or_create(
                username=username, defaults={"email": f"{username}@example.org"}
            )
            user.is_staff = user.is_superuser = is_staff
            user.display_name = "Lena Lernende" if not is_staff else "Demo Admin"
            user.set_password(password)
            user.next_reminder_at = accounts_api.reminder_next_at(
                learner=user, changed_at=timezone.now()
            )
            user.save()
        self.stdout.write(
            self.style.SUCCESS(
                "Demo log-in (local use only):\n"
                "  admin:   admin / lernpfad-admin-demo   -> http://127.0.0.1:8000/admin/\n"
                "  learner: lena  / lernpfad-lena-demo    -> http://127.0.0.1:8000/\n"
                "  API docs: http://127.0.0.1:8000/api/docs/"
            )
        )
