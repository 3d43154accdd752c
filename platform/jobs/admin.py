from django.contrib import admin

from .models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "status", "progress", "dataset", "created_by", "created_at", "finished_at")
    list_filter = ("kind", "status", "queue")
    search_fields = ("id", "celery_task_id", "error")
    readonly_fields = ("created_at", "started_at", "finished_at", "heartbeat_at")
