"""``manage.py lti_rotate_key``: a new LTI signing key; old keys leave the JWKS after the
grace period (LTI_KEY_GRACE_DAYS). ``--retire-only`` only retires keys past it."""

from django.core.management.base import BaseCommand

from lti import services


class Command(BaseCommand):
    help = "Create a new LTI signing key and retire keys whose grace period has passed."

    def add_arguments(self, parser):
        parser.add_argument("--retire-only", action="store_true", help="Create no new key.")

    def handle(self, *args, retire_only: bool = False, **options):
        key, retired = services.key_rotate(new_key=not retire_only)
        if key is not None:
            self.stdout.write(
                f"New signing key {key.as_jwk()['kid']} is in the JWKS and signs from now on."
            )
        self.stdout.write(f"{retired} key(s) retired from the JWKS.")
