"""Input and output shapes of the enrollment, progress and notes API. Fields are listed."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from courses.api import SECTION_KIND_CHOICES
from courses.rest.serializers import ModuleDetailSerializer, OutlineStepSerializer
from lms.converters import NUMBER_MAX
from lms.openapi import ErrorDetailField, object_rules
from lms.rendering import datetime_formatter
from lms.serializers import BodySerializer
from lms.text import text_is_storable
from progress.event_rules import CLIENT_EVENT_ID_MAX_LENGTH, COMPLETION_REFUSED
from progress.models import NOTE_MAX_LENGTH, Enrollment, ProgressEvent, StepNote, StepProgress
from progress.selectors import percent
from progress.services.sync import SYNC_MAX_EVENTS, SYNC_STATUSES


class EnrollmentSerializer(serializers.ModelSerializer):
    module = serializers.CharField(source="module.slug")
    module_title = serializers.CharField(source="module.title")
    last_activity_at = serializers.DateTimeField(allow_null=True)
    total_steps = serializers.IntegerField()
    completed_steps = serializers.IntegerField()
    percent_complete = serializers.SerializerMethodField()

    class Meta:
        model = Enrollment
        fields = [
            "module",
            "module_title",
            "source",
            "enrolled_at",
            "last_activity_at",
            "total_steps",
            "completed_steps",
            "percent_complete",
        ]

    def get_percent_complete(self, enrollment: Enrollment) -> int:
        return percent(enrollment.completed_steps, enrollment.total_steps)


class SectionKindField(serializers.ChoiceField):
    """A section kind: an enum in the schema, but any well-formed kind passes to the service,
    which answers ``unknown_section``."""

    def __init__(self, **kwargs):
        super().__init__(choices=SECTION_KIND_CHOICES, **kwargs)

    def to_internal_value(self, data):
        if data == "" and self.allow_blank:
            return ""
        if not isinstance(data, str) or len(data) > 30 or not text_is_storable(data):
            self.fail("invalid_choice", input=data)
        return data


@object_rules(
    anyOf=[
        {"properties": {"event": {"not": {"enum": [ProgressEvent.Kind.SECTION_VIEWED.value]}}}},
        {"required": ["section"], "properties": {"section": {"minLength": 1}}},
    ]
)
class StepEventSerializer(BodySerializer):
    """POST .../progress/: one event for this step."""

    event = serializers.ChoiceField(choices=ProgressEvent.Kind.choices)
    # No schema default: a generated client leaves it out unless given.
    section = SectionKindField(
        required=False,
        allow_blank=True,
        help_text="The section kind (e.g. 'verstehen'); required for section_viewed.",
    )

    def validate(self, attrs):
        attrs = {"section": ""} | attrs
        if attrs["event"] == ProgressEvent.Kind.SECTION_VIEWED and not attrs["section"]:
            raise serializers.ValidationError({"section": [_("section_viewed needs the section.")]})
        return attrs


class StepProgressStateSerializer(serializers.Serializer):
    """A step's progress after an event; ``result`` says whether the event changed it."""

    module = serializers.CharField()
    number = serializers.IntegerField()
    result = serializers.ChoiceField(choices=ProgressEvent.Result.choices)
    status = serializers.ChoiceField(choices=StepProgress.Status.choices)
    sections_viewed = serializers.ListField(child=serializers.CharField())
    missing_sections = serializers.ListField(child=serializers.CharField())
    last_section = serializers.CharField()
    first_opened_at = serializers.DateTimeField(allow_null=True)
    completed_at = serializers.DateTimeField(allow_null=True)

    @staticmethod
    def payload(*, module: str, number: int, outcome) -> dict:
        progress = outcome.progress
        kinds = outcome.section_kinds
        return {
            "module": module,
            "number": number,
            "result": outcome.result,
            "status": progress.status,
            "sections_viewed": [k for k in kinds if k in progress.sections_viewed],
            "missing_sections": outcome.missing_sections,
            "last_section": progress.last_section,
            "first_opened_at": progress.first_opened_at,
            "completed_at": progress.completed_at,
        }


class StepStatusSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    slug = serializers.CharField()
    term = serializers.CharField()
    status = serializers.ChoiceField(choices=StepProgress.Status.choices)
    sections_total = serializers.SerializerMethodField()
    sections_viewed = serializers.ListField(child=serializers.CharField())
    missing_sections = serializers.ListField(child=serializers.CharField())
    last_section = serializers.CharField()
    first_opened_at = serializers.DateTimeField(allow_null=True)
    completed_at = serializers.DateTimeField(allow_null=True)

    def get_sections_total(self, step) -> int:
        return len(step.section_kinds)


class ResumePointSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    slug = serializers.CharField()
    term = serializers.CharField()
    section = serializers.CharField(help_text="The section kind to open.")


