"""The data export's shape for the schema: every table's rows with their columns by name, typed.

The export itself is built by each app's ``learner_export`` from its models' columns, so a column
added later is exported at once; ``tests/reliability/test_export_schema.py`` validates a full
export against this schema with no undeclared key allowed, so it fails until the column is
declared here too."""

from __future__ import annotations

from rest_framework import serializers


def _id(**kwargs) -> serializers.IntegerField:
    return serializers.IntegerField(**kwargs)


def _at(**kwargs) -> serializers.DateTimeField:
    return serializers.DateTimeField(**kwargs)


def _text(**kwargs) -> serializers.CharField:
    return serializers.CharField(allow_blank=True, **kwargs)


# --- accounts ---------------------------------------------------------------------------------


class ExportAccountSerializer(serializers.Serializer):
    id = _id()
    last_login = _at(allow_null=True)
    is_superuser = serializers.BooleanField()
    username = _text()
    first_name = _text()
    last_name = _text()
    email = _text()
    is_staff = serializers.BooleanField()
    is_active = serializers.BooleanField()
    date_joined = _at()
    display_name = _text()
    full_name = _text()
    language = _text()
    time_zone = _text()
    reminder_time = serializers.TimeField(allow_null=True)
    quiet_hours_start = serializers.TimeField(allow_null=True)
    quiet_hours_end = serializers.TimeField(allow_null=True)
    reminder_email = serializers.BooleanField()
    next_reminder_at = _at(allow_null=True)
    email_confirmed_at = _at(allow_null=True)
    pending_email = _text()
    desired_retention = serializers.FloatField()
    new_cards_per_day = _id()
    reviews_per_day = _id()
    session_epoch = _id()
    credentials_epoch = _id()
    groups = serializers.ListField(child=_text(), help_text="The names of my groups.")
    permissions = serializers.ListField(child=_text(), help_text="Codenames of my permissions.")


class ExportDeviceSerializer(serializers.Serializer):
    id = _id()
    user_id = _id()
    name = _text()
    created_at = _at()


class ExportTokenSerializer(serializers.Serializer):
    user_id = _id()
    created = _at()
    expiry = _at(allow_null=True)


class ExportSsoIdentitySerializer(serializers.Serializer):
    id = _id()
    user_id = _id()
    provider = _text(help_text="The institution's provider ID.")
    uid = _text(help_text="My subject at that provider.")
    last_login = _at()
    date_joined = _at()
    extra_data = serializers.JSONField(help_text="What the provider said about me last time.")


class ExportEmailAddressSerializer(serializers.Serializer):
    id = _id()
    user_id = _id()
    email = _text()
    verified = serializers.BooleanField()
    primary = serializers.BooleanField()


# --- progress ---------------------------------------------------------------------------------


class _StepContext(serializers.Serializer):
    step__module__slug = _text(help_text="The step's module.")
    step__number = _id(help_text="The step's number in its module.")
    step__term = _text(help_text="The step's term.")


class ExportEnrollmentSerializer(serializers.Serializer):
    id = _id()
    learner_id = _id()
    module_id = _id()
    source = _text()
    enrolled_at = _at()
    module__slug = _text()


class ExportStepProgressSerializer(_StepContext):
    id = _id()
    learner_id = _id()
    step_id = _id()
    status = _text()
    first_opened_at = _at(allow_null=True)
    completed_at = _at(allow_null=True)
    last_section = _text()
    sections_viewed = serializers.ListField(child=_text(), help_text="The sections I viewed.")
    quick_checks_answered = serializers.ListField(
        child=_id(), help_text="The step's quick checks I answered (ids)."
    )
    status_changed_at = _at(allow_null=True)
    last_event_at = _at(allow_null=True)
    updated_at = _at()


class ExportProgressEventSerializer(_StepContext):
    id = _id()
    learner_id = _id()
    client_event_id = _text()
    step_id = _id()
    kind = _text()
    section = _text()
    occurred_at = _at()
    received_at = _at()
    result = _text()


class ExportNoteSerializer(_StepContext):
    id = _id()
    learner_id = _id()
    step_id = _id()
    prompt = _text()
    text = _text()
    created_at = _at()
    updated_at = _at()


