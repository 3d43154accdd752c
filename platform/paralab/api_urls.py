"""REST API v1 (CONTRACT.md). Session auth for the browser, token auth for scripts."""
import json

from django.urls import path
from drf_spectacular.settings import spectacular_settings
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView
from rest_framework.exceptions import NotFound

from annotation import apis as annotation_apis
from corpus import apis as corpus_apis
from jobs import apis as jobs_apis
from modelhub import apis as modelhub_apis
from paralab import apis as site_apis
from paraphrases import apis as paraphrase_apis


class SchemaApi(SpectacularAPIView):
    """``GET schema/``: the OpenAPI schema, YAML as before; ``?format=json`` answers it as
    ``application/json`` (``?format=yaml``: YAML). The site turns DRF's ``?format=`` override off
    (that name belongs to the export endpoint), so the schema reads it here; without it the
    ``Accept`` header negotiates as it always did."""

    MEDIA_TYPES = {"json": "application/json", "yaml": "application/vnd.oai.openapi"}

    def perform_content_negotiation(self, request, force=False):
        wanted = request.query_params.get("format", "").strip().lower()
        if not wanted or force:  # force: rendering an error, in whatever the client accepts
            return super().perform_content_negotiation(request, force)
        for renderer in self.get_renderers():
            if renderer.format == wanted and renderer.media_type == self.MEDIA_TYPES.get(wanted):
                return renderer, renderer.media_type
        raise NotFound(f"format: the schema comes as {' or '.join(self.MEDIA_TYPES)}, not {wanted!r}")


class ApiDocsView(SpectacularSwaggerView):
    """``GET docs/``: Swagger UI under a bar with the way back to the site and the raw schema; the
    endpoints start folded by tag (a table of contents) with a filter box above them."""

    template_name = "api_docs.html"
    UI_SETTINGS = {"deepLinking": True, "docExpansion": "none", "filter": True, "tagsSorter": "alpha"}

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        configured = spectacular_settings.SWAGGER_UI_SETTINGS
        if isinstance(configured, dict):  # a string there is JavaScript, taken as it is
            response.data["settings"] = json.dumps({**self.UI_SETTINGS, **configured}, indent=2)
        return response


urlpatterns = [
    path("auth/token/", site_apis.TokenObtainApi.as_view(), name="api-token"),
    path("datasets/", corpus_apis.DatasetListCreateApi.as_view(), name="api-dataset-list"),
    path("datasets/<int:dataset_id>/", corpus_apis.DatasetDetailApi.as_view(), name="api-dataset-detail"),
    path("datasets/<int:dataset_id>/problems/", corpus_apis.ProblemListApi.as_view(), name="api-problem-list"),
    path("datasets/<int:dataset_id>/import/", corpus_apis.DatasetImportApi.as_view(), name="api-dataset-import"),
    path("datasets/<int:dataset_id>/export/", corpus_apis.DatasetExportApi.as_view(), name="api-dataset-export"),
    path("datasets/<int:dataset_id>/exports/", corpus_apis.DatasetExportJobApi.as_view(), name="api-dataset-export-job"),
    path("datasets/<int:dataset_id>/generate/", paraphrase_apis.DatasetGenerateApi.as_view(),
         name="api-dataset-generate"),
    path("datasets/<int:dataset_id>/candidates/", paraphrase_apis.CandidateListApi.as_view(),
         name="api-dataset-candidates"),
    path("paraphrase/", paraphrase_apis.ParaphraseApi.as_view(), name="api-paraphrase"),
    path("generators/", paraphrase_apis.GeneratorListApi.as_view(), name="api-generator-list"),
    path("datasets/<int:dataset_id>/agreement/", annotation_apis.DatasetAgreementApi.as_view(),
         name="api-dataset-agreement"),
    path("annotation/next/", annotation_apis.AnnotationNextApi.as_view(), name="api-annotation-next"),
    path("annotation/undo/", annotation_apis.LabelUndoApi.as_view(), name="api-annotation-undo"),
    path("annotation/labels/", annotation_apis.OwnLabelListApi.as_view(), name="api-annotation-labels"),
    path("annotation/items/<int:item_id>/", annotation_apis.AnnotationItemApi.as_view(), name="api-annotation-item"),
    path("annotation/items/<int:item_id>/label/", annotation_apis.LabelSubmitApi.as_view(), name="api-annotation-label"),
    path("annotation/items/<int:item_id>/skip/", annotation_apis.ItemSkipApi.as_view(), name="api-annotation-skip"),
    path("annotation/items/<int:item_id>/adjudicate/", annotation_apis.ItemAdjudicateApi.as_view(),
         name="api-annotation-adjudicate"),
    path("annotation/datasets/<int:dataset_id>/progress/", annotation_apis.DatasetProgressApi.as_view(),
         name="api-annotation-progress"),
    path("disagreements/", annotation_apis.DisagreementListApi.as_view(), name="api-disagreement-list"),
    path("jobs/", jobs_apis.JobListApi.as_view(), name="api-job-list"),
    path("jobs/<int:job_id>/", jobs_apis.JobDetailApi.as_view(), name="api-job-detail"),
    path("jobs/<int:job_id>/cancel/", jobs_apis.JobCancelApi.as_view(), name="api-job-cancel"),
    path("jobs/<int:job_id>/download/", corpus_apis.ExportJobDownloadApi.as_view(), name="api-job-download"),
    path("models/", modelhub_apis.ModelVersionListApi.as_view(), name="api-model-list"),
    path("models/judge/refit/", modelhub_apis.JudgeRefitApi.as_view(), name="api-judge-refit"),
    path("models/<str:kind>/retrain/", modelhub_apis.ModelRetrainApi.as_view(), name="api-model-retrain"),
    path("models/<str:kind>/calibrate/", modelhub_apis.ModelCalibrateApi.as_view(), name="api-model-calibrate"),
    path("schema/", SchemaApi.as_view(), name="api-schema"),
    path("docs/", ApiDocsView.as_view(url_name="api-schema"), name="api-docs"),
]
