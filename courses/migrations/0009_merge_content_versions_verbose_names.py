"""Joins two migrations written at the same time: the module content versions (the mobile
bundle's delta) and the admin's translated names. Neither depends on the other."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("courses", "0008_module_content_version"),
        ("courses", "0008_verbose_names"),
    ]

    operations = []