class ExportProgressSerializer(serializers.Serializer):
    enrollments = ExportEnrollmentSerializer(many=True, help_text="My enrollments.")
    step_progress = ExportStepProgressSerializer(many=True, help_text="My progress per step.")
    progress_events = ExportProgressEventSerializer(
        many=True, help_text="The event log, offline events included."
    )
    notes = ExportNoteSerializer(many=True, help_text="My notes.")


# --- quizzes ----------------------------------------------------------------------------------


class ExportQuickCheckRatingSerializer(serializers.Serializer):
    id = _id()
    learner_id = _id()
    quick_check_id = _id()
    step_id = _id()
    rating = _text()
    times_rated = _id()
    first_rated_at = _at()
    updated_at = _at()
    quick_check__question = _text()


class ExportQuickCheckRatingEventSerializer(serializers.Serializer):
    id = _id()
    learner_id = _id()
    quick_check_id = _id()
    step_id = _id()
    rating = _text()
    rated_at = _at()


class ExportOptionSerializer(serializers.Serializer):
    key = _text()
    text = _text()


class ExportPairSerializer(serializers.Serializer):
    option = _text()
    choice = _text()


class ExportAttemptItemSerializer(serializers.Serializer):
    """An item as the attempt showed it, with my answer; correctness and the correct answers only
    as far as the exam's review policy shows them now."""

    id = _id()
    position = _id()
    kind = _text()
    prompt = _text()
    text_format = _text(help_text='"plain", or "html" where prompt and options are HTML.')
    options = ExportOptionSerializer(many=True)
    selected_keys = serializers.ListField(child=_text())
    choices = ExportOptionSerializer(many=True)
    text = _text(allow_null=True)
    number = _text(allow_null=True)
    pairs = ExportPairSerializer(many=True)
    answered = serializers.BooleanField()
    answered_at = _at(allow_null=True)
    is_correct = serializers.BooleanField(
        required=False, help_text="With review_shows ≥ correctness."
    )
    correct_keys = serializers.ListField(
        child=_text(), required=False, help_text="With review_shows = correct_answers."
    )
    explanation = _text(required=False, help_text="With review_shows = correct_answers.")
    accepted_answers = serializers.ListField(
        child=_text(), required=False, help_text="With review_shows = correct_answers."
    )
    correct_pairs = ExportPairSerializer(
        many=True, required=False, help_text="With review_shows = correct_answers."
    )


class ExportResultSerializer(serializers.Serializer):
    score_percent = serializers.FloatField()
    correct_count = _id()
    item_count = _id()
    passed = serializers.BooleanField()
    reason = _text()
    finalized_at = _at()


class ExportAttemptSerializer(serializers.Serializer):
    id = _id()
    module_id = _id()
    number = _id()
    certifying = serializers.BooleanField()
    mode = _text()
    item_count = _id()
    pass_mark_percent = serializers.FloatField()
    started_at = _at()
    deadline_at = _at()
    review_shows = _text(help_text="What the exam's review policy shows of this attempt now.")
    result = ExportResultSerializer(allow_null=True, help_text="null while the attempt is open.")
    items = ExportAttemptItemSerializer(many=True)


class ExportCertificateSerializer(serializers.Serializer):
    id = _id()
    learner_id = _id()
    module_id = _id()
    attempt_id = _id()
    code = _text()
    learner_name = _text()
    score_percent = serializers.FloatField()
    issued_at = _at()
    revoked_at = _at(allow_null=True)
    revocation_reason = _text()
    module__slug = _text()


class ExportAccommodationSerializer(serializers.Serializer):
    id = _id()
    learner_id = _id()
    module_id = _id()
    extra_time_minutes = _id()
    extra_attempts = _id()
    updated_at = _at()
    module__slug = _text()


class ExportRegradedAttemptSerializer(serializers.Serializer):
    attempt_id = _id()
    number = _id()
    score_before = _text(help_text='A decimal, e.g. "60.00".')
    score_after = _text(help_text='A decimal, e.g. "80.00".')


