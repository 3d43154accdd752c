from django.contrib import admin

from .models import AnnotationItem, Assignment, GoldLabel, Label, LabelHistory


class LabelInline(admin.TabularInline):
    model = Label
    extra = 0
    raw_id_fields = ("annotator",)


@admin.register(AnnotationItem)
class AnnotationItemAdmin(admin.ModelAdmin):
    list_display = ("id", "dataset", "candidate_id", "purpose", "required_labels", "created_at")
    list_filter = ("dataset", "purpose")
    raw_id_fields = ("candidate",)
    inlines = [LabelInline]


@admin.register(Label)
class LabelAdmin(admin.ModelAdmin):
    list_display = ("id", "item_id", "annotator", "valid", "solvability", "diversity", "fluency", "updated_at")
    list_filter = ("valid",)
    raw_id_fields = ("item", "annotator")


@admin.register(GoldLabel)
class GoldLabelAdmin(admin.ModelAdmin):
    list_display = ("id", "candidate_id", "valid", "source", "decided_by", "updated_at")
    list_filter = ("valid", "source")
    raw_id_fields = ("candidate", "decided_by")


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ("id", "item_id", "annotator", "status", "leased_until", "updated_at")
    list_filter = ("status", "item__dataset")
    raw_id_fields = ("item", "annotator")


@admin.register(LabelHistory)
class LabelHistoryAdmin(admin.ModelAdmin):
    list_display = ("id", "item_id", "annotator", "action", "label_id", "at")
    list_filter = ("action",)
    raw_id_fields = ("item", "annotator", "label")
    readonly_fields = ("item", "annotator", "label", "action", "data", "at")
