from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ModelhubConfig(AppConfig):
    name = "modelhub"
    verbose_name = "Model versions"

    def ready(self) -> None:
        from .kinds.judge.shipped import install_on_migrate

        # A fresh installation decides with the shipped judge from its first migrate.
        post_migrate.connect(install_on_migrate, sender=self, dispatch_uid="modelhub.shipped_judge")
