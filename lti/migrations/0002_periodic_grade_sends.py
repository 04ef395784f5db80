"""Schedule lti.tasks.grade_sends_retry every minute (django-celery-beat); the schedule is
defined in lms/periodic_tasks.py."""

from django.db import migrations

from lms.periodic_tasks import LTI_GRADE_SENDS_RETRY, periodic_task_migration


class Migration(migrations.Migration):
    dependencies = [
        ("lti", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(*periodic_task_migration(LTI_GRADE_SENDS_RETRY))]
