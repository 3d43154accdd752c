"""Site-level pages."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import JsonResponse
from django.shortcuts import redirect


@login_required
def home(request):
    """Staff start at the datasets, annotators at their labelling queues."""
    return redirect("dataset-list" if request.user.is_staff else "annotate")


def healthz(request):
    """Liveness for load balancers: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
