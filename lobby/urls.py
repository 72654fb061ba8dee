from __future__ import annotations

from django.urls import path

from lobby import arena_views, views

app_name = "lobby"
urlpatterns = [
    path("", views.index, name="index"),
    path("new/<slug:game>/", views.create, name="create"),
    path("table/<int:table_id>/", views.table, name="table"),
    path("table/<int:table_id>/sit/", views.sit, name="sit"),
    path("table/<int:table_id>/stand/", views.stand, name="stand"),
    path("table/<int:table_id>/ready/", views.ready, name="ready"),
    path("table/<int:table_id>/start/", views.start, name="start"),
    path("table/<int:table_id>/rematch/", views.rematch, name="rematch"),
    path("table/<int:table_id>/bot/", views.bot_add, name="bot_add"),
    path("table/<int:table_id>/bot/remove/", views.bot_remove, name="bot_remove"),
    path("table/<int:table_id>/free/", views.free, name="free"),
    path("practice/<slug:game>/", views.practice, name="practice"),
    path("solo/<slug:game>/", views.solo, name="solo"),
    path("play/<slug:game>/", views.play_now, name="play_now"),
    path("queue/", views.queue, name="queue"),
    path("queue/leave/", views.queue_leave, name="queue_leave"),
    path("queue/keep/", views.queue_keep, name="queue_keep"),
    path("queue/banner/", views.queue_banner, name="queue_banner"),
    path("arena/new/", arena_views.arena_new, name="arena_new"),
    path("arena/<int:arena_id>/", arena_views.arena, name="arena"),
    path("arena/<int:arena_id>/status/", arena_views.arena_status, name="arena_status"),
    path("arena/<int:arena_id>/join/", arena_views.arena_join, name="arena_join"),
    path("arena/<int:arena_id>/pause/", arena_views.arena_pause, name="arena_pause"),
    path("arena/<int:arena_id>/leave/", arena_views.arena_leave, name="arena_leave"),
    path("chat/report/", views.chat_report, name="chat_report"),
    path("chat/ignore/", views.chat_ignore, name="chat_ignore"),
    path("chat/unignore/", views.chat_unignore, name="chat_unignore"),
]
