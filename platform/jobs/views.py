"""The /jobs/ page: every job with a live progress bar (polls GET /api/v1/jobs/{id}/)."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.shortcuts import render
from django.urls import reverse
from django.utils.html import format_html
from django.views.decorators.http import require_safe

from .selectors import job_list


@require_safe
@login_required
def job_list_page(request):
    # Not staff_member_required: it sends a logged-in annotator to /login/, and the login page
    # (redirect_authenticated_user) sends them straight back, a redirect loop. Refuse instead.
    if not request.user.is_staff:
        raise PermissionDenied("The jobs page is for staff.")
    page = Paginator(job_list(user=request.user), 50).get_page(request.GET.get("page"))
    return render(request, "jobs/job_list.html", {"page": page})


def job_started_message(job, what: str):
    """The flash message of a page that started a job: what started, with a link to its row on
    the jobs page (live progress, time left, cancel)."""
    return format_html('{} started as <a href="{}#job-{}">job {}</a>; its progress is on the jobs page.',
                       what, reverse("job-list"), job.pk, job.pk)
