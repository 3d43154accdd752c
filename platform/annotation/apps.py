from django.apps import AppConfig


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Annotation"

    def ready(self) -> None:
        from . import signals  # noqa: F401  (connects the label_count and labels-per-item receivers)