class ModuleProgressSerializer(serializers.Serializer):
    """A learner's progress in a module. The fields below are the contract (and the OpenAPI
    schema); ``to_representation`` writes the same dict directly: DRF's walk over 32 steps ×
    10 fields cost a third of the request's CPU (9.6 → 6.5 ms). A test compares the two."""

    module = serializers.CharField(source="module_slug")
    module_title = serializers.CharField()
    enrolled_at = serializers.DateTimeField()
    last_activity_at = serializers.DateTimeField(allow_null=True)
    percent_complete = serializers.IntegerField()
    total_steps = serializers.IntegerField()
    completed_steps = serializers.IntegerField()
    in_progress_steps = serializers.IntegerField()
    not_started_steps = serializers.IntegerField()
    next_step = ResumePointSerializer(allow_null=True)
    steps = StepStatusSerializer(many=True)

    def to_representation(self, instance):
        resume = instance.next_step
        iso = datetime_formatter()
        return {
            "module": instance.module_slug,
            "module_title": instance.module_title,
            "enrolled_at": iso(instance.enrolled_at),
            "last_activity_at": iso(instance.last_activity_at),
            "percent_complete": instance.percent_complete,
            "total_steps": instance.total_steps,
            "completed_steps": instance.completed_steps,
            "in_progress_steps": instance.in_progress_steps,
            "not_started_steps": instance.not_started_steps,
            "next_step": None
            if resume is None
            else {
                "number": resume.number,
                "slug": resume.slug,
                "term": resume.term,
                "section": resume.section,
            },
            "steps": [
                {
                    "number": step.number,
                    "slug": step.slug,
                    "term": step.term,
                    "status": step.status,
                    "sections_total": len(step.section_kinds),
                    "sections_viewed": list(step.sections_viewed),
                    "missing_sections": list(step.missing_sections),
                    "last_section": step.last_section,
                    "first_opened_at": iso(step.first_opened_at),
                    "completed_at": iso(step.completed_at),
                }
                for step in instance.steps
            ],
        }


class _SyncEventSerializer(BodySerializer):
    """What every offline event has (progress.event_rules.sync_event_parse checks it)."""

    client_event_id = serializers.CharField(
        max_length=CLIENT_EVENT_ID_MAX_LENGTH,
        help_text="Chosen by the app (e.g. a UUID); an event sent again is a duplicate.",
    )
    module = serializers.CharField(help_text="The module's slug.")
    step = serializers.IntegerField(
        min_value=1, max_value=NUMBER_MAX, help_text="The step's number."
    )
    occurred_at = serializers.DateTimeField(
        help_text="When it happened on the device, with a UTC offset; at most 5 minutes after "
        "the server's clock (else rejected, timestamp_in_future)."
    )


def _event_kind_field(kind: str) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=[str(kind)])


class SyncOpenedEventSerializer(_SyncEventSerializer):
    event = _event_kind_field(ProgressEvent.Kind.OPENED)


class SyncSectionViewedEventSerializer(_SyncEventSerializer):
    event = _event_kind_field(ProgressEvent.Kind.SECTION_VIEWED)
    section = serializers.ChoiceField(choices=SECTION_KIND_CHOICES, help_text="The section viewed.")


class SyncCompletedEventSerializer(_SyncEventSerializer):
    event = _event_kind_field(ProgressEvent.Kind.COMPLETED)


class SyncReopenedEventSerializer(_SyncEventSerializer):
    event = _event_kind_field(ProgressEvent.Kind.REOPENED)


SYNC_EVENT_SCHEMA = PolymorphicProxySerializer(
    component_name="SyncEvent",
    serializers={
        ProgressEvent.Kind.OPENED.value: SyncOpenedEventSerializer,
        ProgressEvent.Kind.SECTION_VIEWED.value: SyncSectionViewedEventSerializer,
        ProgressEvent.Kind.COMPLETED.value: SyncCompletedEventSerializer,
        ProgressEvent.Kind.REOPENED.value: SyncReopenedEventSerializer,
    },
    resource_type_field_name="event",
    many=False,
)


@extend_schema_field(SYNC_EVENT_SCHEMA)
class SyncEventField(serializers.JSONField):
    """One offline event, typed in the schema but parsed by the service, so a malformed event
    is rejected on its own instead of failing the batch."""


class SyncRequestSerializer(BodySerializer):
    events = serializers.ListField(child=SyncEventField(), max_length=SYNC_MAX_EVENTS)


class SyncErrorSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="Why the event was rejected, e.g. invalid_event, unknown_event, invalid_step, "
        "invalid_section, unknown_section, invalid_timestamp, timestamp_in_future, "
        "timestamp_too_old, module_not_found, step_not_found, not_enrolled, "
        "completion_evidence_missing."
    )
    message = serializers.CharField()
    detail = ErrorDetailField()


class SyncResultSerializer(serializers.Serializer):
    client_event_id = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=SYNC_STATUSES)
    error = serializers.SerializerMethodField()

    @extend_schema_field(SyncErrorSerializer(allow_null=True))
    def get_error(self, result) -> dict | None:
        if result.status != "rejected":
            return None
        return {"code": result.code, "message": result.message, "detail": result.detail}


class SyncCountsSerializer(serializers.Serializer):
    """How many events of the batch ended each way."""

    applied = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    stale = serializers.IntegerField()
    duplicate = serializers.IntegerField()
    rejected = serializers.IntegerField()


