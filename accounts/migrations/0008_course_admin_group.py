"""The course-admin group "Kursverwaltung" with the role's permissions (accounts/roles.py)."""

from django.db import migrations

from accounts.roles import course_admin_group_sync


def group_sync(apps, schema_editor):
    course_admin_group_sync(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_user_full_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        # The models whose permissions the role holds.
        ("courses", "0007_quickcheck_role"),
        ("progress", "0002_content_types_from_courses"),
        ("quizzes", "0009_certificate_revocation"),
        ("reviews", "0006_definition_echo_cards_merged"),
    ]

    operations = [migrations.RunPython(group_sync, migrations.RunPython.noop)]
