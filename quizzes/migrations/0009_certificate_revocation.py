"""A certificate can be revoked by a course admin: the public page then says so and the JSON
verification answers 404. Existing certificates stay valid."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("quizzes", "0008_typed_item_kinds")]

    operations = [
        migrations.AddField(
            model_name="certificate",
            name="revoked_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="certificate",
            name="revocation_reason",
            field=models.CharField(blank=True, db_default="", max_length=200),
        ),
    ]
