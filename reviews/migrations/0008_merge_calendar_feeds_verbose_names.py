"""Joins two migrations written at the same time: the calendar feeds and the admin's translated
names. Neither depends on the other."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0007_calendarfeed"),
        ("reviews", "0007_verbose_names"),
    ]

    operations = []
