"""The per-address rate of registration and account mails (log-ins: django-axes)."""

from django.core.cache import caches
from django.utils.connection import ConnectionProxy
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle


class LoginRateThrottle(ScopedRateThrottle):
    """The view's ``throttle_scope`` rate per client address, read per request so settings
    overrides take effect (DRF copies the rates at import)."""

    # Counted in the "login" cache, which production shares among all web workers.
    cache = ConnectionProxy(caches, "login")

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
