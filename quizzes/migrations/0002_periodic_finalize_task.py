"""Schedule quizzes.tasks.exam_attempts_finalize_expired every minute (django-celery-beat); the
schedule is defined in lms/periodic_tasks.py."""

from django.db import migrations

from lms.periodic_tasks import EXAM_ATTEMPTS_FINALIZE, periodic_task_migration


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(*periodic_task_migration(EXAM_ATTEMPTS_FINALIZE))]
