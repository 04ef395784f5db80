"""The learner's full name for certificates (``User.full_name``), filled from Django's
first_name/last_name where an admin had set them."""

from django.db import migrations, models


def full_names_fill(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for user in User.objects.exclude(first_name="", last_name="").only("first_name", "last_name"):
        name = f"{user.first_name} {user.last_name}".strip()[:150]
        if name:
            User.objects.filter(pk=user.pk, full_name="").update(full_name=name)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0006_user_email_confirmation")]

    operations = [
        migrations.AddField(
            model_name="user",
            name="full_name",
            field=models.CharField(blank=True, max_length=150),
        ),
        migrations.RunPython(full_names_fill, migrations.RunPython.noop, elidable=True),
    ]
