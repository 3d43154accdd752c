"""Throttling of the two endpoints that check a password: the login form (``/login/``) and
``POST /api/v1/auth/token/``.

Both draw on one budget, the ``"auth"`` rate of ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``
(``PARALAB_AUTH_THROTTLE``, default 30/min), counted twice: per client address and per username
tried. The first bounds one address guessing passwords of many accounts, the second one account
guessed from many addresses; using the page and the API by turns gains nothing. The rate is read
at request time (a settings change applies without a restart of the class attributes).

The client address is DRF's: ``REMOTE_ADDR``, or behind ``NUM_PROXIES`` reverse proxies the address
the nearest one appended to ``X-Forwarded-For`` (settings). Counters live in the default cache.
"""
from __future__ import annotations

import hashlib
import math

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

SCOPE = "auth"


class AuthRateThrottle(SimpleRateThrottle):
    scope = SCOPE

    def get_rate(self) -> str | None:
        # DRF binds THROTTLE_RATES when the module is imported; read the current settings instead.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)


class AuthAddressThrottle(AuthRateThrottle):
    """Password checks per client address (the key DRF's ScopedRateThrottle gives anonymous calls)."""

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class AuthUsernameThrottle(AuthRateThrottle):
    """Password checks per username tried, whatever the address (none when no username is given)."""

    def get_cache_key(self, request, view) -> str | None:
        username = submitted_username(request).strip().casefold()
        if not username:
            return None
        digest = hashlib.sha256(username.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return self.cache_format % {"scope": f"{self.scope}-user", "ident": digest}


def submitted_username(request) -> str:
    """The ``username`` of a login form (Django request) or of a token request (DRF request)."""
    data = getattr(request, "data", None)  # DRF's parsed body; a plain Django request has POST
    if data is None:
        data = request.POST
    value = data.get("username") if hasattr(data, "get") else None
    return value if isinstance(value, str) else ""


def auth_throttle_wait(request) -> int | None:
    """Count one password check of ``request``; None when it may go ahead, else the whole seconds
    to wait before the next one is allowed."""
    waits = []
    for throttle in (AuthAddressThrottle(), AuthUsernameThrottle()):
        if not throttle.allow_request(request, None):
            waits.append(throttle.wait() or 1.0)
    return max(1, math.ceil(max(waits))) if waits else None
