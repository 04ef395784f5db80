"""Input and output shapes of the accounts API. Every serializer lists its fields."""

from rest_framework import serializers

from accounts.models import Device, User
from accounts.services import DEFAULT_TIME_ZONE, DEVICE_NAME_MAX_LENGTH


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


class MeUpdateSerializer(serializers.Serializer):
    """PATCH /me/: types only; the rules (ranges, zones, quiet hours) live in user_update."""

    email = serializers.CharField(max_length=254, allow_blank=True)
    display_name = serializers.CharField(max_length=150, allow_blank=True)
    full_name = serializers.CharField(
        max_length=150,
        allow_blank=True,
        help_text="Your full name as certificates state it; required before a certifying exam.",
    )
    language = serializers.CharField(max_length=5)
    time_zone = serializers.CharField(max_length=64)
    reminder_time = serializers.TimeField()
    quiet_hours_start = serializers.TimeField(allow_null=True)
    quiet_hours_end = serializers.TimeField(allow_null=True)
    reminder_email = serializers.BooleanField()
    desired_retention = serializers.FloatField()
    new_cards_per_day = serializers.IntegerField()
    reviews_per_day = serializers.IntegerField()


class RegisterSerializer(serializers.Serializer):
    username = serializers.CharField(
        max_length=150, help_text="A public handle; it may not be an e-mail address."
    )
    email = serializers.CharField(max_length=254)
    password = serializers.CharField(max_length=128, write_only=True, trim_whitespace=False)
    display_name = serializers.CharField(max_length=150, required=False, default="")
    full_name = serializers.CharField(
        max_length=150,
        required=False,
        default="",
        allow_blank=True,
        help_text="Your full name as certificates state it (optional now; a certifying exam "
        "asks for it).",
    )
    language = serializers.CharField(max_length=5, required=False, default="de")
    time_zone = serializers.CharField(max_length=64, required=False, default=DEFAULT_TIME_ZONE)
    device_name = serializers.CharField(
        max_length=DEVICE_NAME_MAX_LENGTH,
        required=False,
        default="",
        allow_blank=True,
        help_text="Ignored: registration issues no token any more; give it to auth/token/.",
    )


class AcceptedSerializer(serializers.Serializer):
    """202: the request is taken; what follows comes by e-mail (if the address has an account,
    or for registration: if it had none). The same answer for every address."""

    status = serializers.ChoiceField(choices=["mail_sent"])
    message = serializers.CharField(help_text="What to do next, in the request's language.")


class EmailRequestSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)


class EmailConfirmSerializer(serializers.Serializer):
    token = serializers.CharField(
        max_length=500, help_text="The last part of the link in the confirmation mail."
    )


class EmailConfirmedSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["confirmed"])
    message = serializers.CharField()


class TokenRequestSerializer(serializers.Serializer):
    """Log-in for a mobile app: the username or the e-mail address, and the password."""

    username = serializers.CharField(max_length=254, required=False, default="")
    email = serializers.CharField(max_length=254, required=False, default="")
    password = serializers.CharField(max_length=128, trim_whitespace=False)
    device_name = serializers.CharField(
        max_length=DEVICE_NAME_MAX_LENGTH, required=False, default="", allow_blank=True
    )

    def validate(self, attrs):
        if bool(attrs["username"].strip()) == bool(attrs["email"].strip()):
            raise serializers.ValidationError("Give either the username or the e-mail address.")
        return attrs


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
