"""manage.py build_fixtures [DOC ...]: write Django fixtures for documents under fixtures/."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from courses.content_plan import plan_documents
from courses.documents import DocumentError
from courses.fixture_builder import fixture_files_write
from courses.services.importing import default_document_paths, documents_parse


class Command(BaseCommand):
    help = "Build fixtures (JSON, natural keys) from course documents."

    def add_arguments(self, parser):
        parser.add_argument("documents", nargs="*", help="document files (.txt)")
        parser.add_argument(
            "--output", default=str(settings.LERNPFAD_FIXTURES_DIR), help="target folder"
        )

    def handle(self, *args, documents, output, **options):
        try:
            plan = plan_documents(documents_parse(documents or default_document_paths()))
            written = fixture_files_write(plan, Path(output))
        except DocumentError as exc:
            raise CommandError(f"{exc} (no fixture was written)") from exc
        for path in written:
            self.stdout.write(f"wrote {path}")
