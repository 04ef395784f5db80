"""Input and output shapes of the quizzes API. Only ``ReviewItemSerializer`` has correct
keys, correctness or explanations, filled once the review policy allows."""

from django.utils.translation import gettext as _
from rest_framework import serializers

from lms.converters import ID_MAX
from lms.openapi import exactly_one_of, object_rules
from lms.serializers import BodySerializer
from quizzes.answers import MAX_ANSWER_TEXT
from quizzes.eligibility import REASON_CODES
from quizzes.models import ExamItem, ExamPolicy, QuickCheckRating

MAX_ANSWERS_PER_REQUEST = 500
MAX_KEYS_PER_ANSWER = 26
# An attempt (or the exam, for the next start) that can earn the certificate, or practice.
MODE_CHOICES = [
    ("certifying", "certifying: drawn from approved items, can earn the certificate"),
    ("practice", "practice: graded with feedback, no certificate"),
]


def _mode_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=MODE_CHOICES)


# Longer than MAX_NUMBER_TEXT: the service answers a long number with its own message.
MAX_NUMBER_INPUT = 100


class RatingInputSerializer(BodySerializer):
    rating = serializers.ChoiceField(choices=QuickCheckRating.Rating.choices)


class QuickCheckRatingSerializer(serializers.Serializer):
    quick_check = serializers.IntegerField(source="quick_check_id")
    step = serializers.IntegerField(source="step_id")
    rating = serializers.ChoiceField(choices=QuickCheckRating.Rating.choices)
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
    requires_all_steps_completed = serializers.BooleanField(help_text="required_step_share is 100.")
    required_step_share = serializers.IntegerField(
        help_text="Percent of the module's active steps to complete before the exam."
    )
    answer_grace_seconds = serializers.IntegerField()


class LearnerLimitsSerializer(serializers.Serializer):
    time_limit_minutes = serializers.IntegerField(help_text="My own limit per attempt.")
    max_attempts = serializers.IntegerField(help_text="My own maximum of attempts.")
    extra_time_minutes = serializers.IntegerField()
    extra_attempts = serializers.IntegerField()


class ReasonSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=REASON_CODES)
    message = serializers.CharField()


class MissingStepSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    slug = serializers.CharField()
    term = serializers.CharField()


class StepGateSerializer(serializers.Serializer):
    required_share = serializers.IntegerField()
    required = serializers.IntegerField(help_text="Steps to complete before the exam.")
    completed = serializers.IntegerField()
    total = serializers.IntegerField(help_text="The module's active steps.")
    missing = MissingStepSerializer(
        many=True, help_text="The steps not completed yet, while too few are (else empty)."
    )


class EligibilitySerializer(serializers.Serializer):
    can_start = serializers.BooleanField()
    reasons = ReasonSerializer(many=True)
    available_at = serializers.DateTimeField(allow_null=True)
    attempts_used = serializers.IntegerField(help_text="Of the mode a start would have now.")
    attempts_left = serializers.IntegerField()
    steps = StepGateSerializer()


class AttemptSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    mode = _mode_field()
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
    mode = serializers.ChoiceField(
        choices=MODE_CHOICES,
        help_text=(
            "What an attempt started now is: certifying when the approved items fill an "
            "attempt, else practice (no certificate)."
        ),
    )
    policy = PolicySerializer()
    limits = LearnerLimitsSerializer()
    eligibility = EligibilitySerializer()
    attempt_in_progress = serializers.IntegerField(allow_null=True)
    attempts = AttemptSummarySerializer(many=True)
    final_grade = FinalGradeSerializer()
    certificate = CertificateLinkSerializer(allow_null=True)


class OptionSerializer(serializers.Serializer):
    key = serializers.CharField()
    text = serializers.CharField()


class PairSerializer(serializers.Serializer):
    option = serializers.CharField(max_length=32, help_text="The key of one of the options.")
    choice = serializers.CharField(max_length=32, help_text="The key of one of the choices.")


class AttemptItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    position = serializers.IntegerField()
    kind = serializers.ChoiceField(
        choices=ExamItem.Kind.choices,
        help_text=(
            "How the item is answered: single_choice, true_false (one of the options), "
            "multiple_choice (any options), short_answer (text), numerical (number), "
            "matching (a choice for each option)."
        ),
    )
    prompt = serializers.CharField()
    options = OptionSerializer(
        many=True,
        help_text="Choice kinds: the options; matching: what to match. Empty otherwise.",
    )
    selected_keys = serializers.ListField(
        child=serializers.CharField(), help_text="Choice kinds: my saved option keys."
    )
    choices = OptionSerializer(
        many=True, help_text="Matching: the answers to choose from for each option."
    )
    text = serializers.CharField(allow_null=True, help_text="Short answer: my saved text.")
    number = serializers.CharField(
        allow_null=True, help_text="Numerical: my saved number, as I typed it."
    )
    pairs = PairSerializer(many=True, help_text="Matching: my saved pairs.")
    answered = serializers.BooleanField(
        help_text="I have answered it (a matching item: every option paired)."
    )


class ReviewItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    position = serializers.IntegerField()
    selected_keys = serializers.ListField(child=serializers.CharField())
    is_correct = serializers.BooleanField()
    score = serializers.IntegerField(help_text="1 for a correct item, 0 otherwise.")
    text = serializers.CharField(allow_null=True, help_text="Short answer: my text.")
    number = serializers.CharField(allow_null=True, help_text="Numerical: my number as typed.")
    pairs = PairSerializer(many=True, help_text="Matching: my pairs.")
    # Only with review content "correct_answers"; absent otherwise.
    correct_keys = serializers.ListField(child=serializers.CharField(), required=False)
    explanation = serializers.CharField(required=False)
    accepted_answers = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Short answer: the accepted answers; numerical: each accepted number or range.",
    )
    correct_pairs = PairSerializer(
        many=True, required=False, help_text="Matching: each option with its right choice."
    )


class ReviewInfoSerializer(serializers.Serializer):
    # The review_content values: one enum (ReviewContentEnum, settings' ENUM_NAME_OVERRIDES).
    shows = serializers.ChoiceField(
        choices=ExamPolicy.ReviewContent.choices,
        help_text=(
            "What this response shows now: score_only, correctness or correct_answers; "
            "score_only until the policy's moment comes."
        ),
    )
    review_content = serializers.ChoiceField(choices=ExamPolicy.ReviewContent.choices)
    review_timing = serializers.ChoiceField(choices=ExamPolicy.ReviewTiming.choices)


# No docstring on the class: drf-spectacular would publish it in the OpenAPI schema.
class ResultSerializer(serializers.Serializer):
    attempt = serializers.IntegerField()
    mode = _mode_field()
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


class AttemptSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    module = serializers.CharField()
    number = serializers.IntegerField()
    mode = _mode_field()
    started_at = serializers.DateTimeField()
    deadline_at = serializers.DateTimeField()
    time_limit_minutes = serializers.IntegerField(
        help_text="My own limit for this attempt: the policy's plus any extra time."
    )
    seconds_left = serializers.IntegerField()
    finalized = serializers.BooleanField()
    item_count = serializers.IntegerField()
    answered_count = serializers.IntegerField()
    items = AttemptItemSerializer(many=True)
    result = ResultSerializer(allow_null=True)


@object_rules(**exactly_one_of("selected", "text", "number", "pairs"))
class AnswerInputSerializer(BodySerializer):
    item = serializers.IntegerField(
        min_value=1, max_value=ID_MAX, help_text="The attempt item's id."
    )
    # Exactly one of the four, the one of the item's kind (else 400 wrong_answer_field).
    selected = serializers.ListField(
        child=serializers.CharField(max_length=32),
        max_length=MAX_KEYS_PER_ANSWER,
        required=False,
        help_text=(
            "single_choice, true_false, multiple_choice: option keys; [] clears the answer."
        ),
    )
    text = serializers.CharField(
        max_length=MAX_ANSWER_TEXT,
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text=(
            'short_answer: the answer; "" clears it. Compared ignoring case, spaces, '
            "umlaut spellings (ä = ae) and trailing punctuation."
        ),
    )
    number = serializers.CharField(
        max_length=MAX_NUMBER_INPUT,
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text=(
            'numerical: the number as typed, decimal comma or point ("7,5", "7.5"); "" clears '
            'it. Anything else ("7,5 GB") is a 400 invalid_number.'
        ),
    )
    pairs = PairSerializer(
        many=True,
        required=False,
        max_length=MAX_KEYS_PER_ANSWER,
        help_text="matching: a choice for some or all options; [] clears the answer.",
    )

    def validate(self, attrs):
        given = [name for name in ("selected", "text", "number", "pairs") if name in attrs]
        if len(given) != 1:
            raise serializers.ValidationError(
                _("Give exactly one of selected, text, number or pairs (the item kind's field).")
            )
        return attrs


class AnswersInputSerializer(BodySerializer):
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
