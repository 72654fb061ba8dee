from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = gettext_lazy("Accounts and chips")

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from accounts import csrf
        from accounts.caching import user_changed
        from accounts.models import User

        csrf.install()  # CSRF masks drawn in one call (accounts/csrf.py)

        def retire(sender, instance, **kwargs):
            user_changed(instance.pk)

        post_save.connect(retire, sender=User, dispatch_uid="accounts.user_changed.save", weak=False)
        post_delete.connect(retire, sender=User, dispatch_uid="accounts.user_changed.delete", weak=False)