class ExportRegradeSerializer(serializers.Serializer):
    id = _id()
    regrade_id = _id()
    learner_id = _id()
    module_id = _id()
    attempts = ExportRegradedAttemptSerializer(many=True)
    grade_before = serializers.FloatField(allow_null=True)
    grade_after = serializers.FloatField(allow_null=True)
    passed_before = serializers.BooleanField()
    passed_after = serializers.BooleanField()
    certificate_id = _id(allow_null=True)
    certificate_action = _text()
    module__slug = _text()


class ExportQuizzesSerializer(serializers.Serializer):
    quick_check_ratings = ExportQuickCheckRatingSerializer(
        many=True, help_text="My latest self-rating per quick check."
    )
    quick_check_rating_events = ExportQuickCheckRatingEventSerializer(
        many=True, help_text="Every self-rating."
    )
    exam_attempts = ExportAttemptSerializer(
        many=True, help_text="My exam attempts, answers as far as the review policy shows them."
    )
    certificates = ExportCertificateSerializer(many=True, help_text="My certificates.")
    exam_accommodations = ExportAccommodationSerializer(
        many=True, help_text="Extra time or attempts granted to me."
    )
    exam_regrades = ExportRegradeSerializer(
        many=True,
        help_text="A course admin's regrades of my attempts: grade and certificate before/after.",
    )


# --- reviews ----------------------------------------------------------------------------------


class ExportCardSerializer(serializers.Serializer):
    id = _id()
    learner_id = _id()
    kind = _text()
    step_id = _id()
    module_id = _id()
    quick_check_id = _id(allow_null=True)
    state = _id(help_text="FSRS state: 1 learning, 2 review, 3 relearning.")
    learning_step = _id(allow_null=True)
    stability = serializers.FloatField(allow_null=True)
    difficulty = serializers.FloatField(allow_null=True)
    due = _at()
    last_review = _at(allow_null=True)
    suspended = serializers.BooleanField()
    created_at = _at()
    step__module__slug = _text()
    step__term = _text()


class ExportReviewLogSerializer(serializers.Serializer):
    id = _id()
    card_id = _id()
    learner_id = _id()
    source = _text()
    rating = _id(help_text="1 Again, 2 Hard, 3 Good, 4 Easy.")
    reviewed_at = _at()
    duration_ms = _id(allow_null=True)
    client_review_id = _text(allow_null=True)
    before_state = _id()
    before_learning_step = _id(allow_null=True)
    before_stability = serializers.FloatField(allow_null=True)
    before_difficulty = serializers.FloatField(allow_null=True)
    before_due = _at()
    before_last_review = _at(allow_null=True)
    after_state = _id()
    after_stability = serializers.FloatField(allow_null=True)
    after_difficulty = serializers.FloatField(allow_null=True)
    after_due = _at()


class ExportReminderSerializer(serializers.Serializer):
    id = _id()
    learner_id = _id()
    local_date = serializers.DateField()
    kind = _text()
    status = _text()
    claimed_at = _at()
    enqueued_at = _at(allow_null=True)
    sent_at = _at(allow_null=True)
    attempts = _id()
    due_count = _id(allow_null=True)
    last_error = _text()
    unsubscribe_key = _text(allow_null=True)


class ExportNotificationPayloadSerializer(serializers.Serializer):
    """A review digest's payload as stored (a notification written another way may lack it)."""

    due_count = _id(required=False)
    local_date = serializers.DateField(required=False)
    url = serializers.URLField(required=False)


class ExportNotificationSerializer(serializers.Serializer):
    id = _id()
    learner_id = _id()
    kind = _text()
    title = _text()
    body = _text()
    payload = ExportNotificationPayloadSerializer()
    digest_id = _id(allow_null=True)
    created_at = _at()
    read_at = _at(allow_null=True)


class ExportCalendarFeedSerializer(serializers.Serializer):
    """A private calendar address I made, without its token (a live credential)."""

    id = _id()
    learner_id = _id()
    created_at = _at()
    revoked_at = _at(allow_null=True)
    credentials_epoch = _id()


def _fsrs_parameters(**kwargs) -> serializers.ListField:
    return serializers.ListField(child=serializers.FloatField(), **kwargs)


class ExportParametersSerializer(serializers.Serializer):
    learner_id = _id()
    parameters = _fsrs_parameters(help_text="The FSRS parameters my reviews are scheduled with.")
    version = _id()
    fit_id = _id(allow_null=True)


