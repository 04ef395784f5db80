"""Input and output shapes of the accounts API. Every serializer lists its fields."""

from django.conf import settings
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.data import DESIRED_RETENTION_MAX, DESIRED_RETENTION_MIN
from accounts.models import Device, User
from accounts.services import (
    DEFAULT_TIME_ZONE,
    DEVICE_NAME_MAX_LENGTH,
    NEW_CARDS_PER_DAY_MAX,
    REVIEWS_PER_DAY_MAX,
)
from lms.local_time import time_zone_names
from lms.openapi import both_or_neither, exactly_one_of, object_rules
from lms.serializers import BodySerializer


class MeSerializer(serializers.ModelSerializer):
    """The learner's own account and preferences."""

    # Not an EmailField: empty (no change waiting) is its usual value, and "" is no address.
    pending_email = serializers.CharField(
        read_only=True,
        help_text="A new address waiting for its confirmation link; empty when none.",
    )

    class Meta:
        model = User
        fields = [
            "id",
            "username",
            "email",
            "pending_email",
            "display_name",
            "full_name",
            "language",
            "time_zone",
            "reminder_time",
            "quiet_hours_start",
            "quiet_hours_end",
            "reminder_email",
            "desired_retention",
            "new_cards_per_day",
            "reviews_per_day",
            "date_joined",
        ]
        read_only_fields = fields


@extend_schema_field({"type": "string", "enum": sorted(time_zone_names())})
class _TimeZoneField(serializers.ChoiceField):
    """An IANA time zone name: an enum in the schema, without listing every zone again in the
    description as a ChoiceField would (user_update checks it again)."""


def _time_zone_field(**kwargs) -> serializers.ChoiceField:
    return _TimeZoneField(choices=sorted(time_zone_names()), **kwargs)


@object_rules(**both_or_neither("quiet_hours_start", "quiet_hours_end"))
class MeUpdateSerializer(BodySerializer):
    """PATCH /me/: the types, and the rules a client can know before sending (ranges, zones,
    both ends of the quiet hours) stated for the schema; user_update checks them all."""

    # EmailField: "format: email" in the schema; user_update checks the address again.
    email = serializers.EmailField(max_length=254)
    display_name = serializers.CharField(max_length=150, allow_blank=True)
    full_name = serializers.CharField(
        max_length=150,
        allow_blank=True,
        help_text="Your full name as certificates state it; required before a certifying exam.",
    )
    language = serializers.ChoiceField(choices=User.Language.choices)
    time_zone = _time_zone_field(help_text="An IANA time zone name (e.g. Europe/Berlin).")
    reminder_time = serializers.TimeField()
    quiet_hours_start = serializers.TimeField(
        allow_null=True,
        help_text="With quiet_hours_end, both or neither (null: none); the two differ.",
    )
    quiet_hours_end = serializers.TimeField(allow_null=True)
    reminder_email = serializers.BooleanField()
    desired_retention = serializers.FloatField(
        min_value=DESIRED_RETENTION_MIN, max_value=DESIRED_RETENTION_MAX
    )
    new_cards_per_day = serializers.IntegerField(min_value=0, max_value=NEW_CARDS_PER_DAY_MAX)
    reviews_per_day = serializers.IntegerField(min_value=0, max_value=REVIEWS_PER_DAY_MAX)

    def validate(self, attrs):
        # Both ends in one request: an end alone would pair with whatever is stored.
        if ("quiet_hours_start" in attrs) != ("quiet_hours_end" in attrs):
            raise serializers.ValidationError(
                {
                    "quiet_hours": [
                        _("Set both the start and the end of the quiet hours, or neither.")
                    ]
                }
            )
        return attrs


# Django's MinimumLengthValidator (AUTH_PASSWORD_VALIDATORS), stated in the schema.
PASSWORD_MIN_LENGTH = next(
    validator["OPTIONS"]["min_length"]
    for validator in settings.AUTH_PASSWORD_VALIDATORS
    if validator["NAME"].endswith(".MinimumLengthValidator")
)


