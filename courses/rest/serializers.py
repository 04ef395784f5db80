"""Output shapes of the content API. Every serializer lists its fields."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from courses.models import Module, Section, Step, TermCard


class ModuleListSerializer(serializers.ModelSerializer):
    step_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Module
        fields = ["slug", "series", "number", "title", "header", "step_count", "exam_block_count"]


class OutlineStepSerializer(serializers.ModelSerializer):
    section_kinds = serializers.SerializerMethodField()
    has_term_card = serializers.SerializerMethodField()

    class Meta:
        model = Step
        fields = ["number", "slug", "term", "definition", "level", "section_kinds", "has_term_card"]

    @extend_schema_field(
        serializers.ListField(child=serializers.ChoiceField(choices=Section.Kind.choices))
    )
    def get_section_kinds(self, step: Step) -> list[str]:
        return [section.kind for section in step.sections.all()]

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
