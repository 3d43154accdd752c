from django.apps import AppConfig


class ParaphrasesConfig(AppConfig):
    name = "paraphrases"
    verbose_name = "Paraphrases"

    def ready(self) -> None:
        from dataclasses import replace

        from ml.generation import get_generator, register
        from ml.generation.llm import InstructLLMGenerator

        from .handout import LLM_GENERATOR, llm_config

        # The instruct LLM with the settings' threads and samples wherever it runs by name (the generate
        # job, the forms), as the handout runs it.
        generator = get_generator(LLM_GENERATOR)
        if isinstance(generator, InstructLLMGenerator):
            register(replace(generator, config=llm_config()), replace=True, default=False)

        from corpus.exporters import ExportSource, export_source_register
        from modelhub.generated import CandidateServices, candidate_services_register

        from .candidates import candidates_queue, candidates_store
        from .selection import candidates_score
        from .selectors import VARIANT_FIELDS, variant_export_count, variant_export_rows

        # PAP's parallel corpus (a modelhub kind) stores STEAD's rewrites through the generation app's
        # candidate services; modelhub reaches them here (modelhub.generated), never by import.
        candidate_services_register(CandidateServices(score=candidates_score, store=candidates_store,
                                                      queue=candidates_queue))
        # The dataset export's ``variants`` (corpus.exporters) are what the deciding judge accepts.
        export_source_register("variants", ExportSource(fields=VARIANT_FIELDS, rows=variant_export_rows,
                                                        count=variant_export_count))
