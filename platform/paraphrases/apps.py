from django.apps import AppConfig


class ParaphrasesConfig(AppConfig):
    name = "paraphrases"
    verbose_name = "Paraphrases"