class SyncResponseSerializer(serializers.Serializer):
    results = SyncResultSerializer(many=True)
    counts = SyncCountsSerializer()
    server_time = serializers.DateTimeField(
        help_text="The server's clock when it answered (UTC). An app compares it with its own: "
        "an occurred_at more than 5 minutes ahead of the server is rejected."
    )

    @staticmethod
    def payload(results, *, server_time) -> dict:
        counts = dict.fromkeys(SYNC_STATUSES, 0)
        for result in results:
            counts[result.status] += 1
        return {"results": results, "counts": counts, "server_time": server_time}


@object_rules(anyOf=[{"required": [prompt]} for prompt in StepNote.Prompt.values])
class StepNotesSerializer(BodySerializer):
    """A learner's notes on a step, one text per prompt ("" when none)."""

    module = serializers.CharField(source="module_slug", read_only=True)
    number = serializers.IntegerField(read_only=True)
    praxisaufgabe = serializers.CharField(
        max_length=NOTE_MAX_LENGTH, allow_blank=True, required=False, trim_whitespace=False
    )
    lernauftrag = serializers.CharField(
        max_length=NOTE_MAX_LENGTH, allow_blank=True, required=False, trim_whitespace=False
    )
    updated_at = serializers.DateTimeField(read_only=True, allow_null=True)

    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError(
                _("Give at least one of: %(prompts)s.")
                % {"prompts": ", ".join(StepNote.Prompt.values)}
            )
        return attrs

    @staticmethod
    def payload(notes) -> dict:
        return {
            "module_slug": notes.module_slug,
            "number": notes.number,
            **{
                prompt: notes.notes[prompt].text if prompt in notes.notes else ""
                for prompt in StepNote.Prompt.values
            },
            "updated_at": notes.updated_at,
        }


class NotesConflictDetailSerializer(serializers.Serializer):
    etag = serializers.CharField(help_text="The current version: send it as If-Match.")
    praxisaufgabe = serializers.CharField(allow_blank=True, help_text="The current text.")
    lernauftrag = serializers.CharField(allow_blank=True, help_text="The current text.")
    updated_at = serializers.DateTimeField(allow_null=True)


class NotesConflictSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=["notes_changed"])
    message = serializers.CharField()
    detail = NotesConflictDetailSerializer()


class NotesConflictErrorSerializer(serializers.Serializer):
    """The error shape of a stale notes write (``412``): the current notes in ``detail``."""

    error = NotesConflictSerializer()


class CompletionRefusedDetailSerializer(serializers.Serializer):
    missing_sections = serializers.ListField(
        child=serializers.CharField(), help_text="Section kinds not seen yet, in document order."
    )
    missing_quick_checks = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Ids of the step's quick checks not answered yet (the step's quick_checks).",
    )
    seconds_left = serializers.IntegerField(
        help_text="Seconds until the step has been open long enough (0: long enough)."
    )
    min_seconds = serializers.IntegerField(
        help_text="The time the module's rule asks for, from the first event on the step."
    )


class CompletionRefusedSerializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=[COMPLETION_REFUSED])
    message = serializers.CharField()
    detail = CompletionRefusedDetailSerializer()


class CompletionRefusedErrorSerializer(serializers.Serializer):
    """The error shape of a completion asked for before its evidence (``409``): every missing
    part in ``detail``; nothing was recorded."""

    error = CompletionRefusedSerializer()


class LearnerOutlineStepSerializer(OutlineStepSerializer):
    status = serializers.SerializerMethodField()

    class Meta(OutlineStepSerializer.Meta):
        fields = [*OutlineStepSerializer.Meta.fields, "status"]

    @extend_schema_field(
        serializers.ChoiceField(choices=StepProgress.Status.choices, allow_null=True)
    )
    def get_status(self, step) -> str | None:
        """The learner's status on the step; null without log-in or enrollment."""
        outline_status = self.context.get("outline_status")
        return outline_status.status_by_step.get(step.pk) if outline_status else None


class OutlineProgressSerializer(serializers.Serializer):
    enrolled_at = serializers.DateTimeField()
    last_activity_at = serializers.DateTimeField(allow_null=True)
    percent_complete = serializers.IntegerField()
    total_steps = serializers.IntegerField()
    completed_steps = serializers.IntegerField()
    next_step_number = serializers.IntegerField(allow_null=True)


class ModuleDetailWithProgressSerializer(ModuleDetailSerializer):
    """The module outline; for an enrolled learner also the status of each step."""

    outline = LearnerOutlineStepSerializer(many=True, source="active_steps")
    progress = serializers.SerializerMethodField()

    class Meta(ModuleDetailSerializer.Meta):
        fields = [*ModuleDetailSerializer.Meta.fields, "progress"]

    @extend_schema_field(OutlineProgressSerializer(allow_null=True))
    def get_progress(self, module) -> dict | None:
        outline_status = self.context.get("outline_status")
        if outline_status is None:
            return None
        return OutlineProgressSerializer(outline_status).data
