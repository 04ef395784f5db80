"""Output shapes of the content API. Every serializer lists its fields."""

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from courses.models import Module, QuickCheck, Section, Step, TermCard
from courses.selectors import step_version
from lms.query import QuerySerializer


class ModuleListSerializer(serializers.ModelSerializer):
    step_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Module
        fields = ["slug", "series", "number", "title", "header", "step_count", "exam_block_count"]


class OutlineStepSerializer(serializers.ModelSerializer):
    section_kinds = serializers.SerializerMethodField()
    has_term_card = serializers.SerializerMethodField()
    content_hash = serializers.SerializerMethodField(
        help_text="The step's content version: its ETag without the quotes. It changes when "
        "the step, its quick checks or its term card change."
    )

    class Meta:
        model = Step
        fields = [
            "number",
            "slug",
            "term",
            "definition",
            "level",
            "section_kinds",
            "has_term_card",
            "content_hash",
        ]

    def get_content_hash(self, step: Step) -> str:
        card = getattr(step, "term_card", None)
        return step_version(step.content_hash, card.content_hash if card else None)

    @extend_schema_field(
        serializers.ListField(child=serializers.ChoiceField(choices=Section.Kind.choices))
    )
    def get_section_kinds(self, step: Step) -> list[str]:
        return list(step.section_kinds)

    def get_has_term_card(self, step: Step) -> bool:
        return hasattr(step, "term_card")


class ExamBlockSummarySerializer(serializers.Serializer):
    heading = serializers.CharField(source="exam_heading")
    block_count = serializers.IntegerField(source="exam_block_count")


class ModuleDetailSerializer(serializers.ModelSerializer):
    outline = OutlineStepSerializer(many=True, source="active_steps")
    exam = ExamBlockSummarySerializer(source="*")

    class Meta:
        model = Module
        fields = ["slug", "series", "number", "title", "header", "outline", "exam"]


class SectionSerializer(serializers.ModelSerializer):
    lines = serializers.ListField(child=serializers.CharField(), read_only=True)
    commands = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = Section
        fields = ["position", "kind", "heading", "lines", "is_truncated", "commands"]


class QuickCheckSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="quick_check.id")
    position = serializers.IntegerField()
    question = serializers.CharField(source="quick_check.question")
    answer = serializers.CharField(source="quick_check.answer")


class ExerciseSerializer(serializers.Serializer):
    heading = serializers.CharField()
    instruction = serializers.CharField()
    commands = serializers.ListField(child=serializers.CharField())


class TermCardSerializer(serializers.ModelSerializer):
    title = serializers.CharField(source="title_line")
    step_number = serializers.IntegerField(source="step.number")
    sections = serializers.SerializerMethodField()

    class Meta:
        model = TermCard
        fields = ["slug", "term", "title", "lead", "command", "step_number", "sections"]

    @extend_schema_field(SectionSerializer(many=True))
    def get_sections(self, card: TermCard) -> list[dict]:
        sections = self.context.get("card_sections")
        if sections is None:
            sections = card.sections.all()
        return SectionSerializer(sections, many=True).data


class StepDetailSerializer(serializers.Serializer):
    module = serializers.CharField(source="step.module.slug")
    number = serializers.IntegerField(source="step.number")
    total = serializers.IntegerField(source="step.total")
    slug = serializers.CharField(source="step.slug")
    term = serializers.CharField(source="step.term")
    lead = serializers.CharField(source="step.lead")
    definition = serializers.CharField(source="step.definition")
    level = serializers.CharField(source="step.level")
    as_of = serializers.DateField(source="step.as_of", allow_null=True)
    source_count = serializers.IntegerField(source="step.source_count", allow_null=True)
    source_status = serializers.CharField(source="step.source_status")
    sections = SectionSerializer(many=True)
    exercises = serializers.SerializerMethodField()
    quick_checks = QuickCheckSerializer(many=True, source="quick_check_links")
    term_card = serializers.SerializerMethodField()
    previous_number = serializers.IntegerField(allow_null=True)
    next_number = serializers.IntegerField(allow_null=True)

    @extend_schema_field(ExerciseSerializer(many=True))
    def get_exercises(self, content) -> list[dict]:
        exercises = []
        for section in content.sections:
            if section.kind != Section.Kind.UEBUNG:
                continue
            instruction = next((line for line in section.lines if line not in section.commands), "")
            exercises.append(
                {
                    "heading": section.heading,
                    "instruction": instruction,
                    "commands": section.commands,
                }
            )
        return ExerciseSerializer(exercises, many=True).data

    @extend_schema_field(TermCardSerializer(allow_null=True))
    def get_term_card(self, content) -> dict | None:
        if content.card is None:
            return None
        return TermCardSerializer(
            content.card, context={"card_sections": content.card_sections}
        ).data


class BundleQuickCheckSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    question = serializers.CharField()
    answer = serializers.CharField()
    role = serializers.ChoiceField(
        choices=list(QuickCheck.Role.values),
        help_text="flashcard: a review card of its own; definition: repeats the step's "
        "definition; generic and instruction: a reflection prompt, no rating and no card.",
    )
    takes_rating = serializers.BooleanField(
        help_text="False for a reflection prompt (the step page shows it without a rating)."
    )
    step_numbers = serializers.ListField(
        child=serializers.IntegerField(), help_text="The steps that show it."
    )


class BundleRemovedSerializer(serializers.Serializer):
    steps = serializers.ListField(
        child=serializers.CharField(), help_text="Slugs of steps no longer in the module."
    )
    term_cards = serializers.ListField(child=serializers.CharField(), help_text="Card slugs.")
    quick_checks = serializers.ListField(child=serializers.IntegerField(), help_text="Ids.")


class BundleQuerySerializer(QuerySerializer):
    since = serializers.RegexField(
        r"^[0-9a-f]{24}$",
        required=False,
        error_messages={"invalid": _("A version is 24 hexadecimal digits, as `version` gives it.")},
        help_text="The `version` of the bundle the client holds (24 hex digits).",
    )


class BundleModuleSerializer(serializers.ModelSerializer):
    exam = ExamBlockSummarySerializer(source="*")

    class Meta:
        model = Module
        fields = ["slug", "series", "number", "title", "header", "exam"]


class ModuleBundleSerializer(serializers.Serializer):
    """A whole module for offline use (``courses.selectors.module_bundle_get``)."""

    module = BundleModuleSerializer()
    version = serializers.CharField(help_text="The content version; the ETag quotes it.")
    since = serializers.CharField(
        allow_null=True, help_text="The version this delta starts from; null: everything."
    )
    delta = serializers.BooleanField(
        help_text="True: steps, term_cards and quick_checks hold only what changed since "
        "`since`, and `removed` what is gone. False: they hold everything."
    )
    outline = OutlineStepSerializer(many=True)
    steps = StepDetailSerializer(many=True)
    term_cards = TermCardSerializer(many=True)
    quick_checks = BundleQuickCheckSerializer(many=True)
    removed = BundleRemovedSerializer()
