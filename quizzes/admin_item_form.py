"""The item editor of the admin: one set of fields per kind (options with the right ones
ticked, true/false, accepted answers with a case rule, numbers with tolerance or range,
matching pairs) instead of JSON, validated with messages in the admin's language."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from quizzes.answers import (
    MATCHING,
    MAX_ACCEPTED,
    MAX_ANSWER_TEXT,
    MAX_NUMBER_TEXT,
    MAX_PAIRS,
    MULTIPLE_CHOICE,
    NUMERICAL,
    PAIR_ARROW,
    SHORT_ANSWER,
    SINGLE_CHOICE,
    TRUE_FALSE,
)
from quizzes.generator import TRUE_FALSE_OPTIONS
from quizzes.gift import OPTION_KEYS, decimal_text
from quizzes.item_html import item_html_clean
from quizzes.models import ExamItem

# Empty rows a form shows below the filled ones, so an option can be added without JavaScript.
SPARE_ROWS = 2
# A decimal comma is read as a point (a German admin types 0,5).
_NUMBER_RE = re.compile(r"[-+]?(?:\d+(?:[.,]\d*)?|[.,]\d+)")


class RowsWidget(forms.Widget):
    """Rows of inputs named ``<name>-<row>-<column>``: a small table the admin can add rows
    to and remove rows from (quizzes/static/quizzes/item_editor.js); a row left empty is
    dropped."""

    template_name = "admin/quizzes/examitem/rows_widget.html"

    def __init__(self, columns, *, add_label, attrs=None) -> None:
        # columns: (name, label, "text" | "checkbox" | "number")
        super().__init__(attrs)
        self.columns = columns
        self.add_label = add_label

    def value_from_datadict(self, data, files, name):
        pattern = re.compile(rf"^{re.escape(name)}-(\d+)-(\w+)$")
        rows: dict[int, dict] = {}
        for key in data:
            match = pattern.match(key)
            if match:
                rows.setdefault(int(match.group(1)), {})[match.group(2)] = data.get(key)
        return [
            {
                column: (
                    bool(rows[index].get(column))
                    if kind == "checkbox"
                    else (rows[index].get(column) or "").strip()
                )
                for column, _label, kind in self.columns
            }
            for index in sorted(rows)
        ]

    def value_omitted_from_data(self, data, files, name):
        return False

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        texts = [column for column, _label, kind in self.columns if kind != "checkbox"]
        # Rows left empty are dropped (also when a refused form comes back): only the spares.
        rows = [
            row
            for row in (value or [])
            if isinstance(row, dict) and any(row.get(column) for column in texts)
        ]
        blank = {column: ("" if kind != "checkbox" else False) for column, _l, kind in self.columns}
        rows = rows + [blank] * SPARE_ROWS
        context["widget"].update(
            {
                "columns": self.columns,
                "rows": [
                    [
                        (column, label, kind, row.get(column, blank[column]))
                        for column, label, kind in self.columns
                    ]
                    for row in rows
                ],
                "template_row": [(c, label, kind, blank[c]) for c, label, kind in self.columns],
                "add_label": self.add_label,
            }
        )
        return context


class RowsField(forms.Field):
    """A list of row dicts; rows whose every text is empty are left out."""

    def __init__(self, columns, *, add_label, **kwargs) -> None:
        self.columns = columns
        kwargs.setdefault("required", False)
        super().__init__(widget=RowsWidget(columns, add_label=add_label), **kwargs)

    def to_python(self, value):
        texts = [column for column, _label, kind in self.columns if kind != "checkbox"]
        return [row for row in value or [] if any(row.get(column) for column in texts)]

    def has_changed(self, initial, data):
        return self.to_python(initial or []) != self.to_python(data)


def _columns(*spec):
    return [(name, label, kind) for name, label, kind in spec]


CHOICE_COLUMNS = _columns(
    ("text", gettext_lazy("Option"), "text"),
    ("correct", pgettext_lazy("option", "right"), "checkbox"),
    ("feedback", gettext_lazy("Feedback on this option"), "text"),
)
ACCEPTED_COLUMNS = _columns(
    ("text", gettext_lazy("Accepted answer"), "text"),
    ("feedback", gettext_lazy("Feedback on this answer"), "text"),
)
NUMBER_COLUMNS = _columns(
    ("value", gettext_lazy("Value"), "number"),
    ("tolerance", gettext_lazy("± tolerance"), "number"),
    ("min", gettext_lazy("or from"), "number"),
    ("max", pgettext_lazy("range", "to"), "number"),
    ("feedback", gettext_lazy("Feedback on this answer"), "text"),
)
PAIR_COLUMNS = _columns(
    ("left", gettext_lazy("Left side (empty: a wrong answer to choose from)"), "text"),
    ("right", gettext_lazy("Matching answer"), "text"),
)


class ExamItemForm(forms.ModelForm):
    """The item with its answers as fields per kind; ``clean`` writes them into the JSON
    columns the grading reads (``options``, ``correct_keys``, ``answer_key``,
    ``answer_feedback``), which the form never shows."""

    choice_rows = RowsField(
        CHOICE_COLUMNS,
        add_label=gettext_lazy("Add an option"),
        label=gettext_lazy("Options"),
        help_text=gettext_lazy("Tick the right options; single choice: exactly one."),
    )
    true_false_correct = forms.ChoiceField(
        required=False,
        choices=[
            ("true", pgettext_lazy("statement", "true")),
            ("false", pgettext_lazy("statement", "false")),
        ],
        widget=forms.RadioSelect,
        label=gettext_lazy("The statement is"),
    )
    true_false_feedback_true = forms.CharField(
        required=False, label=gettext_lazy("Feedback when the learner says “true”")
    )
    true_false_feedback_false = forms.CharField(
        required=False, label=gettext_lazy("Feedback when the learner says “false”")
    )
    accepted_rows = RowsField(
        ACCEPTED_COLUMNS,
        add_label=gettext_lazy("Add an accepted answer"),
        label=gettext_lazy("Accepted answers"),
        help_text=gettext_lazy(
            "Spaces, umlauts written as ae/oe/ue and a full stop at the end do not matter."
        ),
    )
    case_sensitive = forms.BooleanField(
        required=False,
        label=gettext_lazy("Upper and lower case must match"),
    )
    number_rows = RowsField(
        NUMBER_COLUMNS,
        add_label=gettext_lazy("Add a number"),
        label=gettext_lazy("Right numbers"),
        help_text=gettext_lazy(
            "Per row a value with a tolerance (14 ± 0.5), or a range from … to (13 to 15)."
        ),
    )
    pair_rows = RowsField(
        PAIR_COLUMNS,
        add_label=gettext_lazy("Add a pair"),
        label=gettext_lazy("Pairs"),
    )

    class Meta:
        model = ExamItem
        # Every column but the JSON ones, which ``clean`` fills from the answer fields.
        fields = (
            "module",
            "step",
            "kind",
            "title",
            "prompt",
            "text_format",
            "explanation",
            "status",
            "is_active",
            "category",
            "gift_comment",
        )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        item = self.instance
        if item.pk is None:
            return
        feedback = item.answer_feedback or {}
        key = item.answer_key or {}
        correct = set(item.correct_keys or [])
        initial = self.initial
        if item.kind in (SINGLE_CHOICE, MULTIPLE_CHOICE):
            initial["choice_rows"] = [
                {
                    "text": option["text"],
                    "correct": option["key"] in correct,
                    "feedback": feedback.get(option["key"], ""),
                }
                for option in item.options or []
            ]
        elif item.kind == TRUE_FALSE:
            initial["true_false_correct"] = (item.correct_keys or ["true"])[0]
            initial["true_false_feedback_true"] = feedback.get("true", "")
            initial["true_false_feedback_false"] = feedback.get("false", "")
        elif item.kind == SHORT_ANSWER:
            initial["accepted_rows"] = [
                {"text": text, "feedback": feedback.get(str(index), "")}
                for index, text in enumerate(key.get("accepted", []))
            ]
            initial["case_sensitive"] = bool(key.get("case_sensitive"))
        elif item.kind == NUMERICAL:
            initial["number_rows"] = [
                {
                    "value": answer.get("value", ""),
                    "tolerance": answer.get("tolerance", "") if "value" in answer else "",
                    "min": answer.get("min", ""),
                    "max": answer.get("max", ""),
                    "feedback": feedback.get(str(index), ""),
                }
                for index, answer in enumerate(key.get("answers", []))
            ]
        elif item.kind == MATCHING:
            initial["pair_rows"] = list(key.get("pairs", []))

    # The form's answer fields and the columns they write (what a review compares).
    ANSWER_FIELDS = {
        "choice_rows": ("options", "correct_keys", "answer_feedback"),
        "true_false_correct": ("correct_keys",),
        "true_false_feedback_true": ("answer_feedback",),
        "true_false_feedback_false": ("answer_feedback",),
        "accepted_rows": ("answer_key", "answer_feedback"),
        "case_sensitive": ("answer_key",),
        "number_rows": ("answer_key", "answer_feedback"),
        "pair_rows": ("answer_key",),
    }

    def changed_item_fields(self) -> set[str]:
        """The model fields this edit changes (the answer fields named by their columns)."""
        changed = set()
        for name in self.changed_data:
            changed.update(self.ANSWER_FIELDS.get(name, (name,)))
        return changed

    def _update_errors(self, errors):
        # ExamItem.clean reports a bad answer under its JSON columns, which this form shows as
        # the rows fields: when the rows already carry the reason (in the admin's language),
        # the model's repetition is left out; otherwise it is shown above the form.
        if hasattr(errors, "error_dict"):
            answers_invalid = any(name in self.errors for name in self.ANSWER_FIELDS)
            kept: dict[str, list] = {}
            for field, messages in errors.error_dict.items():
                if field in ("options", "correct_keys", "answer_key", "answer_feedback"):
                    if answers_invalid:
                        continue
                    field = NON_FIELD_ERRORS
                kept.setdefault(field, []).extend(messages)
            if not kept:
                return
            errors = ValidationError(kept)
        super()._update_errors(errors)

    # --- per kind -----------------------------------------------------------------------------

    def _rich(self, text: str) -> str:
        """An HTML item's text sanitised (the learner's page shows it as HTML)."""
        if self.cleaned_data.get("text_format") == "html":
            return item_html_clean(text)
        return text.strip()

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.get("kind")
        if cleaned.get("prompt") is not None:
            cleaned["prompt"] = self._rich(cleaned["prompt"])
            if not cleaned["prompt"]:
                self.add_error("prompt", _("The question needs a text."))
        if cleaned.get("explanation"):
            cleaned["explanation"] = self._rich(cleaned["explanation"])
        if kind in (SINGLE_CHOICE, MULTIPLE_CHOICE):
            answers = self._choice(kind, cleaned.get("choice_rows") or [])
        elif kind == TRUE_FALSE:
            answers = self._true_false(cleaned)
        elif kind == SHORT_ANSWER:
            answers = self._short_answer(cleaned)
        elif kind == NUMERICAL:
            answers = self._numerical(cleaned.get("number_rows") or [])
        elif kind == MATCHING:
            answers = self._matching(cleaned.get("pair_rows") or [])
        else:
            return cleaned
        # An edit that leaves the answers alone keeps the item's own option keys and columns.
        touched = self.instance.pk is None or any(
            name in self.changed_data for name in ("kind", "text_format", *self.ANSWER_FIELDS)
        )
        if answers is not None and touched:
            for name, value in answers.items():
                setattr(self.instance, name, value)
        return cleaned

    def _choice(self, kind: str, rows: list[dict]) -> dict | None:
        field = "choice_rows"
        errors = []
        if any(not row["text"] for row in rows):
            errors.append(_("Every option needs a text (remove the row of an unused option)."))
        texts = [" ".join(row["text"].casefold().split()) for row in rows if row["text"]]
        if len(texts) < 2:
            errors.append(_("A choice question needs at least two options."))
        if len(texts) > len(OPTION_KEYS):
            errors.append(_("A choice question has at most %(limit)s options.") % {"limit": 26})
        if len(set(texts)) != len(texts):
            errors.append(_("Two options read the same."))
        right = [row for row in rows if row["correct"]]
        if not right:
            errors.append(_("Tick at least one right option."))
        elif kind == SINGLE_CHOICE and len(right) != 1:
            errors.append(
                _(
                    "A single-choice question has exactly one right option; for several "
                    "right options choose multiple choice."
                )
            )
        if errors:
            for error in errors:
                self.add_error(field, error)
            return None
        options, correct, feedback = [], [], {}
        for index, row in enumerate(rows):
            key = OPTION_KEYS[index]
            options.append({"key": key, "text": self._rich(row["text"])})
            if row["correct"]:
                correct.append(key)
            if row["feedback"]:
                feedback[key] = self._rich(row["feedback"])
        return {
            "options": options,
            "correct_keys": correct,
            "answer_key": {},
            "answer_feedback": feedback,
        }

    def _true_false(self, cleaned) -> dict | None:
        correct = cleaned.get("true_false_correct")
        if correct not in ("true", "false"):
            self.add_error("true_false_correct", _("Choose whether the statement is true."))
            return None
        feedback = {
            key: self._rich(cleaned.get(f"true_false_feedback_{key}") or "")
            for key in ("true", "false")
        }
        return {
            "options": [{"key": key, "text": text} for key, text in TRUE_FALSE_OPTIONS],
            "correct_keys": [correct],
            "answer_key": {},
            "answer_feedback": {key: text for key, text in feedback.items() if text},
        }

    def _short_answer(self, cleaned) -> dict | None:
        rows = cleaned.get("accepted_rows") or []
        errors = []
        if any(not row["text"] for row in rows):
            errors.append(_("Every accepted answer needs a text."))
        if not rows:
            errors.append(_("Give at least one accepted answer."))
        if len(rows) > MAX_ACCEPTED:
            errors.append(_("At most %(limit)s accepted answers.") % {"limit": MAX_ACCEPTED})
        if any(len(row["text"]) > MAX_ANSWER_TEXT for row in rows):
            errors.append(
                _("An accepted answer has at most %(limit)s characters.")
                % {"limit": MAX_ANSWER_TEXT}
            )
        if any(PAIR_ARROW in row["text"] for row in rows):
            errors.append(_("An accepted answer may not contain “->”."))
        if errors:
            for error in errors:
                self.add_error("accepted_rows", error)
            return None
        key = {"accepted": [row["text"] for row in rows]}
        if cleaned.get("case_sensitive"):
            key["case_sensitive"] = True
        return {
            "options": [],
            "correct_keys": [],
            "answer_key": key,
            "answer_feedback": {
                str(index): self._rich(row["feedback"])
                for index, row in enumerate(rows)
                if row["feedback"]
            },
        }

    def _numerical(self, rows: list[dict]) -> dict | None:
        answers, feedback, errors = [], {}, []
        for index, row in enumerate(rows, start=1):
            answer, error = _number_row(row)
            if error:
                errors.append(_("Row %(row)s: %(error)s") % {"row": index, "error": error})
                continue
            if row["feedback"]:
                feedback[str(len(answers))] = self._rich(row["feedback"])
            answers.append(answer)
        if not rows:
            errors.append(_("Give at least one right number or range."))
        if errors:
            for error in errors:
                self.add_error("number_rows", error)
            return None
        return {
            "options": [],
            "correct_keys": [],
            "answer_key": {"answers": answers},
            "answer_feedback": feedback,
        }

    def _matching(self, rows: list[dict]) -> dict | None:
        errors = []
        if any(not row["right"] for row in rows):
            errors.append(_("Every pair needs a matching answer on the right."))
        lefts = [" ".join(row["left"].casefold().split()) for row in rows if row["left"]]
        if len(lefts) < 2:
            errors.append(_("A matching question needs at least two pairs."))
        if len(lefts) > MAX_PAIRS:
            errors.append(_("A matching question has at most %(limit)s pairs.") % {"limit": 26})
        if len(set(lefts)) != len(lefts):
            errors.append(_("Two left sides read the same."))
        if any(PAIR_ARROW in row["left"] for row in rows):
            errors.append(_("A left side may not contain “->”."))
        if errors:
            for error in errors:
                self.add_error("pair_rows", error)
            return None
        return {
            "options": [],
            "correct_keys": [],
            "answer_key": {"pairs": [{"left": row["left"], "right": row["right"]} for row in rows]},
            "answer_feedback": {},
        }

    # --- the preview --------------------------------------------------------------------------

    def preview_fields(self) -> dict:
        """The item as far as the form's data describes it, valid or not: what the preview
        shows while the admin types."""
        data = self.data
        kind = data.get("kind") or self.instance.kind or SINGLE_CHOICE
        html = data.get("text_format") == "html"
        prompt = data.get("prompt", "")
        prompt = item_html_clean(prompt) if html else prompt.strip()

        def rows(name):
            return self.fields[name].to_python(
                self.fields[name].widget.value_from_datadict(data, None, name)
            )

        options, choices, matches = [], [], []
        if kind in (SINGLE_CHOICE, MULTIPLE_CHOICE):
            options = [
                {"key": OPTION_KEYS[i], "text": item_html_clean(r["text"]) if html else r["text"]}
                for i, r in enumerate(rows("choice_rows")[: len(OPTION_KEYS)])
            ]
        elif kind == TRUE_FALSE:
            options = [{"key": key, "text": text} for key, text in TRUE_FALSE_OPTIONS]
        elif kind == MATCHING:
            pairs = rows("pair_rows")
            options = [
                {"key": OPTION_KEYS[i], "text": r["left"]}
                for i, r in enumerate(r for r in pairs if r["left"])
            ][: len(OPTION_KEYS)]
            seen: list[str] = []
            for pair in pairs:
                if pair["right"] and pair["right"] not in seen:
                    seen.append(pair["right"])
            choices = [{"key": str(i + 1), "text": text} for i, text in enumerate(seen)]
            matches = [(option, "") for option in options]
        return {
            "id": 0,
            "position": 1,
            "kind": kind if kind in ExamItem.Kind.values else SINGLE_CHOICE,
            "prompt": prompt,
            "text_format": "html" if html else "plain",
            "options": options,
            "choices": choices,
            "selected_keys": [],
            "text": None,
            "number": None,
            "matches": matches,
        }


def _number_row(row: dict) -> tuple[dict | None, str | None]:
    """One row of right numbers as the answer key keeps it, or the reason it is wrong."""
    value, tolerance, low, high = (row[name] for name in ("value", "tolerance", "min", "max"))
    if value and (low or high):
        return None, _("give a value with a tolerance or a range, not both.")
    if value:
        number = _number(value)
        spread = _number(tolerance) if tolerance else Decimal(0)
        if number is None or spread is None:
            return None, _("“%(text)s” is not a number.") % {"text": tolerance or value}
        if spread < 0:
            return None, _("the tolerance may not be negative.")
        return {"value": decimal_text(number), "tolerance": decimal_text(spread)}, None
    if low and high:
        bottom, top = _number(low), _number(high)
        if bottom is None or top is None:
            wrong = low if bottom is None else high
            return None, _("“%(text)s” is not a number.") % {"text": wrong}
        if bottom > top:
            return None, _("the range's start must not be above its end (from ≤ to).")
        return {"min": decimal_text(bottom), "max": decimal_text(top)}, None
    return None, _("give a value, or both ends of a range.")


def _number(text: str) -> Decimal | None:
    text = text.strip().replace("\u2212", "-")
    if len(text) > MAX_NUMBER_TEXT or not _NUMBER_RE.fullmatch(text):
        return None
    try:
        return Decimal(text.replace(",", "."))
    except InvalidOperation:  # pragma: no cover - the pattern admits numbers only
        return None
