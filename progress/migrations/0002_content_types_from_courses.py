"""The moved models keep their content types (and so their permissions, admin log entries and
group grants): the rows that said courses.enrollment … now say progress.enrollment …"""

from django.db import migrations

MODELS = ("enrollment", "stepprogress", "progressevent", "stepnote")


def _relabel(apps, *, old: str, new: str) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    taken = set(
        content_type.objects.filter(app_label=new, model__in=MODELS).values_list("model", flat=True)
    )
    content_type.objects.filter(app_label=old, model__in=set(MODELS) - taken).update(app_label=new)


def forwards(apps, schema_editor):
    _relabel(apps, old="courses", new="progress")


def backwards(apps, schema_editor):
    _relabel(apps, old="progress", new="courses")


class Migration(migrations.Migration):
    dependencies = [
        ("progress", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
