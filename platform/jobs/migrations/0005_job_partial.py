from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("jobs", "0004_job_cancel_and_paraphrase"),
    ]

    operations = [
        migrations.AddField(
            model_name="job",
            name="partial",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
