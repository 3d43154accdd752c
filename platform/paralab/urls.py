"""URL configuration: pages, the admin, and the REST API under /api/v1/."""
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from annotation import views as annotation_views
from corpus import views as corpus_views
from jobs import views as jobs_views
from modelhub import views as modelhub_views
from paralab import dashboard as dashboard_views
from paralab import views as site_views
from paraphrases import views as paraphrase_views

urlpatterns = [
    path("", site_views.home, name="home"),
    path("login/", site_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("datasets/", corpus_views.dataset_list_page, name="dataset-list"),
    path("datasets/<int:dataset_id>/", corpus_views.dataset_detail_page, name="dataset-detail"),
    path("datasets/<int:dataset_id>/candidates/", paraphrase_views.dataset_candidates_page, name="dataset-candidates"),
    path("datasets/<int:dataset_id>/generate/", paraphrase_views.dataset_generate_page, name="dataset-generate"),
    path("paraphrase/", paraphrase_views.paraphrase_page, name="paraphrase"),
    path("scanning/start/", dashboard_views.scanning_start_page, name="scanning-start"),
    path("problems/<int:problem_id>/", corpus_views.problem_detail_page, name="problem-detail"),
    path("jobs/", jobs_views.job_list_page, name="job-list"),
    path("annotate/", annotation_views.annotate_index_page, name="annotate"),
    path("annotate/<int:dataset_id>/", annotation_views.annotate_dataset_page, name="annotate-dataset"),
    path("annotate/<int:dataset_id>/labels/", annotation_views.annotate_labels_page, name="annotate-labels"),
    path("adjudicate/<int:dataset_id>/", annotation_views.adjudicate_page, name="adjudicate"),
    path("dashboard/", dashboard_views.dashboard_page, name="dashboard"),
    path("models/", modelhub_views.model_list_page, name="model-list"),
    path("models/<str:kind>/retrain/", modelhub_views.model_retrain_page, name="model-retrain"),
    path("models/judge/refit/", modelhub_views.judge_refit_page, name="judge-refit"),
    path("models/<str:kind>/calibrate/", modelhub_views.model_calibrate_page, name="model-calibrate"),
    path("healthz/", site_views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("paralab.api_urls")),
]

handler404 = "paralab.views.page_not_found"
