"""Site-level pages."""
from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import JsonResponse
from django.shortcuts import redirect
from django.views import defaults

from .throttling import auth_throttle_wait


@login_required
def home(request):
    """Staff start at the datasets, annotators at their labelling queues."""
    return redirect("dataset-list" if request.user.is_staff else "annotate")


def page_not_found(request, exception):
    """404: JSON under /api/ (a URL no endpoint matches, such as ``datasets/abc/``), as every API
    error is; the site's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def healthz(request):
    """Liveness for load balancers: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


class LoginView(auth_views.LoginView):
    """Django's login form, throttled like ``POST auth/token/`` (``paralab.throttling``): over the
    limit the password is not even checked, and the form comes back with 429 and ``Retry-After``."""

    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        wait = auth_throttle_wait(request)
        if wait is not None:
            return self.throttled(request, wait)
        return super().post(request, *args, **kwargs)

    def throttled(self, request, wait: int):
        form = self.get_form_class()(request, initial={"username": request.POST.get("username", "")})
        message = f"Too many login attempts. Try again in {wait} second{'s' if wait != 1 else ''}."
        response = self.render_to_response(self.get_context_data(form=form, throttled=message), status=429)
        response["Retry-After"] = str(wait)
        return response