# The service checks the length with the other password rules and names every problem at once
# (too short and too common), where a field's min_length would stop at the first.
@object_rules(properties={"password": {"minLength": PASSWORD_MIN_LENGTH}})
class RegisterSerializer(BodySerializer):
    # Django's username characters (UnicodeUsernameValidator), stated as the schema's pattern.
    username = serializers.RegexField(
        r"^[\w.@+-]+$",
        max_length=150,
        help_text="A public handle of letters, digits and @.+-_; it may not be an e-mail address.",
    )
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(
        max_length=128,
        write_only=True,
        trim_whitespace=False,
        help_text=f"At least {PASSWORD_MIN_LENGTH} characters; not a common password, not like "
        "the username or the e-mail address.",
    )
    # The optional fields have no schema default, so a generated client leaves them out and the
    # server's value applies (``validate``).
    display_name = serializers.CharField(
        max_length=150,
        required=False,
        allow_blank=True,
        help_text="The name greetings use; left out or empty: the username.",
    )
    full_name = serializers.CharField(
        max_length=150,
        required=False,
        allow_blank=True,
        help_text="Your full name as certificates state it (optional now; a certifying exam "
        "asks for it).",
    )
    language = serializers.ChoiceField(
        choices=User.Language.choices,
        required=False,
        help_text="The language of messages and mails; left out: de.",
    )
    time_zone = _time_zone_field(
        required=False,
        help_text=f"An IANA time zone name; left out: {DEFAULT_TIME_ZONE}.",
    )
    device_name = serializers.CharField(
        max_length=DEVICE_NAME_MAX_LENGTH,
        required=False,
        allow_blank=True,
        help_text="Ignored: registration issues no token any more; give it to auth/token/.",
    )

    def validate(self, attrs):
        attrs.pop("device_name", None)
        return {
            "display_name": "",
            "full_name": "",
            "language": User.Language.GERMAN,
            "time_zone": DEFAULT_TIME_ZONE,
        } | attrs


class AcceptedSerializer(serializers.Serializer):
    """202: the request is taken; what follows comes by e-mail (if the address has an account,
    or for registration: if it had none). The same answer for every address."""

    status = serializers.ChoiceField(choices=["mail_sent"])
    message = serializers.CharField(help_text="What to do next, in the request's language.")


class EmailRequestSerializer(BodySerializer):
    email = serializers.EmailField(max_length=254)


class EmailConfirmSerializer(BodySerializer):
    token = serializers.CharField(
        max_length=500, help_text="The last part of the link in the confirmation mail."
    )


class EmailConfirmedSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["confirmed"])
    message = serializers.CharField()


@object_rules(**exactly_one_of("login", "username", "email", non_blank=True))
class TokenRequestSerializer(BodySerializer):
    """Log-in for a mobile app: the password and exactly one of ``login`` (the username or the
    e-mail address, as the web form's one field), ``username`` or ``email``."""

    # Optional without a default, so a client sends only the one given; empty is left out.
    login = serializers.CharField(
        max_length=254,
        required=False,
        allow_blank=True,
        help_text="The username or the e-mail address (as the web log-in's one field).",
    )
    username = serializers.CharField(max_length=254, required=False, allow_blank=True)
    email = serializers.CharField(max_length=254, required=False, allow_blank=True)
    password = serializers.CharField(max_length=128, trim_whitespace=False)
    device_name = serializers.CharField(
        max_length=DEVICE_NAME_MAX_LENGTH,
        required=False,
        allow_blank=True,
        help_text="How the device list names this device; left out: from the User-Agent.",
    )

    def validate(self, attrs):
        given = [name for name in ("login", "username", "email") if attrs.get(name, "").strip()]
        if len(given) != 1:
            raise serializers.ValidationError(
                _("Give one of login, username or e-mail address, and the password.")
            )
        return {"device_name": ""} | attrs


class TokenResponseSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as 'Authorization: Token <token>'.")
    expiry = serializers.DateTimeField(allow_null=True)
    device_id = serializers.IntegerField()
    user = MeSerializer()

    @staticmethod
    def payload(*, instance, token: str, user: User) -> dict:
        return {
            "token": token,
            "expiry": instance.expiry,
            "device_id": instance.device.pk,
            "user": user,
        }


class DeviceSerializer(serializers.ModelSerializer):
    expiry = serializers.DateTimeField(source="token.expiry", allow_null=True)
    current = serializers.SerializerMethodField()

    class Meta:
        model = Device
        fields = ["id", "name", "created_at", "expiry", "current"]

    def get_current(self, device: Device) -> bool:
        return device.token_id == self.context.get("current_digest")
