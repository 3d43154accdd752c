"""REST API v1 (CONTRACT.md). Session auth for the browser, token auth for scripts."""
from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from corpus import apis as corpus_apis
from jobs import apis as jobs_apis
from modelhub import apis as modelhub_apis
from paralab import apis as site_apis

urlpatterns = [
    path("auth/token/", site_apis.TokenObtainApi.as_view(), name="api-token"),
    path("datasets/", corpus_apis.DatasetListCreateApi.as_view(), name="api-dataset-list"),
    path("datasets/<int:dataset_id>/", corpus_apis.DatasetDetailApi.as_view(), name="api-dataset-detail"),
    path("datasets/<int:dataset_id>/problems/", corpus_apis.ProblemListApi.as_view(), name="api-problem-list"),
    path("datasets/<int:dataset_id>/import/", corpus_apis.DatasetImportApi.as_view(), name="api-dataset-import"),
    path("datasets/<int:dataset_id>/export/", corpus_apis.DatasetExportApi.as_view(), name="api-dataset-export"),
    path("datasets/<int:dataset_id>/exports/", corpus_apis.DatasetExportJobApi.as_view(), name="api-dataset-export-job"),
    path("jobs/", jobs_apis.JobListApi.as_view(), name="api-job-list"),
    path("jobs/<int:job_id>/", jobs_apis.JobDetailApi.as_view(), name="api-job-detail"),
    path("jobs/<int:job_id>/download/", corpus_apis.ExportJobDownloadApi.as_view(), name="api-job-download"),
    path("models/", modelhub_apis.ModelVersionListApi.as_view(), name="api-model-list"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
]
