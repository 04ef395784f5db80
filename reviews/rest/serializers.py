"""Input and output shapes of the reviews API. Every serializer lists its fields."""

import datetime

from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from lms.converters import ID_MAX
from lms.query import QuerySerializer
from lms.rendering import datetime_formatter
from lms.serializers import BodySerializer
from reviews.models import Notification, ReviewCard
from reviews.selectors import (
    DUE_PAGE_DEFAULT,
    DUE_PAGE_MAX,
    DUE_PAGE_OFFLINE_MAX,
    RETENTION_PERIODS,
    calendar_feed_url,
)
from reviews.services.review_batches import (
    BATCH_ERROR_CODES,
    REVIEW_BATCH_MAX,
    BatchReview,
    BatchStatus,
)

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


class DueQuerySerializer(QuerySerializer):
    limit = serializers.IntegerField(
        min_value=1,
        max_value=DUE_PAGE_OFFLINE_MAX,
        default=DUE_PAGE_DEFAULT,
        required=False,
        help_text=f"The most cards on the page: {DUE_PAGE_OFFLINE_MAX} with include=back (a "
        f"whole day's session to review offline), else at most {DUE_PAGE_MAX} whatever is "
        "asked. Never more than today's limits leave.",
    )
    include = serializers.ChoiceField(
        choices=["back"],
        required=False,
        help_text="back: each card with its back, so a session can be reviewed offline "
        "(then rated with POST /api/v1/reviews/batch/).",
    )

    def validate(self, attrs):
        # A page without the backs is for reviewing online, a few cards at a time: the schema
        # cannot make limit's maximum depend on include, so a larger limit is a cap, not a 400.
        if attrs.get("include") != "back":
            attrs["limit"] = min(attrs["limit"], DUE_PAGE_MAX)
        return attrs


class IntervalPreviewSerializer(serializers.Serializer):
    rating = _rating_field()
    name = serializers.CharField()
    due = serializers.DateTimeField()
    seconds = serializers.IntegerField(help_text="Interval until due, before fuzzing.")


class _BackField(serializers.CharField):
    """Left out of the card (not null) when the queue was not asked for the backs."""

    def get_attribute(self, instance):
        value = super().get_attribute(instance)
        if value is None:
            raise serializers.SkipField
        return value


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
    back = _BackField(
        required=False,
        help_text="The card's back (the definition, or the quick check's answer): only with "
        "include=back.",
    )


class DailyBudgetSerializer(serializers.Serializer):
    new_cards_per_day = serializers.IntegerField()
    reviews_per_day = serializers.IntegerField()
    reviewed_today = serializers.IntegerField()
    new_today = serializers.IntegerField()
    reviews_left = serializers.IntegerField()
    new_left = serializers.IntegerField()


class DueQueueSerializer(serializers.Serializer):
    """The due queue. The fields below are the contract (and the OpenAPI schema);
    ``to_representation`` writes the same dict directly: DRF's walk over ten cards with four
    intervals each cost 45 % of the request's CPU. A test compares the two outputs."""

    due_count = serializers.IntegerField(
        help_text="Cards reviewable now within today's limits (reviews first, then new cards)."
    )
    review_count = serializers.IntegerField()
    new_count = serializers.IntegerField()
    due_total = serializers.IntegerField(help_text="All cards due now, ignoring the limits.")
    budget = DailyBudgetSerializer()
    cards = DueCardSerializer(many=True)

    def to_representation(self, instance):
        return self.represent(instance)

    @classmethod
    def represent(cls, queue) -> dict:
        """The body of ``queue``: what ``DueQueueSerializer(queue).data`` gives, without
        building the serializer and its ReturnDict (the view answers with this)."""
        budget = queue.budget
        iso = datetime_formatter()
        return {
            "due_count": queue.due_count,
            "review_count": queue.review_count,
            "new_count": queue.new_count,
            "due_total": queue.due_total,
            "budget": {
                "new_cards_per_day": budget.new_cards_per_day,
                "reviews_per_day": budget.reviews_per_day,
                "reviewed_today": budget.reviewed_today,
                "new_today": budget.new_today,
                "reviews_left": budget.reviews_left,
                "new_left": budget.new_left,
            },
            "cards": [cls._card(card, iso) for card in queue.cards],
        }

    @staticmethod
    def _card(card, iso) -> dict:
        shown = {
            "id": card.id,
            "kind": card.kind,
            "front": card.front,
            "term": card.term,
            "module_title": card.module_title,
            "state": card.state,
            "is_new": card.is_new,
            "due": iso(card.due),
            "intervals": [
                {
                    "rating": interval.rating,
                    "name": interval.name,
                    "due": iso(interval.due),
                    "seconds": interval.seconds,
                }
                for interval in card.intervals
            ],
        }
        if card.back is not None:
            shown["back"] = card.back
        return shown


