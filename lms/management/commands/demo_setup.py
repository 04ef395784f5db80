"""manage.py demo_setup: create the demo admin, course admin and learner, approve the seed item
bank (as a course admin would, so the demo's exam certifies), give the demo learner a study
history and print how to log in.

The history goes through the services a learner's pages use, at past times: eight steps of the
first module read and completed over two and a half weeks (the last one today, so its cards are
new and due), the next step begun, and a review session on most of the past days replayed
through the due queue and ``review_record``. Run again, it adds nothing: completing a step is
idempotent and a learner who has reviewed keeps their reviews.
"""

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from accounts import api as accounts_api
from courses import api as courses_api
from progress import api as progress_api
from quizzes import api as quizzes_api
from reviews import api as reviews_api

# Days before now on which the demo learner completed steps 1, 2, 3 …
DEMO_COMPLETED_DAYS_AGO = [16, 14, 12, 9, 7, 5, 2, 0]
# How many past days of review sessions are replayed.
DEMO_REVIEW_DAYS = 16

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
            elif not course_admin:
                self._learner_history(user)
        # The demo admin stands behind the generated seed bank, so the demo shows the whole
        # way to a certificate; a real course admin reviews each item
        # (docs/admins/question-bank.md).
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

    def _learner_history(self, learner) -> None:
        slugs = courses_api.module_slugs()
        if not slugs:
            self.stdout.write("No module imported: the demo learner starts without history.")
            return
        now = timezone.now()
        done = progress_api.demo_progress_create(
            learner_id=learner.pk,
            module_slug=slugs[0],
            completed_days_ago=DEMO_COMPLETED_DAYS_AGO,
            now=now,
        )
        reviews = reviews_api.demo_reviews_replay(learner=learner, days=DEMO_REVIEW_DAYS, now=now)
        self.stdout.write(
            f"{learner.username}: {done} step(s) of {slugs[0]} completed, "
            f"{reviews} past review(s) replayed" + ("" if reviews else " (history kept)")
        )
