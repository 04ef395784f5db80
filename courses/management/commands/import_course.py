"""manage.py import_course [DOC ...]: parse documents and load them in one transaction."""

from django.core.management.base import BaseCommand, CommandError

from courses.documents import DocumentError
from courses.services.importing import course_import


class Command(BaseCommand):
    help = "Import course documents (default: fixtures/documents/*.txt) in one transaction."

    def add_arguments(self, parser):
        parser.add_argument("documents", nargs="*", help="document files (.txt)")

    def handle(self, *args, documents, **options):
        try:
            report = course_import(paths=documents or None)
        except DocumentError as exc:
            raise CommandError(f"{exc} (nothing was imported)") from exc
        self.stdout.write(self.style.SUCCESS(f"Imported. {report.summary()}"))
