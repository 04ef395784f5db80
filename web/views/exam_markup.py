"""The running exam attempt's questions as HTML: the overview list and one fieldset per item.

Written here rather than in the template: the template's loops (about sixty variables, tags and
number formats per item) were most of the attempt page's CPU (bench.profile web_exam; issue 19),
and this builds the very same markup, byte for byte, with every text escaped. The rest of the
page stays in ``web/templates/web/exams/attempt.html``.
"""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from quizzes.data import AttemptItemView


def overview_markup(items: list[AttemptItemView]) -> SafeString:
    """The overview's list entries: one link per question, filled when answered."""
    question = escape(_("Question"))
    answered = escape(_("answered"))
    parts = []
    for item in items:
        done = item.answered
        parts.append(
            f'\n        <li><a href="#item-{item.id}" class="exam-overview__link'
            f'{" exam-overview__link--answered" if done else ""}" '
            f'data-overview-item="{item.id}"><span class="visually-hidden">{question} </span>'
            f'{item.position}<span class="visually-hidden" data-overview-state>'
            f"{f' ({answered})' if done else ''}</span>"
            '<span class="exam-overview__flag" data-overview-flag hidden aria-hidden="true">⚑'
            "</span></a></li>\n      "
        )
    return mark_safe("".join(parts))


def items_markup(items: list[AttemptItemView], *, item_count: int) -> SafeString:
    """The questions' fieldsets with the learner's saved answers."""
    words = {
        "multiple": escape(_("Choose every correct option.")),
        "matching": escape(_("Choose the matching answer for each line.")),
        "mark": escape(_("Mark for later")),
        "answer": escape(_("Your answer")),
        "number": escape(_("Your answer (a number)")),
        "number_help": escape(
            _("Only the number, with a decimal comma or point (7,5 or 7.5), without a unit.")
        ),
        "choose": escape(_("– choose –")),
    }
    return mark_safe("".join(_item(item, item_count=item_count, words=words) for item in items))


def _item(item: AttemptItemView, *, item_count: int, words: dict[str, str]) -> str:
    i = item.id
    kind = item.kind
    multiple_help = (
        f'<span class="field-help">{words["multiple"]}</span>' if kind == "multiple_choice" else ""
    )
    matching_help = (
        f'<span class="field-help">{words["matching"]}</span>' if kind == "matching" else ""
    )
    head = (
        f'\n      <fieldset class="exam-item" data-item="{i}" data-kind="{escape(kind)}" '
        f'id="item-{i}">\n        <legend><span class="muted">{item.position}/{item_count}</span> '
        f'<span lang="de">{escape(item.prompt)}</span>\n          {multiple_help}\n          '
        f"{matching_help}</legend>\n"
        f'        <p class="exam-item__mark checkbox-row"><input type="checkbox" name="marked" '
        f'value="{i}" id="mark-{i}" data-mark-item="{i}"><label for="mark-{i}">'
        f"{words['mark']}</label></p>\n        "
    )
    if kind == "short_answer":
        body = (
            '\n          <div class="field">\n'
            f'            <label for="item-{i}-text">{words["answer"]}</label>\n'
            f'            <input type="text" name="item-{i}" id="item-{i}-text" '
            f'value="{escape(item.text if item.text is not None else "")}" maxlength="500" '
            'autocomplete="off" autocapitalize="off" spellcheck="false" '
            f'aria-describedby="item-{i}-error">\n          </div>\n        '
        )
    elif kind == "numerical":
        body = (
            '\n          <div class="field">\n'
            f'            <label for="item-{i}-number">{words["number"]}</label>\n'
            f'            <input type="text" inputmode="decimal" class="input-number" '
            f'name="item-{i}" id="item-{i}-number" '
            f'value="{escape(item.number if item.number is not None else "")}" maxlength="40" '
            f'autocomplete="off" aria-describedby="item-{i}-help item-{i}-error">\n'
            f'            <span class="field-help" id="item-{i}-help">{words["number_help"]}'
            "</span>\n          </div>\n        "
        )
    elif kind == "matching":
        chosen = {pair.option: pair.choice for pair in item.pairs}
        rows = []
        for option in item.options:
            key = escape(option.key)
            mine = chosen.get(option.key, "")
            choices = "".join(
                f'<option value="{escape(choice.key)}" lang="de"'
                f"{' selected' if choice.key == mine else ''}>{escape(choice.text)}</option>"
                for choice in item.choices
            )
            rows.append(
                '\n            <div class="match-row">\n'
                f'              <label for="item-{i}-{key}" lang="de">{escape(option.text)}'
                "</label>\n"
                f'              <select name="item-{i}-{key}" id="item-{i}-{key}" '
                f'data-option="{key}" aria-describedby="item-{i}-error">\n'
                f'                <option value="">{words["choose"]}</option>\n'
                f"                {choices}\n              </select>\n"
                "            </div>\n          "
            )
        body = "\n          " + "".join(rows) + "\n        "
    else:
        input_type = "checkbox" if kind == "multiple_choice" else "radio"
        selected = set(item.selected_keys)
        rows = []
        for option in item.options:
            key = escape(option.key)
            rows.append(
                '\n            <div class="option">\n'
                f'              <input type="{input_type}" name="item-{i}" id="item-{i}-{key}" '
                f'value="{key}"{" checked" if option.key in selected else ""}>\n'
                f'              <label for="item-{i}-{key}" lang="de">{escape(option.text)}'
                "</label>\n            </div>\n          "
            )
        body = "\n          " + "".join(rows) + "\n        "
    return (
        head
        + body
        + f'\n        <p class="errorlist item-error" id="item-{i}-error" hidden></p>\n'
        + "      </fieldset>\n    "
    )