class AwareDateTimeField(serializers.DateTimeField):
    """An ISO 8601 instant with a UTC offset; a time without one names no instant and is
    refused instead of being read in the server's zone."""

    default_error_messages = {
        "naive": gettext_lazy("Give the time with a UTC offset, e.g. 2026-03-01T09:30:00Z."),
    }

    def to_internal_value(self, value):
        if isinstance(value, str):
            # datetime.fromisoformat (which parse_datetime tries first) ignores a NUL and what
            # follows it.
            if "\x00" in value:
                self.fail("invalid", format="ISO 8601")
            try:
                parsed = parse_datetime(value)
            except ValueError:
                parsed = None
            if parsed is not None and parsed.tzinfo is None:
                self.fail("naive")
        elif isinstance(value, datetime.datetime) and value.tzinfo is None:
            self.fail("naive")
        return super().to_internal_value(value)


_DURATION_MS_MAX = 24 * 60 * 60 * 1000


class ReviewCreateSerializer(BodySerializer):
    card = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    rating = _rating_field()
    duration_ms = serializers.IntegerField(
        min_value=0, max_value=_DURATION_MS_MAX, required=False, allow_null=True
    )
    client_review_id = serializers.RegexField(
        r"^[A-Za-z0-9._:-]{1,64}$",
        help_text="Chosen by the client (e.g. a UUID); a replay returns the original result.",
    )
    reviewed_at = AwareDateTimeField(
        required=False,
        allow_null=True,
        help_text="When the review happened (ISO 8601 with a UTC offset), for a review done "
        "offline; default: now. The card is scheduled from this time. At most 5 minutes ahead "
        "of the server's clock (reviewed_at_in_future) and not before the card's last review "
        "(reviewed_at_too_early).",
    )

    def review(self) -> BatchReview:
        """The validated review as the batch service takes it."""
        data = self.validated_data
        return BatchReview(
            card_id=data["card"],
            rating=data["rating"],
            duration_ms=data.get("duration_ms"),
            client_review_id=data["client_review_id"],
            reviewed_at=data.get("reviewed_at"),
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


# --- offline reviews: a batch ------------------------------------------------------------


class ReviewBatchParseSerializer(BodySerializer):
    """The batch as it is read: each review stays raw JSON here and is read on its own
    (ReviewCreateSerializer), so one malformed review is rejected while the rest apply. The
    schema shows the reviews' shape (ReviewBatchSerializer)."""

    reviews = serializers.ListField(child=serializers.JSONField(), allow_empty=True)


class ReviewBatchSerializer(serializers.Serializer):
    reviews = serializers.ListField(
        child=ReviewCreateSerializer(),
        max_length=REVIEW_BATCH_MAX,
        help_text=f"In the order they were done; at most {REVIEW_BATCH_MAX} "
        "(batch_too_large: nothing applies).",
    )


class ReviewBatchErrorSerializer(serializers.Serializer):
    code = serializers.ChoiceField(
        choices=list(BATCH_ERROR_CODES),
        help_text="invalid: the review's fields (detail names them); card_not_found: not one "
        "of your cards; client_review_id_reused: the id was used for another card; "
        "reviewed_at_in_future / reviewed_at_too_early: the time is out of bounds (detail: "
        "server_time, earliest).",
    )
    message = serializers.CharField()
    detail = serializers.JSONField(allow_null=True)


class ReviewBatchItemSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="The review's position in the batch (from 0).")
    client_review_id = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(
        choices=list(BatchStatus.ALL),
        help_text="applied; duplicate (this client review id was applied before: the "
        "original result, nothing changed); rejected (see error; nothing written).",
    )
    review = ReviewResultSerializer(allow_null=True)
    error = ReviewBatchErrorSerializer(allow_null=True)


class ReviewBatchCountsSerializer(serializers.Serializer):
    applied = serializers.IntegerField()
    duplicate = serializers.IntegerField()
    rejected = serializers.IntegerField()


class ReviewBatchResultSerializer(serializers.Serializer):
    server_time = serializers.DateTimeField(
        help_text="The server's clock: reviewed_at may be at most 5 minutes ahead of it."
    )
    results = ReviewBatchItemSerializer(many=True, help_text="One per review, in the order sent.")
    counts = ReviewBatchCountsSerializer()


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


class ReviewForecastSerializer(serializers.Serializer):
    days = DayCountSerializer(
        many=True,
        help_text="Cards due on each of your next 30 local days, today first (Anki's Future "
        "Due; seen cards, no daily limit).",
    )
    overdue = serializers.IntegerField(help_text="How many of today's were due before today.")
    total = serializers.IntegerField()


