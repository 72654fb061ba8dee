from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class LobbyConfig(AppConfig):
    name = "lobby"
    verbose_name = gettext_lazy("Lobby and tables")

    def ready(self) -> None:
        # An arena's game ends: its table closes and its players are paired again.
        from games.services import game_over
        from lobby import arenas

        game_over.connect(arenas.on_game_over, dispatch_uid="arenas")
