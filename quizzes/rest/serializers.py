"""Input and output shapes of the quizzes API. Every serializer lists its fields.

The output serializers read the frozen dataclasses that ``quizzes.selectors`` returns.

The learner-facing item serializer has no field for correct keys, correctness or explanations;
those exist only on ``ReviewItemSerializer``, which is filled once the review policy allows.
"""

from rest_framework import serializers

from lms.rendering import datetime_formatter
from quizzes.data import ResultView, ReviewItem, ReviewItemWithAnswers
from quizzes.models import ExamPolicy, QuickCheckRating

MAX_ANSWERS_PER_REQUEST = 500
MAX_KEYS_PER_ANSWER = 26


class RatingInputSerializer(serializers.Serializer):
    rating = serializers.ChoiceField(choices=QuickCheckRating.Rating.choices)


class QuickCheckRatingSerializer(serializers.Serializer):
    quick_check = serializers.IntegerField(source="quick_check_id")
    step = serializers.IntegerField(source="step_id")
    rating = serializers.CharField()
    times_rated = serializers.IntegerField()
    first_rated_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class StepQuickCheckSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    position = serializers.IntegerField()
    question = serializers.CharField()
    answer = serializers.CharField()
    role = serializers.ChoiceField(
        choices=["flashcard", "definition", "generic", "instruction"],
        help_text="flashcard: a review card of its own; definition: repeats the step's "
        "definition, rating it reviews the definition card; generic (recurs in most steps) and "
        "instruction: a reflection prompt, no rating and no card.",
    )
    takes_rating = serializers.BooleanField(
        help_text="False for a reflection prompt: POST …/answers/ answers 409 reflection_prompt."
    )
    rating = serializers.ChoiceField(choices=QuickCheckRating.Rating.choices, allow_null=True)
    rated_at = serializers.DateTimeField(allow_null=True)
    times_rated = serializers.IntegerField()


class PolicySerializer(serializers.Serializer):
    items_per_attempt = serializers.IntegerField()
    time_limit_minutes = serializers.IntegerField()
    pass_mark_percent = serializers.DecimalField(max_digits=5, decimal_places=2)
    max_attempts = serializers.IntegerField()
    wait_between_attempts_minutes = serializers.IntegerField()
    grading_method = serializers.ChoiceField(choices=ExamPolicy.GradingMethod.choices)
    review_content = serializers.ChoiceField(choices=ExamPolicy.ReviewContent.choices)
    review_timing = serializers.ChoiceField(choices=ExamPolicy.ReviewTiming.choices)
    requires_all_steps_completed = serializers.BooleanField()
    answer_grace_seconds = serializers.IntegerField()


class ReasonSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class EligibilitySerializer(serializers.Serializer):
    can_start = serializers.BooleanField()
    reasons = ReasonSerializer(many=True)
    available_at = serializers.DateTimeField(allow_null=True)
    attempts_used = serializers.IntegerField()
    attempts_left = serializers.IntegerField()


class AttemptSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    deadline_at = serializers.DateTimeField()
    finalized = serializers.BooleanField()
    finalized_at = serializers.DateTimeField(allow_null=True)
    score_percent = serializers.DecimalField(max_digits=5, decimal_places=2, allow_null=True)
    passed = serializers.BooleanField(allow_null=True)


class FinalGradeSerializer(serializers.Serializer):
    grading_method = serializers.ChoiceField(choices=ExamPolicy.GradingMethod.choices)
    score_percent = serializers.DecimalField(max_digits=5, decimal_places=2, allow_null=True)
    passed = serializers.BooleanField()


class CertificateLinkSerializer(serializers.Serializer):
    code = serializers.CharField()
    url = serializers.URLField()


class ExamOverviewSerializer(serializers.Serializer):
    module = serializers.CharField()
    title = serializers.CharField()
    policy = PolicySerializer()
    eligibility = EligibilitySerializer()
    attempt_in_progress = serializers.IntegerField(allow_null=True)
    attempts = AttemptSummarySerializer(many=True)
    final_grade = FinalGradeSerializer()
    certificate = CertificateLinkSerializer(allow_null=True)


class OptionSerializer(serializers.Serializer):
    key = serializers.CharField()
    text = serializers.CharField()


class AttemptItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    position = serializers.IntegerField()
    kind = serializers.CharField()
    prompt = serializers.CharField()
    options = OptionSerializer(many=True)
    selected_keys = serializers.ListField(child=serializers.CharField())


class ReviewItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    position = serializers.IntegerField()
    selected_keys = serializers.ListField(child=serializers.CharField())
    is_correct = serializers.BooleanField()
    score = serializers.IntegerField(help_text="1 for a correct item, 0 otherwise.")
    # Only with review content "correct_answers"; absent otherwise.
    correct_keys = serializers.ListField(child=serializers.CharField(), required=False)
    explanation = serializers.CharField(required=False)


