"""Which table host owns a table: tables are spread over GAME_HOST_SHARDS shards,
each served on its own channel, ``game-host-<shard>``."""

from __future__ import annotations

HOST_CHANNEL_PREFIX = "game-host-"


def shard_count() -> int:
    from django.conf import settings

    return settings.GAME_HOST_SHARDS


def shard_of(table_id: int) -> int:
    return table_id % shard_count()


def host_channel(table_id: int) -> str:
    return f"{HOST_CHANNEL_PREFIX}{shard_of(table_id)}"


def shard_of_channel(channel: str) -> int | None:
    if channel.startswith(HOST_CHANNEL_PREFIX) and channel[len(HOST_CHANNEL_PREFIX):].isdigit():
        return int(channel[len(HOST_CHANNEL_PREFIX):])
    return None
