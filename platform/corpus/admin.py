from django.contrib import admin

from .models import Dataset, Problem


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "created_by", "created_at")
    search_fields = ("name", "description")
    filter_horizontal = ("annotators",)


@admin.register(Problem)
class ProblemAdmin(admin.ModelAdmin):
    list_display = ("id", "dataset", "source", "split", "short_text", "answer")
    list_filter = ("dataset", "source", "split")
    search_fields = ("text", "source_id")
    readonly_fields = ("text_hash", "created_at")
    list_select_related = ("dataset",)

    @admin.display(description="text")
    def short_text(self, obj: Problem) -> str:
        return obj.text[:100]
