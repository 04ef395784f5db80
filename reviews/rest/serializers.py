"""Input and output shapes of the reviews API. Every serializer lists its fields."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from lms.rendering import datetime_formatter
from reviews.models import Notification, ReviewCard
from reviews.selectors import DUE_PAGE_DEFAULT, DUE_PAGE_MAX

# The four FSRS ratings (an integer enum in the schema, ReviewRatingEnum).
REVIEW_RATINGS = [(1, "Again"), (2, "Hard"), (3, "Good"), (4, "Easy")]


def _rating_field(**kwargs) -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=REVIEW_RATINGS, help_text="1 Again, 2 Hard, 3 Good, 4 Easy", **kwargs
    )


def _card_kind_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=ReviewCard.Kind.choices)


def _card_state_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(
        choices=ReviewCard.State.choices, help_text="FSRS state: 1 learning, 2 review, 3 relearning"
    )


class DueQuerySerializer(serializers.Serializer):
    limit = serializers.IntegerField(
        min_value=1, max_value=DUE_PAGE_MAX, default=DUE_PAGE_DEFAULT, required=False
    )


class IntervalPreviewSerializer(serializers.Serializer):
    rating = _rating_field()
    name = serializers.CharField()
    due = serializers.DateTimeField()
    seconds = serializers.IntegerField(help_text="Interval until due, before fuzzing.")


class DueCardSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = _card_kind_field()
    front = serializers.CharField(
        help_text="Names the step's term: the term itself (definition card), or the question "
        "with the term in front unless it names it already (quick-check card)."
    )
    term = serializers.CharField(help_text="The term of the card's step.")
    module_title = serializers.CharField(help_text="The title of the step's module.")
    state = _card_state_field()
    is_new = serializers.BooleanField()
    due = serializers.DateTimeField()
    intervals = IntervalPreviewSerializer(many=True)


class DailyBudgetSerializer(serializers.Serializer):
    new_cards_per_day = serializers.IntegerField()
    reviews_per_day = serializers.IntegerField()
    reviewed_today = serializers.IntegerField()
    new_today = serializers.IntegerField()
    reviews_left = serializers.IntegerField()
    new_left = serializers.IntegerField()


class DueQueueSerializer(serializers.Serializer):
    """The due queue. The fields below are the contract (and the OpenAPI schema);
    ``to_representation`` writes the same dict directly, because DRF's generic walk over ten
    cards with four intervals each was a fifth of the request (bench/results/latest.md). A test
    compares the two outputs."""

    due_count = serializers.IntegerField(
        help_text="Cards reviewable now within today's limits (reviews first, then new cards)."
    )
    review_count = serializers.IntegerField()
    new_count = serializers.IntegerField()
    due_total = serializers.IntegerField(help_text="All cards due now, ignoring the limits.")
    budget = DailyBudgetSerializer()
    cards = DueCardSerializer(many=True)

    def to_representation(self, instance):
        budget = instance.budget
        datetime = datetime_formatter()
        return {
            "due_count": instance.due_count,
            "review_count": instance.review_count,
            "new_count": instance.new_count,
            "due_total": instance.due_total,
            "budget": {
                "new_cards_per_day": budget.new_cards_per_day,
                "reviews_per_day": budget.reviews_per_day,
                "reviewed_today": budget.reviewed_today,
                "new_today": budget.new_today,
                "reviews_left": budget.reviews_left,
                "new_left": budget.new_left,
            },
            "cards": [
                {
                    "id": card.id,
                    "kind": card.kind,
                    "front": card.front,
                    "term": card.term,
                    "module_title": card.module_title,
                    "state": card.state,
                    "is_new": card.is_new,
                    "due": datetime(card.due),
                    "intervals": [
                        {
                            "rating": interval.rating,
                            "name": interval.name,
                            "due": datetime(interval.due),
                            "seconds": interval.seconds,
                        }
                        for interval in card.intervals
                    ],
                }
                for card in instance.cards
            ],
        }


class ReviewCreateSerializer(serializers.Serializer):
    card = serializers.IntegerField(min_value=1)
    rating = _rating_field()
    duration_ms = serializers.IntegerField(
        min_value=0, max_value=24 * 60 * 60 * 1000, required=False, allow_null=True
    )
    client_review_id = serializers.RegexField(
        r"^[A-Za-z0-9._:-]{1,64}$",
        help_text="Chosen by the client (e.g. a UUID); a replay returns the original result.",
    )


class ReviewResultSerializer(serializers.Serializer):
    review_id = serializers.IntegerField()
    card_id = serializers.IntegerField()
    client_review_id = serializers.CharField()
    rating = _rating_field()
    reviewed_at = serializers.DateTimeField()
    state = _card_state_field()
    stability = serializers.FloatField()
    difficulty = serializers.FloatField()
    due = serializers.DateTimeField()
    interval_seconds = serializers.IntegerField()
    replayed = serializers.BooleanField(help_text="True when this client review id was seen.")

    def to_representation(self, instance):
        # The same dict as DRF's walk over the fields above (a test compares them), written
        # directly: it answers every review.
        iso = datetime_formatter()
        return {
            "review_id": instance.review_id,
            "card_id": instance.card_id,
            "client_review_id": instance.client_review_id,
            "rating": instance.rating,
            "reviewed_at": iso(instance.reviewed_at),
            "state": instance.state,
            "stability": float(instance.stability),
            "difficulty": float(instance.difficulty),
            "due": iso(instance.due),
            "interval_seconds": instance.interval_seconds,
            "replayed": instance.replayed,
        }


class UndoResultSerializer(serializers.Serializer):
    review_id = serializers.IntegerField(help_text="The review that was undone (now deleted).")
    card_id = serializers.IntegerField()
    rating = _rating_field()
    reviewed_at = serializers.DateTimeField()
    due = serializers.DateTimeField(help_text="The card's restored due date.")
    state = _card_state_field()


class CardFacesSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = _card_kind_field()
    front = serializers.CharField(help_text="As in the due queue: names the step's term.")
    back = serializers.CharField()
    term = serializers.CharField()
    module_title = serializers.CharField()
    step_id = serializers.IntegerField()
    module_id = serializers.IntegerField()
    step_number = serializers.IntegerField()
    state = _card_state_field()
    due = serializers.DateTimeField()
    last_review = serializers.DateTimeField(allow_null=True)
    suspended = serializers.BooleanField()


class DayCountSerializer(serializers.Serializer):
    date = serializers.DateField()
    count = serializers.IntegerField()


class ReviewStatsSerializer(serializers.Serializer):
    due_today = serializers.IntegerField(help_text="Cards due before your local midnight.")
    reviewed_today = serializers.IntegerField()
    streak_days = serializers.IntegerField(
        help_text="Consecutive local days with reviews, up to today (or yesterday)."
    )
    reviews_total = serializers.IntegerField()
    recalled_total = serializers.IntegerField()
    recall_share = serializers.FloatField(
        allow_null=True, help_text="Share of reviews rated Hard, Good or Easy (not Again)."
    )
    per_day = DayCountSerializer(many=True, help_text="The last 90 local days, oldest first.")


# Where a notification leads in the app (a route the app knows) and on the web, by kind.
APP_LINKS = {Notification.Kind.REVIEW_DIGEST: "lernpfad://reviews/due"}


class ReviewDigestPayloadSerializer(serializers.Serializer):
    """The payload of a ``review_digest`` notification."""

    due_count = serializers.IntegerField(help_text="Cards due when the digest was sent.")
    local_date = serializers.DateField(help_text="The learner's local day of the digest.")
    url = serializers.URLField(help_text="The review page on the web.")
    app_url = serializers.CharField(
        help_text="The same place in the app: a deep link (lernpfad://reviews/due) to route."
    )


class NotificationSerializer(serializers.ModelSerializer):
    payload = serializers.SerializerMethodField()

    class Meta:
        model = Notification
        fields = ["id", "kind", "title", "body", "payload", "created_at", "read_at"]
        read_only_fields = fields

    @extend_schema_field(ReviewDigestPayloadSerializer)
    def get_payload(self, notification: Notification) -> dict:
        # The deep link is derived, not stored: notifications sent before it existed have it too.
        return {**notification.payload, "app_url": APP_LINKS[notification.kind]}


class NotificationListQuerySerializer(serializers.Serializer):
    unread = serializers.BooleanField(required=False, default=False)


class MarkedCountSerializer(serializers.Serializer):
    marked = serializers.IntegerField()
