"""The table of the production cache (django.core.cache.backends.db.DatabaseCache).

Production keeps its cache in PostgreSQL (lms/settings/production.py): the throttles count per
client there, shared by every gunicorn worker. A model, so that ``migrate`` creates the table
wherever Lernpfad is installed (compose, make run, the benchmark); the columns are the ones
``manage.py createcachetable`` would create, which then finds the table and does nothing.
"""

from django.db import models

CACHE_TABLE = "lernpfad_cache"


class CacheEntry(models.Model):
    """One cache entry; only DatabaseCache reads and writes these rows (raw SQL)."""

    cache_key = models.CharField(max_length=255, primary_key=True)
    value = models.TextField()
    expires = models.DateTimeField(db_index=True)

    class Meta:
        db_table = CACHE_TABLE
        verbose_name_plural = "cache entries"

    def __str__(self) -> str:
        return self.cache_key
