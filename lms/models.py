"""The production cache's table (DatabaseCache), as a model so that ``migrate`` creates it;
the columns are those ``createcachetable`` would create."""

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
