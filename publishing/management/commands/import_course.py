"""manage.py import_course [--dry-run] [DOC ...]: the admin's import (same service) from a
shell; ``--dry-run`` prints the plan and writes nothing."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from courses import api as courses_api
from publishing.models import CourseImport
from publishing.preview import import_preview, plan_lines
from publishing.services import ImportStale, course_import_draft_create, course_import_publish


class Command(BaseCommand):
    help = (
        "Import course documents (default: fixtures/documents/*.txt) in one transaction, "
        "regenerate the exam items and record the import; --dry-run prints the plan only."
    )

    def add_arguments(self, parser):
        parser.add_argument("documents", nargs="*", help="document files (.txt)")
        parser.add_argument("--dry-run", action="store_true", help="print the plan, write nothing")

    def handle(self, *args, documents, dry_run, **options):
        paths = [Path(p) for p in documents] or sorted(
            Path(settings.LERNPFAD_DOCUMENTS_DIR).glob("*.txt")
        )
        files = []
        for path in paths:
            try:
                files.append((str(path), path.read_bytes()))
            except OSError as exc:
                raise CommandError(
                    f"{path}:0: cannot read the file: {exc.strerror} (nothing was imported)"
                ) from exc
        try:
            if dry_run:
                _plan, preview = import_preview(documents=files)
                self.stdout.write("\n".join(plan_lines(preview)))
                return
            draft, preview = course_import_draft_create(
                documents=files, user_id=None, origin=CourseImport.Origin.COMMAND
            )
            done = course_import_publish(
                course_import_id=draft.pk, fingerprint=preview.fingerprint, user_id=None
            )
        except courses_api.DocumentErrors as exc:
            raise CommandError(f"{exc} (nothing was imported)") from exc
        except ImportStale as exc:
            raise CommandError(
                "the course changed while importing; run the command again (nothing was imported)"
            ) from exc
        self.stdout.write("\n".join(plan_lines(preview)))
        self.stdout.write(
            self.style.SUCCESS(f"Imported (history #{done.pk}), rows written: {done.rows_written}.")
        )
