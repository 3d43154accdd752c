from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ModelhubConfig(AppConfig):
    name = "modelhub"
    verbose_name = "Model versions"

    def ready(self) -> None:
        from .kinds.judge import JudgeKind
        from .kinds.judge.shipped import install_on_migrate
        from .kinds.llm_gate import LLMGateKind
        from .kinds.pap import PapKind
        from .kinds.paraqd import ParaQDKind
        from .kinds.registry import register
        from .kinds.stead import SteadKind

        # The built-in kinds; a new kind is one more line here.
        for kind in (ParaQDKind(), JudgeKind(), SteadKind(), PapKind(), LLMGateKind()):
            register(kind, replace=True)
        # A fresh installation decides with the shipped judge from its first migrate.
        post_migrate.connect(install_on_migrate, sender=self, dispatch_uid="modelhub.shipped_judge")
