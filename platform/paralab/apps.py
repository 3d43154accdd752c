from django.apps import AppConfig


class ParalabConfig(AppConfig):
    name = "paralab"
    verbose_name = "paralab"

    def ready(self) -> None:
        from paralab.celery import log_execution_mode

        log_execution_mode()
