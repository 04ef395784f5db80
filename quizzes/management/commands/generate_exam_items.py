"""manage.py generate_exam_items [MODULE ...]: (re)generate the exam item bank from the content."""

from django.core.management.base import BaseCommand, CommandError

from courses import api as courses_api
from lms.errors import NotFound
from quizzes.services.items import exam_items_generate


class Command(BaseCommand):
    help = (
        "Generate or update the generated exam items of the given modules (default: all) from "
        "their steps. Hand-written items and past attempts are never changed."
    )

    def add_arguments(self, parser):
        parser.add_argument("modules", nargs="*", metavar="MODULE", help="module slugs")

    def handle(self, *args, **options):
        slugs = options["modules"] or courses_api.module_slugs()
        for slug in slugs:
            try:
                module = courses_api.module_by_slug(slug)
            except NotFound as exc:
                raise CommandError(exc.message) from exc
            report = exam_items_generate(module_id=module.id)
            self.stdout.write(f"{slug}: {report.summary()}")
