"""Joins migrations written at the same time: the calendar feeds and FSRS parameters, and the
admin's translated names. Neither depends on the other."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("reviews", "0008_fsrs_parameters_exam_dates"),
        ("reviews", "0007_verbose_names"),
    ]

    operations = []
