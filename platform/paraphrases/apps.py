from django.apps import AppConfig


class ParaphrasesConfig(AppConfig):
    name = "paraphrases"
    verbose_name = "Paraphrases"

    def ready(self) -> None:
        from modelhub.generated import CandidateServices, candidate_services_register

        from .candidates import candidates_queue, candidates_store
        from .selection import candidates_score

        # PAP's parallel corpus (a modelhub kind) stores STEAD's rewrites through the generation app's
        # candidate services; modelhub reaches them here (modelhub.generated), never by import.
        candidate_services_register(CandidateServices(score=candidates_score, store=candidates_store,
                                                      queue=candidates_queue))
