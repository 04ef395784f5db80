"""Issue 28's smaller learner-page fixes: one "recalled" figure with its period, the forecast in
percent, status words in their own context, the module page's exam label in the interface
language, the review card without JavaScript, and the "My notes" page."""

from __future__ import annotations

import datetime
import re

import pytest
from django.utils import timezone

pytestmark = pytest.mark.django_db

MODULE = "/modules/self-hosting-27/"


def _review_logs(learner, course, *, passed: int, failed: int) -> None:
    """Reviews of cards in review state within the last 30 days (what true retention counts)."""
    from reviews.api import cards_for_step_ensure
    from reviews.models import ReviewCard, ReviewLog

    now = timezone.now()
    cards_for_step_ensure(learner_id=learner.pk, step_id=course.steps.get(number=1).pk, at=now)
    card = ReviewCard.objects.filter(learner=learner).first()
    for index in range(passed + failed):
        at = now - datetime.timedelta(days=2, minutes=index)
        ReviewLog.objects.create(
            card=card,
            learner=learner,
            source=ReviewLog.Source.REVIEW,
            rating=3 if index < passed else 1,
            reviewed_at=at,
            before_state=2,
            before_due=at,
            before_last_review=at - datetime.timedelta(days=3),
            after_state=2,
            after_stability=5.0,
            after_difficulty=5.0,
            after_due=at + datetime.timedelta(days=5),
        )


def test_the_recalled_tile_is_the_tables_30_day_figure_and_names_the_period(
    learner_client, enrolled, course
):
    _review_logs(enrolled, course, passed=3, failed=1)
    html = learner_client.get("/stats/").content.decode()
    assert "Gewusst in den letzten 30 Tagen" in html
    tile = re.search(r'<dd id="stat-recalled">([^<]*)</dd>', html).group(1)
    assert tile == "75 %"
    row = re.search(r'<th scope="row">Letzte 30 Tage</th>(.*?)</tr>', html, re.S).group(1)
    total = re.findall(r"<td>(\d+ %)", row)[-1]
    assert total == tile


def test_step_status_words_have_their_own_context(learner_client, enrolled, course):
    html = learner_client.get(MODULE, HTTP_ACCEPT_LANGUAGE="de").content.decode()
    assert "begonnen</span>" in html and "Begonnen am" not in html
    step = learner_client.get(MODULE + "steps/1/").content.decode()
    assert "(gelesen)" in step and "Gelesen am" not in step


def test_the_module_page_labels_the_exam_in_the_interface_language(client, course):
    client.post("/language/", {"language": "en", "next": "/"})
    html = client.get(MODULE).content.decode()
    assert "Final exam" in html and "Abschlussprüfung" not in html
    client.post("/language/", {"language": "de", "next": "/"})
    assert "Abschlussprüfung" in client.get(MODULE).content.decode()


def test_without_javascript_the_review_answer_waits_and_the_key_hints_are_script_only(
    learner_client, enrolled, course
):
    from reviews.api import cards_for_step_ensure

    cards_for_step_ensure(
        learner_id=enrolled.pk,
        step_id=course.steps.get(number=1).pk,
        at=timezone.now() - datetime.timedelta(hours=1),
    )
    html = learner_client.get("/review/").content.decode()
    # The answer and the rating form sit inside a closed <details> (no "open" attribute).
    details = re.search(r"<details([^>]*)>\s*<summary[^>]*>Antwort zeigen</summary>", html)
    assert details and "open" not in details.group(1)
    disclosure = html.index("data-review-details")
    assert disclosure < html.index('id="review-back"') < html.index("</details>", disclosure)
    # Every keyboard hint is marked for script-only display.
    assert 'class="muted js-only" id="review-keys"' in html
    buttons = html[disclosure : html.index("</details>", disclosure)]
    assert buttons.count('<kbd class="js-only" aria-hidden="true">') == 4
    assert not re.search(r'<kbd(?! class="js-only")[^>]*>[1-4]</kbd>', buttons)


def test_the_notes_page_lists_my_notes_by_module_and_step_and_searches_them(
    learner_client, enrolled, course, make_learner_with_notes
):
    from progress.services.notes import step_notes_put

    step_notes_put(
        learner_id=enrolled.pk,
        module_slug=course.slug,
        number=2,
        notes={"lernauftrag": "Speicher mit nvidia-smi beobachtet"},
    )
    step_notes_put(
        learner_id=enrolled.pk,
        module_slug=course.slug,
        number=1,
        notes={"praxisaufgabe": "Treiber installiert", "lernauftrag": "CUDA-Version notiert"},
    )
    html = learner_client.get("/my/notes/").content.decode()
    assert 'href="/my/notes/" aria-current="page"' in html and "Meine Notizen" in html
    texts = re.findall(r'<p class="note-entry__text">([^<]*)</p>', html)
    assert texts == [
        "CUDA-Version notiert",
        "Treiber installiert",
        "Speicher mit nvidia-smi beobachtet",
    ]
    assert f'href="{MODULE}steps/1/#note-praxisaufgabe"' in html
    assert f'href="{MODULE}steps/2/#note-lernauftrag"' in html
    # Another learner's notes never show.
    assert "fremde Notiz" not in html

    found = learner_client.get("/my/notes/", {"q": "NVIDIA"}).content.decode()
    assert re.findall(r'<p class="note-entry__text">([^<]*)</p>', found) == [
        "Speicher mit nvidia-smi beobachtet"
    ]
    none = learner_client.get("/my/notes/", {"q": "<b>x</b>"}).content.decode()
    assert 'id="notes-none"' in none and "„&lt;b&gt;x&lt;/b&gt;“" in none


def test_the_notes_page_asks_a_visitor_to_log_in(client):
    assert client.get("/my/notes/")["Location"].startswith("/login/")


@pytest.fixture
def make_learner_with_notes(course):
    from progress.services.enrollment import enrollment_create
    from progress.services.notes import step_notes_put
    from tests.factories import learner_register

    other = learner_register("otto", display_name="Otto")
    enrollment_create(learner_id=other.pk, module_slug=course.slug)
    step_notes_put(
        learner_id=other.pk,
        module_slug=course.slug,
        number=1,
        notes={"lernauftrag": "fremde Notiz"},
    )
    return other


def test_a_prompt_asked_as_a_rated_quick_check_is_not_repeated_for_reflection(client, course):
    """The shipped steps ask "Was ist der Zweck?" as a rated quick check and had it again under
    "Zum Nachdenken": the step page shows it once."""
    from courses.models import StepQuickCheck

    numbers = sorted(
        set(
            StepQuickCheck.objects.filter(
                step__module=course, quick_check__question="Was ist der Zweck?"
            ).values_list("step__number", flat=True)
        )
    )[:3]
    assert numbers
    for number in numbers:
        html = client.get(f"{MODULE}steps/{number}/").content.decode()
        assert (
            html.count("<strong>Was ist der Zweck?</strong>")
            + html.count("<p>Was ist der Zweck?</p>")
            == 1
        ), number
