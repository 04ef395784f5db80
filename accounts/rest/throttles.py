"""The per-address rate of the registration endpoint (and of privacy's erasure password).

Log-ins are not rated: django-axes counts their failures (accounts/lockout.py)."""

from django.core.cache import caches
from django.utils.connection import ConnectionProxy
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle


class LoginRateThrottle(ScopedRateThrottle):
    """The view's ``throttle_scope`` rate per client address (scope "login": registration, the
    password that confirms an erasure).

    DRF copies the rates onto the throttle class at import; reading them per request lets
    settings overrides (tests, a changed THROTTLE_LOGIN) take effect.
    """

    # Counted in the "login" cache, which production shares among all web workers.
    cache = ConnectionProxy(caches, "login")

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
