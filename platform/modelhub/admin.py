from django.contrib import admin

from .models import ModelVersion


@admin.register(ModelVersion)
class ModelVersionAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "name", "status", "base_model", "created_at", "activated_at")
    list_filter = ("kind", "status")
    search_fields = ("name", "base_model", "artifact_path")
    raw_id_fields = ("job",)
