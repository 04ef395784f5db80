"""Learner pages through Django's test client: content, auth, progress, i18n, CSRF."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from tests.accounts.conftest import confirmation_path_in, reset_path_in
from tests.web.conftest import PASSWORD

pytestmark = pytest.mark.django_db

MODULE = "/modules/self-hosting-27/"


def test_home_lists_the_course_for_visitors(client, course):
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'href="#main"' in html  # skip link
    assert "Self-Hosting 27: GPU, CUDA und Inferenzoptimierung" in html
    assert 'lang="de"' in html


def test_module_page_shows_the_outline(client, course):
    html = client.get(MODULE).content.decode()
    assert html.count('class="outline__level badge"') == 32
    assert "GPU compute" in html and "S4" in html
    # The overview and the level's explanation (issue 18).
    assert 'class="card module-overview"' in html and 'id="levels"' in html
    # No space before the comma: one sentence with its links, not pieces joined by spaces.
    assert "</a>, um deinen Fortschritt" in html and "</a> ," not in html


def test_module_page_reading_time_is_the_completion_rules_estimate(client, course):
    """The overview's reading time is the steps' section text at the completion rule's 180
    words a minute of 7 characters: the same estimate a step's minimum time is a share of."""
    from django.db.models import Sum
    from django.db.models.functions import Length

    from courses.models import Section

    characters = Section.objects.filter(step__module__slug="self-hosting-27").aggregate(
        n=Sum(Length("body"))
    )["n"]
    minutes = 5 * round(-(-characters // (7 * 180)) / 5)  # rounded to 5 min from an hour on
    hours, rest = divmod(minutes, 60)
    html = client.get(MODULE).content.decode()
    expected = f"etwa {hours} Std. {rest} Min." if rest else f"etwa {hours} Std."
    assert expected in html, re.findall(r"etwa[^<]*", html)
    assert "180 Wörter pro Minute" in html


def test_step_reader_shows_sections_in_document_order(client, course):
    response = client.get(MODULE + "steps/12/")
    assert response.status_code == 200
    html = response.content.decode()
    headings = re.findall(r'<h2 id="heading-\d+">([^<]+)</h2>', html)
    assert headings == [
        "1. Verstehen",
        "2. Anwenden",
        "Übung",
        "3. Technisch einordnen",
        "4. Vertiefen",
        "5. Prüfen",
        "Zusammenfassung",
        "Optionale Praxisaufgabe",
        "Lernauftrag für diesen Schritt",
    ]
    # The exercise command sits in a code block with a copy button for it.
    assert re.search(r'<pre><code id="(cmd-[\d-]+)">nvidia-smi</code></pre>', html)
    assert 'data-copy-target="cmd-' in html
    # The term card of step 12, quick checks with a reveal, the pager.
    assert "CUDA out of memory — GPU, CUDA und Inferenzoptimierung" in html
    # The quick checks' reveals (and the header's menu): the rated "Was ist der Zweck?" is not
    # asked again as a reflection prompt (issue 28).
    assert html.count("<details") == 5 + 1
    # The term card's exercise starts with its subtitle, a heading (issue 18).
    assert '<h4 class="term-card__subtitle">Sicher ausprobieren</h4>' in html
    # The step's outline links each section.
    assert html.count('<li data-toc-kind="') == len(headings)
    assert 'rel="prev" href="/modules/self-hosting-27/steps/11/"' in html
    assert 'rel="next" href="/modules/self-hosting-27/steps/13/"' in html


def test_unknown_module_and_step_are_404(client, course):
    assert client.get("/modules/nope/").status_code == 404
    assert client.get(MODULE + "steps/99/").status_code == 404


def test_signup_creates_the_account_and_mails_the_link_then_confirming_lets_it_in(
    client, course, committed
):
    with committed():
        response = client.post(
            "/signup/",
            {
                "username": "neu",
                "email": "neu@example.org",
                "password1": PASSWORD,
                "password2": PASSWORD,
            },
        )
    assert response.status_code == 302 and response["Location"] == "/signup/sent/"
    from accounts.models import User

    user = User.objects.get(username="neu")
    assert user.language == "de" and user.check_password(PASSWORD)
    assert user.email_confirmed_at is None and "_auth_user_id" not in client.session
    assert "E-Mail" in client.get("/signup/sent/").content.decode()
    (message,) = mail.outbox
    link = confirmation_path_in(message)
    assert "Bestätige" in client.get(link).content.decode()
    assert client.post(link)["Location"] == "/login/"
    assert client.post("/login/", {"username": "neu", "password": PASSWORD}).status_code == 302
    dashboard = client.get("/").content.decode()
    assert "Hallo, neu" in dashboard


def test_signup_shows_the_services_errors_next_to_the_fields(client, learner):
    response = client.post(
        "/signup/",
        {"username": "lena", "email": "x@example.org", "password1": "short", "password2": "short"},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="id_username_errors"' in html and 'id="id_password1_errors"' in html
    from accounts.models import User

    assert User.objects.count() == 1


def test_login_and_logout(client, learner):
    response = client.post("/login/", {"username": "lena", "password": PASSWORD})
    assert response.status_code == 302
    assert client.get("/settings/").status_code == 200
    assert client.post("/logout/").status_code == 302
    assert client.get("/settings/")["Location"].startswith("/login/")


def test_login_with_the_email_address_and_wrong_passwords(client, learner):
    wrong = client.post("/login/", {"username": "lena@example.org", "password": "nope"})
    assert wrong.status_code == 200 and "_auth_user_id" not in client.session
    response = client.post("/login/", {"username": "LENA@example.org", "password": PASSWORD})
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(learner.pk)


def test_password_reset_by_email(client, learner, committed):
    with committed():
        response = client.post("/password-reset/", {"email": "lena@example.org"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    link = reset_path_in(mail.outbox[0])
    form = client.get(link, follow=True)
    assert form.status_code == 200
    new = "another-long-passphrase-42"
    done = client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done.status_code == 302
    learner.refresh_from_db()
    assert learner.check_password(new)


def test_language_switch_is_stored_on_the_learner(learner_client, learner):
    response = learner_client.post("/language/", {"language": "en", "next": "/settings/"})
    assert response.status_code == 302 and response["Location"] == "/settings/"
    learner.refresh_from_db()
    assert learner.language == "en"
    html = learner_client.get("/settings/").content.decode()
    assert '<html lang="en">' in html and "Settings" in html


def test_language_switch_for_visitors_uses_a_cookie(client, course):
    client.post("/language/", {"language": "en"})
    html = client.get(MODULE).content.decode()
    assert '<html lang="en">' in html and "Outline" in html
    client.post("/language/", {"language": "de"})
    assert "Gliederung" in client.get(MODULE).content.decode()


def test_language_switch_rejects_unknown_languages(client):
    assert client.post("/language/", {"language": "xx"}).status_code == 400


def test_login_applies_the_learners_language(client, learner):
    learner.language = "en"
    learner.save()
    client.post("/login/", {"username": "lena", "password": PASSWORD})
    assert '<html lang="en">' in client.get("/").content.decode()


def test_enroll_read_rate_note_complete(learner_client, course, learner):
    html = learner_client.get(MODULE).content.decode()
    assert 'action="/modules/self-hosting-27/enroll/"' in html
    assert learner_client.post(MODULE + "enroll/").status_code == 302
    step = learner_client.get(MODULE + "steps/1/").content.decode()
    assert 'name="rating" value="knew"' in step and 'name="lernauftrag" form="step-notes"' in step

    from quizzes.selectors import quick_check_ratings_for_step

    qc_id = quick_check_ratings_for_step(
        learner_id=learner.pk, module_slug=course.slug, step_number=1
    )[0].id
    response = learner_client.post(MODULE + f"steps/1/quick-checks/{qc_id}/", {"rating": "partly"})
    assert response.status_code == 302
    assert (
        quick_check_ratings_for_step(learner_id=learner.pk, module_slug=course.slug, step_number=1)[
            0
        ].rating
        == "partly"
    )

    learner_client.post(MODULE + "steps/1/notes/", {"lernauftrag": "Meine Definition."})
    step = learner_client.get(MODULE + "steps/1/").content.decode()
    assert "Meine Definition.</textarea>" in step
    assert 'aria-pressed="true"' in step

    from tests.factories import step_evidence_leave

    step_evidence_leave(learner, course.slug, 1)
    response = learner_client.post(MODULE + "steps/1/progress/", {"event": "completed"})
    assert response.status_code == 302 and response["Location"] == MODULE + "steps/1/"
    from progress.selectors import module_progress_get

    progress = module_progress_get(learner_id=learner.pk, module_slug=course.slug)
    assert progress.completed_steps == 1
    module_html = learner_client.get(MODULE).content.decode()
    assert "1 von 32 Schritten abgeschlossen" in module_html


def test_completing_at_once_is_refused_with_links_to_what_is_missing(
    learner_client, enrolled, course
):
    from progress.selectors import module_progress_get
    from progress.services.step_events import step_event_record

    step_event_record(learner_id=enrolled.pk, module_slug=course.slug, number=2, kind="opened")
    step_event_record(
        learner_id=enrolled.pk,
        module_slug=course.slug,
        number=2,
        kind="section_viewed",
        section="verstehen",
    )
    response = learner_client.post(
        MODULE + "steps/2/progress/", {"event": "completed"}, follow=True
    )
    assert response.redirect_chain[-1][0] == MODULE + "steps/2/?missing=1#complete"
    progress = module_progress_get(learner_id=enrolled.pk, module_slug=course.slug)
    assert progress.completed_steps == 0
    html = response.content.decode()
    # The service's message, in the page's language (German by default) ...
    assert "Der Schritt ist noch nicht abgeschlossen: 8 Abschnitte noch nicht gesehen" in html
    # ... and the list with links: the sections not seen (not the one seen), the quick check.
    missing = html[html.index("complete-box__missing") :]
    missing = missing[: missing.index("</div>")]
    step = course.steps.get(number=2)
    anchors = re.findall(r'href="#(section-[^"]+)"', missing)
    assert len(anchors) == 8 and all(f'id="{anchor}"' in html for anchor in anchors)
    assert "verstehen" not in " ".join(anchors)
    quick_check = step.quick_check_links.exclude(quick_check__role__in=["generic", "instruction"])
    assert f'href="#quick-check-{quick_check.first().quick_check_id}"' in missing
    assert "Minuten für den Schritt" in missing


def test_without_javascript_each_section_records_its_view_and_leads_on(
    learner_client, enrolled, course
):
    from progress.models import StepProgress

    html = learner_client.get(MODULE + "steps/2/").content.decode()
    forms = re.findall(
        r'<form class="section-read" method="post" action="([^"]+)">.*?'
        r'name="section" value="([a-z_]+)".*?name="next_anchor" value="([^"]+)"',
        html,
        re.S,
    )
    kinds = list(course.steps.get(number=2).sections.values_list("kind", flat=True))
    assert [kind for _, kind, _ in forms] == kinds
    assert forms[-1][2] == "complete" and all(f'id="{a}"' in html for _, _, a in forms[:-1])
    action, kind, next_anchor = forms[0]
    response = learner_client.post(action, {"section": kind, "next_anchor": next_anchor})
    assert response["Location"] == MODULE + f"steps/2/#{next_anchor}"
    row = StepProgress.objects.get(learner=enrolled, step__module=course, step__number=2)
    assert row.sections_viewed == [kind] and row.status == "in_progress"
    # An unknown section is a message on the step, nothing recorded.
    response = learner_client.post(action, {"section": "kapitel-9", "next_anchor": "x"})
    assert response.status_code == 302
    row.refresh_from_db()
    assert row.sections_viewed == [kind]


def test_the_pages_scripts_post_to_the_apis_own_urls(learner_client, studied, course):
    """The step reader records sections and the exam page saves answers through the API."""
    step = learner_client.get(MODULE + "steps/4/").content.decode()
    assert 'data-progress-url="/api/v1/modules/self-hosting-27/steps/4/progress/"' in step
    attempt_url = learner_client.post(MODULE + "exam/start/")["Location"]
    attempt_id = re.search(r"(\d+)", attempt_url).group(1)
    attempt = learner_client.get(attempt_url).content.decode()
    assert f'data-save-url="/api/v1/exam-attempts/{attempt_id}/answers/"' in attempt


def test_personal_actions_need_a_login(client, course):
    response = client.post(MODULE + "enroll/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert client.get("/review/")["Location"].startswith("/login/")


def test_forms_carry_a_csrf_token_and_posts_without_one_are_refused(course, learner):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(learner)
    page = strict.get(MODULE).content.decode()
    assert 'name="csrfmiddlewaretoken"' in page
    assert strict.post(MODULE + "enroll/").status_code == 403
    assert strict.post("/language/", {"language": "en"}).status_code == 403
    assert (
        Client(enforce_csrf_checks=True)
        .post("/login/", {"username": "lena", "password": PASSWORD})
        .status_code
        == 403
    )
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    assert strict.post(MODULE + "enroll/", {"csrfmiddlewaretoken": token}).status_code == 302


def test_every_form_on_the_pages_has_a_csrf_token(learner_client, enrolled):
    for url in ("/", MODULE, MODULE + "steps/1/", "/review/", "/settings/", "/stats/"):
        html = learner_client.get(url).content.decode()
        forms = re.findall(r"<form[^>]*method=\"post\".*?</form>", html, flags=re.S)
        assert forms, url
        for form in forms:
            assert "csrfmiddlewaretoken" in form, (url, form[:120])


def test_settings_page_saves_through_the_service(learner_client, learner):
    response = learner_client.post(
        "/settings/",
        {
            "display_name": "Lena L.",
            "email": "lena@example.org",
            "language": "en",
            "time_zone": "Asia/Tokyo",
            "reminder_email": "",
            "reminder_time": "07:30",
            "quiet_hours_start": "22:00",
            "quiet_hours_end": "07:00",
            "desired_retention": "0.85",
            "new_cards_per_day": "15",
            "reviews_per_day": "150",
        },
    )
    assert response.status_code == 302
    learner.refresh_from_db()
    assert (learner.language, learner.time_zone, learner.reminder_email) == (
        "en",
        "Asia/Tokyo",
        False,
    )
    assert str(learner.reminder_time) == "07:30:00" and learner.desired_retention == 0.85
    assert (learner.new_cards_per_day, learner.reviews_per_day) == (15, 150)


def test_settings_page_shows_service_errors(learner_client, learner):
    response = learner_client.post(
        "/settings/",
        {
            "email": "lena@example.org",
            "language": "de",
            "time_zone": "Mars/Olympus",
            "reminder_time": "18:00",
            "quiet_hours_start": "22:00",
            "desired_retention": "0.5",
            "new_cards_per_day": "20",
            "reviews_per_day": "200",
        },
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="id_time_zone_errors"' in html and 'id="id_desired_retention_errors"' in html
    learner.refresh_from_db()
    assert learner.time_zone == "Europe/Berlin"
