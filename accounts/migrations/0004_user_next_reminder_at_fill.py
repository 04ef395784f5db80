"""Fill next_reminder_at for existing accounts: each learner's first reminder instant after the
migration's time minus the planner's 30-minute look-back (as a preference change would), NULL
for accounts without reminders (e-mail off, inactive, no address)."""

import datetime

from django.db import migrations
from django.utils import timezone

# The planner's REMINDER_LOOKBACK when this was written (a migration keeps its value).
LOOKBACK = datetime.timedelta(minutes=30)
BATCH = 1000


def next_reminder_fill(apps, schema_editor):
    # The pure time arithmetic the planner uses (no models): the same instants it will compute.
    from lms.local_time import ReminderSchedule

    User = apps.get_model("accounts", "User")
    after = timezone.now() - LOOKBACK
    last_id = 0
    while True:
        users = list(User.objects.filter(pk__gt=last_id).order_by("pk")[:BATCH])
        if not users:
            return
        for user in users:
            user.next_reminder_at = None
            if user.is_active and user.reminder_email and user.email:
                user.next_reminder_at = ReminderSchedule(
                    time_zone=user.time_zone,
                    reminder_time=user.reminder_time,
                    quiet_hours_start=user.quiet_hours_start,
                    quiet_hours_end=user.quiet_hours_end,
                ).next_after(after)
        User.objects.bulk_update(users, ["next_reminder_at"])
        last_id = users[-1].pk


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_user_next_reminder_at")]

    operations = [migrations.RunPython(next_reminder_fill, migrations.RunPython.noop)]
