"""Input and output shapes of the reviews API. Every serializer lists its fields."""

from rest_framework import serializers

from lms.rendering import datetime_formatter
from reviews.models import Notification
from reviews.selectors import DUE_PAGE_DEFAULT, DUE_PAGE_MAX


class DueQuerySerializer(serializers.Serializer):
    limit = serializers.IntegerField(
        min_value=1, max_value=DUE_PAGE_MAX, default=DUE_PAGE_DEFAULT, required=False
    )


class IntervalPreviewSerializer(serializers.Serializer):
    rating = serializers.IntegerField(help_text="1 Again, 2 Hard, 3 Good, 4 Easy")
    name = serializers.CharField()
    due = serializers.DateTimeField()
    seconds = serializers.IntegerField(help_text="Interval until due, before fuzzing.")


class DueCardSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    front = serializers.CharField(
        help_text="Names the step's term: the term itself (definition card), or the question "
        "with the term in front unless it names it already (quick-check card)."
    )
    term = serializers.CharField(help_text="The term of the card's step.")
    module_title = serializers.CharField(help_text="The title of the step's module.")
    state = serializers.IntegerField(help_text="FSRS state: 1 learning, 2 review, 3 relearning")
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
    rating = serializers.IntegerField(
        min_value=1, max_value=4, help_text="1 Again, 2 Hard, 3 Good, 4 Easy"
    )
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
    rating = serializers.IntegerField()
    reviewed_at = serializers.DateTimeField()
    state = serializers.IntegerField()
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
    rating = serializers.IntegerField()
    reviewed_at = serializers.DateTimeField()
    due = serializers.DateTimeField(help_text="The card's restored due date.")
    state = serializers.IntegerField()


class CardFacesSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    front = serializers.CharField(help_text="As in the due queue: names the step's term.")
    back = serializers.CharField()
    term = serializers.CharField()
    module_title = serializers.CharField()
    step_id = serializers.IntegerField()
    module_id = serializers.IntegerField()
    step_number = serializers.IntegerField()
    state = serializers.IntegerField()
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


class NotificationSerializer(serializers.ModelSerializer):
    class Meta:
        model = Notification
        fields = ["id", "kind", "title", "body", "payload", "created_at", "read_at"]
        read_only_fields = fields


class NotificationListQuerySerializer(serializers.Serializer):
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


class ExamDateRequestSerializer(serializers.Serializer):
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