class RetentionCountSerializer(serializers.Serializer):
    passed = serializers.IntegerField(help_text="Rated Hard, Good or Easy.")
    failed = serializers.IntegerField(help_text="Rated Again.")
    retention = serializers.FloatField(allow_null=True, help_text="passed / (passed + failed).")


class RetentionPeriodSerializer(serializers.Serializer):
    period = serializers.ChoiceField(
        choices=[name for name, _days in RETENTION_PERIODS],
        help_text="Local days: today, yesterday, the last 7, 30 and 365 days, all time.",
    )
    young = RetentionCountSerializer(help_text="Cards with an interval under 21 days.")
    mature = RetentionCountSerializer(help_text="Cards with an interval of 21 days or more.")
    total = RetentionCountSerializer()


class TrueRetentionSerializer(serializers.Serializer):
    periods = RetentionPeriodSerializer(
        many=True,
        help_text="Anki's True Retention: reviews of cards in review state (not new, learning "
        "or relearning).",
    )


# Where a notification leads in the app (a route the app knows) and on the web, by kind.
APP_LINKS = {Notification.Kind.REVIEW_DIGEST: "lernpfad://reviews/due"}


class ReviewDigestPayloadSerializer(serializers.Serializer):
    """The payload of a ``review_digest`` notification. The digest writes all of it; only
    ``app_url`` is always there (a notification written another way may lack the rest)."""

    due_count = serializers.IntegerField(
        required=False, help_text="Cards due when the digest was sent."
    )
    local_date = serializers.DateField(
        required=False, help_text="The learner's local day of the digest."
    )
    url = serializers.URLField(required=False, help_text="The review page on the web.")
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


class NotificationListQuerySerializer(QuerySerializer):
    unread = serializers.BooleanField(required=False, default=False)


class MarkedCountSerializer(serializers.Serializer):
    marked = serializers.IntegerField()


# --- FSRS parameters and exam dates ------------------------------------------------------------


class ParametersSerializer(serializers.Serializer):
    source = serializers.ChoiceField(
        choices=["own", "module", "default"],
        help_text="own: fitted to your reviews; module: pooled from the module's learners; "
        "default: FSRS-6's defaults.",
    )
    parameters = serializers.ListField(child=serializers.FloatField(), min_length=21, max_length=21)
    version = serializers.IntegerField(
        allow_null=True, help_text="The number of your own adopted fits."
    )
    fitted_at = serializers.DateTimeField(allow_null=True, help_text="Your latest fit.")
    fit_review_count = serializers.IntegerField(allow_null=True)
    log_loss = serializers.FloatField(
        allow_null=True, help_text="The latest fit's log loss on your held-out recent reviews."
    )
    log_loss_before = serializers.FloatField(
        allow_null=True,
        help_text="The log loss of the parameters in use then, on the same reviews.",
    )
    adopted = serializers.BooleanField(allow_null=True)
    review_count = serializers.IntegerField()
    min_reviews = serializers.IntegerField(help_text="The reviews a fit of your own needs.")


class FitResultSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(
        choices=["adopted", "kept", "too_few_reviews", "already_fitted"]
    )
    parameters = ParametersSerializer()


class ExamDateRequestSerializer(BodySerializer):
    exam_on = serializers.DateField(help_text="The exam day (ISO date, your local calendar).")


class StepReadinessSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    term = serializers.CharField()
    cards = serializers.IntegerField()
    recall = serializers.FloatField(help_text="Mean predicted recall of its cards on exam day.")


class ExamReadinessSerializer(serializers.Serializer):
    exam_on = serializers.DateField()
    set_by = serializers.ChoiceField(choices=["learner", "module"])
    days_left = serializers.IntegerField()
    target = serializers.FloatField(help_text="Your desired retention.")
    recall = serializers.FloatField(help_text="The module's predicted recall on exam day.")
    score_percent = serializers.IntegerField(help_text="The exam score that recall implies.")
    reviews = serializers.IntegerField(help_text="Reviews the schedule needs until the exam.")
    reviews_per_day = serializers.FloatField()
    steps = StepReadinessSerializer(many=True)


class ExamDateSerializer(serializers.Serializer):
    exam_on = serializers.DateField(allow_null=True)
    set_by = serializers.CharField(help_text="learner, module, or empty without a date.")
    max_days_ahead = serializers.IntegerField()
    readiness = ExamReadinessSerializer(allow_null=True)


class CalendarFeedSerializer(serializers.Serializer):
    """My private calendar address (iCalendar): whoever has it reads my review days and exam
    date, so rotate it when it leaks."""

    url = serializers.URLField(help_text="Subscribe to this address in a calendar app.")
    created_at = serializers.DateTimeField()

    @staticmethod
    def payload(feed) -> dict:
        return {"url": calendar_feed_url(feed), "created_at": feed.created_at}
