"""The reading pages' cached fragments ({% cache %} by the module's content version): a page built
from the cache is the page rendered afresh, for every learner, language and content version."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache

from tests.web.test_web_queries import MODULE

pytestmark = pytest.mark.django_db

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')


def _page(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return CSRF.sub('name="csrfmiddlewaretoken" value=""', response.content.decode())


def _fresh_page(client, url: str) -> str:
    """The page with no fragment cached."""
    cache.clear()
    return _page(client, url)


@pytest.fixture
def two_learners(client, enrolled, course):
    """The enrolled learner with step 12 partly read and rated and a note written and a section
    of the last step read, and a second, enrolled learner who has done nothing (their pages
    share the fragments)."""
    from progress.services.enrollment import enrollment_create
    from progress.services.notes import step_notes_put
    from progress.services.step_events import step_event_record
    from quizzes.selectors import quick_check_ratings_for_step
    from quizzes.services.quick_checks import quick_check_rate
    from tests.factories import learner_register

    step = course.steps.get(number=12)
    for kind in step.sections.values_list("kind", flat=True)[:4]:
        step_event_record(
            learner_id=enrolled.pk,
            module_slug=course.slug,
            number=12,
            kind="section_viewed",
            section=kind,
        )
    last = course.steps.get(number=32).sections.values_list("kind", flat=True).first()
    step_event_record(
        learner_id=enrolled.pk,
        module_slug=course.slug,
        number=32,
        kind="section_viewed",
        section=last,
    )
    step_notes_put(
        learner_id=enrolled.pk,
        module_slug=course.slug,
        number=12,
        notes={"praxisaufgabe": "Meine <Notiz>", "lernauftrag": ""},
    )
    rated = next(
        row
        for row in quick_check_ratings_for_step(
            learner_id=enrolled.pk, module_slug=course.slug, step_number=12
        )
        if row.takes_rating
    )
    quick_check_rate(
        learner_id=enrolled.pk,
        module_slug=course.slug,
        step_number=12,
        quick_check_id=rated.id,
        rating="partly",
    )
    other = learner_register("otto", display_name="Otto")
    enrollment_create(learner_id=other.pk, module_slug=course.slug)
    return enrolled, other


def _sign_in(client, learner) -> None:
    client.logout()
    client.force_login(learner)


@pytest.mark.parametrize("url", [MODULE + "steps/12/", MODULE + "steps/32/", MODULE])
def test_cached_fragments_give_each_learner_their_own_page(client, two_learners, url):
    first, second = two_learners
    _sign_in(client, first)
    first_fresh = _fresh_page(client, url)
    _sign_in(client, second)
    second_fresh = _fresh_page(client, url)
    # The learners' states differ on the page…
    assert first_fresh != second_fresh
    # …and each learner's page, built from fragments the other one's request cached, is what it
    # was rendered afresh.
    assert _page(client, url) == second_fresh
    _sign_in(client, first)
    assert _page(client, url) == first_fresh
    _sign_in(client, second)
    assert _page(client, url) == second_fresh


def test_the_learners_state_is_on_the_cached_step_page(client, two_learners):
    first, _second = two_learners
    _sign_in(client, first)
    _page(client, MODULE + "steps/12/")  # fills the fragments
    html = client.get(MODULE + "steps/12/").content.decode()
    assert "Meine &lt;Notiz&gt;</textarea>" in html
    assert html.count('class="step-toc__item--read"') == 4
    assert html.count(' aria-pressed="true"') == 1
    # Every form keeps a CSRF token of this request (masked anew for each), none from the cache.
    assert 'action="/modules/self-hosting-27/steps/12/quick-checks/' in html
    tokens = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert len(tokens) == len(re.findall(r'<form [^>]*method="post"', html)) > 4
    again = client.get(MODULE + "steps/12/").content.decode()
    assert not set(tokens) & set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', again))


def test_cached_fragments_follow_the_language(client, two_learners):
    first, _second = two_learners
    _sign_in(client, first)
    german = _page(client, MODULE + "steps/12/")
    assert "Auf dieser Seite" in german
    client.post("/language/", {"language": "en", "next": "/"})
    english = _page(client, MODULE + "steps/12/")
    assert "On this page" in english and "Auf dieser Seite" not in english
    assert english == _fresh_page(client, MODULE + "steps/12/")


def test_an_edited_step_is_shown_at_once(client, two_learners, course):
    from courses.models import Section
    from courses.services.importing import step_refresh_content_hash

    first, _second = two_learners
    _sign_in(client, first)
    before = _page(client, MODULE + "steps/12/")
    step = course.steps.get(number=12)
    section = step.sections.get(kind="verstehen")
    Section.objects.filter(pk=section.pk).update(body="Ein ganz neuer erster Absatz.")
    Section.objects.filter(step=step, kind="vertiefen").update(heading="Noch tiefer")
    step_refresh_content_hash(step=step)  # as the admin's save does
    after = _page(client, MODULE + "steps/12/")
    assert after != before
    assert "<p>Ein ganz neuer erster Absatz.</p>" in after
    assert ">Noch tiefer</a>" in after and ">Noch tiefer</h2>" in after
    assert after == _fresh_page(client, MODULE + "steps/12/")


def test_a_visitor_and_a_learner_not_enrolled_share_nothing_of_the_learners(client, course):
    from tests.factories import learner_register

    visitor = _fresh_page(client, MODULE + "steps/12/")
    outsider = learner_register("nora", display_name="Nora")
    client.force_login(outsider)
    html = _page(client, MODULE + "steps/12/")
    assert "data-note" not in html and "data-read-mark" not in html
    client.logout()
    assert _page(client, MODULE + "steps/12/") == visitor


@pytest.fixture
def learners_at_the_exam_date(two_learners, course):
    """The first learner with step 12 completed and an exam date (and its readiness), the
    second with another exam date and step 1 completed, a third enrolled with neither."""
    import datetime

    from django.utils import timezone

    from progress.services.enrollment import enrollment_create
    from progress.services.step_events import step_event_record
    from reviews.services.exam_dates import exam_date_set
    from tests.factories import learner_register, step_evidence_leave

    first, second = two_learners
    today = timezone.localdate()
    for learner, number, days in ((first, 12, 20), (second, 1, 9)):
        step_evidence_leave(learner, course.slug, number)
        step_event_record(
            learner_id=learner.pk, module_slug=course.slug, number=number, kind="completed"
        )
        exam_date_set(
            learner=learner,
            module_slug=course.slug,
            exam_on=today + datetime.timedelta(days=days),
            at=timezone.now(),
        )
    third = learner_register("ida", display_name="Ida")
    enrollment_create(learner_id=third.pk, module_slug=course.slug)
    return first, second, third


@pytest.mark.parametrize("url", [MODULE, MODULE + "steps/12/", MODULE + "steps/1/"])
def test_the_progress_exam_date_and_step_forms_are_each_learners_own(
    client, learners_at_the_exam_date, url
):
    """The module page's progress and exam-date card and the step page's status, forms and
    pager are each learner's own, beside the cached content."""
    fresh = {}
    for learner in learners_at_the_exam_date:
        _sign_in(client, learner)
        fresh[learner.pk] = _fresh_page(client, url)
    assert len(set(fresh.values())) >= 2
    for _round in range(2):
        for learner in (*learners_at_the_exam_date, learners_at_the_exam_date[0]):
            _sign_in(client, learner)
            assert _page(client, url) == fresh[learner.pk]
    client.logout()
    visitor = _fresh_page(client, url)
    assert _page(client, url) == visitor


def test_the_module_page_shows_the_learners_exam_date_and_progress(
    client, learners_at_the_exam_date
):
    first, second, _third = learners_at_the_exam_date
    _sign_in(client, first)
    _page(client, MODULE)  # fills the fragments
    _sign_in(client, second)
    html = client.get(MODULE).content.decode()
    assert 'data-testid="exam-readiness"' in html
    assert "1 von 32 Schritten abgeschlossen" in html or "1 of 32 steps completed" in html
    tokens = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert len(tokens) == len(re.findall(r'<form [^>]*method="post"', html)) >= 3
