"""The reminder planner's beat schedule: every 15 minutes, as a row admins see and change in the
admin ("Periodic tasks"), read by django-celery-beat's DatabaseScheduler; the schedule is
defined in lms/periodic_tasks.py."""

from django.db import migrations

from lms.periodic_tasks import REMINDERS_PLAN, periodic_task_migration


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(*periodic_task_migration(REMINDERS_PLAN))]
