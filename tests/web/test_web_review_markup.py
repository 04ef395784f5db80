"""The review page's rating buttons, written in Python, are byte for byte what the template's
loop wrote (web/views/review.py::_rating_buttons_markup)."""

from __future__ import annotations

import pytest
from django.template import engines
from django.utils import translation

from web.views.review import _rating_buttons_markup, rating_labels

# The loop the buttons were in web/reviews/session.html before they were written in Python.
_BUTTONS_TEMPLATE = (
    "{% load i18n lernpfad %}{% for button in buttons %}\n"
    '              <button type="submit" name="rating" value="{{ button.rating }}" '
    'data-rating="{{ button.rating }}" aria-keyshortcuts="{{ button.rating }}"\n'
    '                      class="button{% if button.rating != 3 %} button--secondary'
    '{% endif %}"\n'
    "                      aria-label=\"{{ button.label }}, {% translate 'next review in' %} "
    '{{ button.seconds|interval }}">\n'
    '                <span class="interval" aria-hidden="true">{{ button.seconds|interval }}'
    "</span>\n"
    '                <span aria-hidden="true">{{ button.label }}</span>\n'
    '                <kbd aria-hidden="true">{{ button.rating }}</kbd>\n'
    "              </button>\n"
    "            {% endfor %}"
)


@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize(
    "seconds",
    [
        (60, 600, 86_400, 345_600),  # minutes, days
        (30, 3_600 * 5, 86_400 * 40, 86_400 * 400),  # under a minute, hours, months, years
        (59.6, 86_399, 86_400 * 31, 86_400 * 3_650),  # rounding edges
        (None, 0, 1, 7_200),
    ],
)
def test_rating_buttons_are_what_the_template_wrote(language, seconds):
    template = engines["django"].from_string(_BUTTONS_TEMPLATE)
    with translation.override(language):
        labels = rating_labels()
        buttons = [
            {"rating": rating, "label": labels[rating], "seconds": value}
            for rating, value in zip((1, 2, 3, 4), seconds, strict=True)
        ]
        assert _rating_buttons_markup(buttons) == template.render({"buttons": buttons})
        # A label with markup characters is escaped as the template escaped it.
        odd = [{"rating": 3, "label": '<Gut> & "so"', "seconds": 600}]
        assert _rating_buttons_markup(odd) == template.render({"buttons": odd})
    assert _rating_buttons_markup([]) == ""
