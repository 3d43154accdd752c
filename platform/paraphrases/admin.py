from django.contrib import admin

from .models import Candidate, Score


class ScoreInline(admin.TabularInline):
    model = Score
    extra = 0
    readonly_fields = ("created_at",)


@admin.register(Candidate)
class CandidateAdmin(admin.ModelAdmin):
    list_display = ("id", "problem_id", "generator", "prompt", "intended_valid", "short_text")
    list_filter = ("generator", "intended_valid")
    search_fields = ("text", "problem__text")
    raw_id_fields = ("problem", "model_version")
    readonly_fields = ("text_hash", "created_at")
    inlines = [ScoreInline]

    @admin.display(description="text")
    def short_text(self, obj: Candidate) -> str:
        return obj.text[:100]


@admin.register(Score)
class ScoreAdmin(admin.ModelAdmin):
    list_display = ("id", "candidate_id", "scorer_version", "paraqd", "similarity", "diversity", "numeracy", "pqi")
    list_filter = ("scorer_version",)
    raw_id_fields = ("candidate", "model_version")
