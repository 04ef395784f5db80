"""manage.py changepassword: Django's, and the new password revokes the account's mobile tokens
as every password change does (``services.password_set``)."""

import getpass

from django.contrib.auth.management.commands import changepassword

from accounts.models import User
from accounts.services import credentials_revoke


class Command(changepassword.Command):
    def handle(self, *args, **options):
        message = super().handle(*args, **options)
        user = User.objects.get(username=options["username"] or getpass.getuser())
        credentials_revoke(user_id=user.pk, sessions=False)
        return message
