"""E-mail confirmation: ``User.email_confirmed_at`` and ``User.pending_email``.

Every account that exists when this runs counts as confirmed (at the migration's time). They
signed up before confirmation existed and have been receiving reminders and reset mails at that
address; treating them as unconfirmed would lock them out of log-in and silently stop their
reminders until they found a mail they were never sent. The demo accounts are among them (and
``demo_setup`` confirms them again). Only sign-ups from now on wait for their link.

The column is added without a default first, so the fill below is the one place that decides
what existing rows hold; then the model's default (confirmed at creation, for accounts an
operator creates) is set.
"""

import django.utils.timezone
from django.db import migrations, models


def existing_accounts_confirm(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    User.objects.filter(email_confirmed_at__isnull=True).update(
        email_confirmed_at=django.utils.timezone.now()
    )


class Migration(migrations.Migration):
    dependencies = [("accounts", "0005_user_session_epoch")]

    operations = [
        migrations.AddField(
            model_name="user",
            name="email_confirmed_at",
            field=models.DateTimeField(editable=False, null=True),
        ),
        migrations.RunPython(existing_accounts_confirm, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="user",
            name="email_confirmed_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now, editable=False, null=True
            ),
        ),
        migrations.AddField(
            model_name="user",
            name="pending_email",
            field=models.EmailField(blank=True, default="", editable=False, max_length=254),
        ),
    ]
