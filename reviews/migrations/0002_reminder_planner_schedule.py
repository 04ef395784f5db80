"""The reminder planner's beat schedule: every 15 minutes, as a row admins see and change in the
admin ("Periodic tasks"), read by django-celery-beat's DatabaseScheduler."""

from django.db import migrations

TASK_NAME = "reviews: plan reminder digests"
TASK = "reviews.tasks.reminders_plan"


def schedule_create(apps, schema_editor):
    IntervalSchedule = apps.get_model("django_celery_beat", "IntervalSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    every_15_minutes, _ = IntervalSchedule.objects.get_or_create(every=15, period="minutes")
    PeriodicTask.objects.get_or_create(
        name=TASK_NAME,
        defaults={
            "task": TASK,
            "interval": every_15_minutes,
            "enabled": True,
            "description": (
                "Claims the daily review digests whose local reminder time fell in the last "
                "30 minutes and enqueues their sending; also re-enqueues claims whose task "
                "was lost. Safe to run more often or twice at once."
            ),
        },
    )


def schedule_delete(apps, schema_editor):
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTask.objects.filter(name=TASK_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0001_initial"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [migrations.RunPython(schedule_create, schedule_delete)]
