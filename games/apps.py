from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = gettext_lazy("Games")

    def ready(self) -> None:
        # TetriWar's hot fragments are built by a pure module (no Django): it speaks
        # the active language through Django's gettext, installed here.
        from django.utils.translation import get_language, gettext

        from games.tetriwar import render

        render.use_translator(gettext, get_language)