class ExportParameterFitSerializer(serializers.Serializer):
    id = _id()
    learner_id = _id(allow_null=True)
    module_id = _id(allow_null=True)
    run_key = _text()
    fitted_at = _at()
    review_count = _id()
    parameters = _fsrs_parameters()
    log_loss = serializers.FloatField()
    log_loss_before = serializers.FloatField()
    rmse_bins = serializers.FloatField()
    rmse_bins_before = serializers.FloatField()
    adopted = serializers.BooleanField()


class ExportExamDateSerializer(serializers.Serializer):
    id = _id()
    learner_id = _id()
    module_id = _id()
    exam_on = serializers.DateField()
    set_at = _at()
    module__slug = _text()


class ExportReviewsSerializer(serializers.Serializer):
    cards = ExportCardSerializer(many=True, help_text="My review cards.")
    review_logs = ExportReviewLogSerializer(many=True, help_text="Every review.")
    reminders = ExportReminderSerializer(
        many=True, help_text="The reminder digests sent or planned."
    )
    notifications = ExportNotificationSerializer(many=True, help_text="My notifications.")
    calendar_feeds = ExportCalendarFeedSerializer(
        many=True, help_text="My private calendar addresses, revoked ones too (never a token)."
    )
    fsrs_parameters = ExportParametersSerializer(
        many=True, help_text="My own FSRS parameters in use, once fitted (at most one row)."
    )
    fsrs_parameter_fits = ExportParameterFitSerializer(
        many=True, help_text="Every fit of my FSRS parameters, with its losses."
    )
    exam_dates = ExportExamDateSerializer(many=True, help_text="The exam dates I set.")


# --- lti --------------------------------------------------------------------------------------


class ExportLtiIdentitySerializer(serializers.Serializer):
    id = _id()
    registration_id = _id()
    registration__issuer = _text(help_text="The platform that sent this identity.")
    sub = _text(help_text="My subject at that platform.")
    lti1p1_id_on_platform = _text()
    given_name = _text()
    family_name = _text()
    name = _text()
    email = _text()
    picture_url = _text()
    auth_user_id = _id(allow_null=True)
    datetime_created = _at()
    datetime_modified = _at()


class ExportLaunchTicketSerializer(serializers.Serializer):
    id = _id()
    user_id = _id()
    target_url = _text()
    expires_at = _at()
    used_at = _at(allow_null=True)


class ExportLtiSerializer(serializers.Serializer):
    identities = ExportLtiIdentitySerializer(
        many=True, help_text="Who LTI platforms (Moodle, Canvas …) said I am."
    )
    launch_tickets = ExportLaunchTicketSerializer(
        many=True,
        help_text="The one-time links that opened Lernpfad from a platform (never the token).",
    )


class ExportModuleAdministratorSerializer(serializers.Serializer):
    id = _id()
    user_id = _id()
    module_id = _id()
    module__slug = _text()
    source = _text(help_text="platform (an LTI teacher) or admin (set by a superuser).")
    created_at = _at()


class DataExportSerializer(serializers.Serializer):
    """The data export: each table's rows with their columns by name."""

    format_version = _id(help_text="1 so far; changes when keys move.")
    exported_at = _at()
    account = ExportAccountSerializer(help_text="My profile and preferences.")
    devices = ExportDeviceSerializer(many=True, help_text="My devices (never a token).")
    tokens = ExportTokenSerializer(
        many=True, help_text="Token metadata (never a token or its digest)."
    )
    sso_identities = ExportSsoIdentitySerializer(
        many=True, help_text="My identities at institutions' single sign-on."
    )
    email_addresses = ExportEmailAddressSerializer(
        many=True, help_text="The addresses single sign-on keeps for my account."
    )
    courses = ExportProgressSerializer(help_text="Enrollments, progress and notes.")
    quizzes = ExportQuizzesSerializer()
    reviews = ExportReviewsSerializer()
    lti = ExportLtiSerializer(help_text="What LTI platforms told Lernpfad about me.")
    module_administrators = ExportModuleAdministratorSerializer(
        many=True, help_text="The modules I administer as a course admin."
    )
