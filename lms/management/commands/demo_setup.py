"""manage.py demo_setup: create the demo admin, course admin and learner, approve the seed item
bank (as a course admin would, so the demo's exam certifies) and print how to log in."""

from django.conf import settings
from django.core.management.base import BaseCommand

from accounts import api as accounts_api
from quizzes import api as quizzes_api

DEMO_USERS = (
    # username, password, is_staff (a superuser), course admin (group "Kursverwaltung"), name
    ("admin", "lernpfad-admin-demo", True, False, "Demo Admin"),
    ("kurs", "lernpfad-kurs-demo", False, True, "Karla Kursverwaltung"),
    ("lena", "lernpfad-lena-demo", False, False, "Lena Lernende"),
)


class Command(BaseCommand):
    help = (
        "Create (or reset) the demo admin, course admin and learner and approve the exam item "
        "banks (run generate_exam_items first); for local use only."
    )

    def handle(self, *args, **options):
        reviewer = None
        for username, password, is_staff, course_admin, name in DEMO_USERS:
            user = accounts_api.demo_user_reset(
                username=username,
                password=password,
                display_name=name,
                # The name her certificate states (a certifying exam asks for it first).
                full_name=name,
                is_staff=is_staff,
                course_admin=course_admin,
            )
            if is_staff:
                reviewer = user
        # The demo admin stands behind the generated seed bank, so the demo shows the whole
        # way to a certificate; a real course admin reviews each item (README "Item bank").
        approved = quizzes_api.exam_banks_approve(reviewer_id=reviewer.pk if reviewer else None)
        for slug, count in approved.items():
            self.stdout.write(f"{slug}: {count} exam item(s) approved by the demo admin")
        site = settings.SITE_URL  # make run sets it to the address it serves
        self.stdout.write(
            self.style.SUCCESS(
                "Demo log-in (local use only):\n"
                f"  admin:        admin / lernpfad-admin-demo  -> {site}/admin/\n"
                f"  course admin: kurs  / lernpfad-kurs-demo   -> {site}/admin/\n"
                f"  learner:      lena  / lernpfad-lena-demo   -> {site}/\n"
                f"  API docs: {site}/api/docs/"
            )
        )
