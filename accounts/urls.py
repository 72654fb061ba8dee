from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views
from accounts.forms import LoginForm

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(authentication_form=LoginForm), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("guest/", views.guest, name="guest"),
    path("language/", views.language, name="language"),
    path("profile/", views.profile, name="profile"),
    path("profile/keys/", views.key_bindings, name="key_bindings"),
    path("profile/refill/", views.refill, name="refill"),
    path("players/<str:username>/", views.player_profile, name="player"),
    path("password/change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password/change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("password/reset/", auth_views.PasswordResetView.as_view(), name="password_reset"),
    path("password/reset/done/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path("reset/done/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
]
