"""The /jobs/ page: every job with a live progress bar (polls GET /api/v1/jobs/)."""
from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.core.paginator import Paginator
from django.shortcuts import render

from .selectors import job_list


@staff_member_required(login_url="/login/")
def job_list_page(request):
    page = Paginator(job_list(user=request.user), 50).get_page(request.GET.get("page"))
    return render(request, "jobs/job_list.html", {"page": page})