class ReviewInfoSerializer(serializers.Serializer):
    # A plain string (one of the review_content values): a second enum of the same choices
    # under another name would split the schema's enum.
    shows = serializers.CharField(
        help_text=(
            "What this response shows now: score_only, correctness or correct_answers; "
            "score_only until the policy's moment comes."
        )
    )
    review_content = serializers.ChoiceField(choices=ExamPolicy.ReviewContent.choices)
    review_timing = serializers.ChoiceField(choices=ExamPolicy.ReviewTiming.choices)


_SCORE = serializers.DecimalField(max_digits=5, decimal_places=2)


def _score(value) -> str | None:
    return None if value is None else _SCORE.to_representation(value)


def _review_item(entry: ReviewItem) -> dict:
    row = {
        "id": entry.id,
        "position": entry.position,
        "selected_keys": [str(key) for key in entry.selected_keys],
        "is_correct": bool(entry.is_correct),
        "score": entry.score,
    }
    # Present only with review content "correct_answers" (required=False: absent, not null).
    if isinstance(entry, ReviewItemWithAnswers):
        row["correct_keys"] = [str(key) for key in entry.correct_keys]
        row["explanation"] = entry.explanation
    return row


# No docstring on the class: drf-spectacular would publish it in the OpenAPI schema.
class ResultSerializer(serializers.Serializer):
    attempt = serializers.IntegerField()
    score_percent = serializers.DecimalField(max_digits=5, decimal_places=2)
    passed = serializers.BooleanField()
    correct_count = serializers.IntegerField()
    item_count = serializers.IntegerField()
    reason = serializers.CharField()
    finalized_at = serializers.DateTimeField()
    review = ReviewInfoSerializer()
    items = ReviewItemSerializer(many=True, allow_null=True)
    final_grade = FinalGradeSerializer()
    certificate = CertificateLinkSerializer(allow_null=True)

    def to_representation(self, instance: ResultView):
        # The fields above are the contract (and the OpenAPI schema); this reads the same
        # ``ResultView`` (``quizzes.selectors.attempt_result_view``) directly, because DRF's
        # generic walk over them cost more CPU than grading the attempt
        # (bench/results/latest.md, exam submit). A test compares the two outputs.
        review = instance.review
        items = instance.items
        final = instance.final_grade
        certificate = instance.certificate
        return {
            "attempt": instance.attempt,
            "score_percent": _score(instance.score_percent),
            "passed": bool(instance.passed),
            "correct_count": instance.correct_count,
            "item_count": instance.item_count,
            "reason": instance.reason,
            "finalized_at": datetime_formatter()(instance.finalized_at),
            "review": {
                "shows": review.shows,
                "review_content": review.review_content,
                "review_timing": review.review_timing,
            },
            "items": None if items is None else [_review_item(entry) for entry in items],
            "final_grade": {
                "grading_method": final.grading_method,
                "score_percent": _score(final.score_percent),
                "passed": bool(final.passed),
            },
            "certificate": None
            if certificate is None
            else {"code": certificate.code, "url": certificate.url},
        }


class AttemptSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    module = serializers.CharField()
    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    deadline_at = serializers.DateTimeField()
    seconds_left = serializers.IntegerField()
    finalized = serializers.BooleanField()
    item_count = serializers.IntegerField()
    answered_count = serializers.IntegerField()
    items = AttemptItemSerializer(many=True)
    result = ResultSerializer(allow_null=True)


class AnswerInputSerializer(serializers.Serializer):
    item = serializers.IntegerField(help_text="The attempt item's id.")
    selected = serializers.ListField(
        child=serializers.CharField(max_length=32),
        max_length=MAX_KEYS_PER_ANSWER,
        help_text="Option keys; [] clears the answer.",
    )


class AnswersInputSerializer(serializers.Serializer):
    answers = AnswerInputSerializer(many=True, max_length=MAX_ANSWERS_PER_REQUEST)


class SavedAnswersSerializer(serializers.Serializer):
    attempt = serializers.IntegerField()
    saved_count = serializers.IntegerField()
    answered_count = serializers.IntegerField()
    saved_at = serializers.DateTimeField()
    seconds_left = serializers.IntegerField()


class CertificateSerializer(serializers.Serializer):
    code = serializers.CharField()
    url = serializers.URLField(help_text="The public verification page (also in the QR code).")
    module = serializers.CharField()
    module_title = serializers.CharField()
    learner_name = serializers.CharField(help_text="The full name the certificate was issued to.")
    score_percent = serializers.DecimalField(max_digits=5, decimal_places=2)
    issued_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(
        allow_null=True, help_text="Set once a course admin revoked the certificate."
    )


class CertificateVerificationSerializer(serializers.Serializer):
    """A valid certificate as anyone holding its code may check it."""

    code = serializers.CharField()
    valid = serializers.BooleanField(help_text="Always true: other codes are a 404.")
    url = serializers.URLField()
    learner_name = serializers.CharField()
    module = serializers.CharField()
    module_title = serializers.CharField()
    score_percent = serializers.DecimalField(max_digits=5, decimal_places=2)
    issued_at = serializers.DateTimeField()
