"""Pages for browsing datasets and problems (filled in by the site work)."""
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse


@login_required
def dataset_list_page(request):
    return HttpResponse("datasets")


@login_required
def dataset_detail_page(request, dataset_id: int):
    return HttpResponse("dataset")


@login_required
def problem_detail_page(request, problem_id: int):
    return HttpResponse("problem")
