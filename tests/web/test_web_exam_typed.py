"""The exam pages with short-answer, numerical and matching items: the inputs, saving them
without JavaScript, a refused number, the confirmation and the result page."""

from __future__ import annotations

import re

import pytest

from tests.factories import exam_bank_approve, exam_typed_answer, exam_typed_items_create
from tests.web.test_web_queries import count_queries

pytestmark = pytest.mark.django_db

MODULE = "/modules/self-hosting-27/"


@pytest.fixture
def typed_exam(course):
    from quizzes.services.items import exam_policy_get

    policy = exam_policy_get(module_id=course.pk)
    policy.items_per_attempt = 3
    policy.required_step_share = 0  # no completion gate: these tests are about the items
    policy.save()
    exam_typed_items_create(course)
    exam_bank_approve(course)  # the typed items approved: a certifying exam
    return policy


def start(client) -> tuple[int, str]:
    response = client.post(MODULE + "exam/start/")
    assert response.status_code == 302
    url = response["Location"]
    return int(re.search(r"(\d+)", url).group(1)), url


def rows(attempt_id):
    from quizzes.models import ExamAttemptItem

    return {row.kind: row for row in ExamAttemptItem.objects.filter(attempt_id=attempt_id)}


def form_answers(attempt_id, *, right: bool) -> dict:
    """The attempt page's form fields, filled right or wrong."""
    data = {}
    for kind, row in rows(attempt_id).items():
        answer = exam_typed_answer(row, right=right)
        if kind == "matching":
            for pair in answer["pairs"]:
                data[f"item-{row.pk}-{pair['option']}"] = pair["choice"]
        else:
            data[f"item-{row.pk}"] = answer.get("text") or answer.get("number")
    return data


def test_the_attempt_page_has_an_input_for_each_typed_kind(
    learner_client, enrolled, course, typed_exam
):
    attempt_id, url = start(learner_client)
    html = learner_client.get(url).content.decode()
    items = rows(attempt_id)
    short, number, matching = items["short_answer"], items["numerical"], items["matching"]
    assert re.search(rf'<input type="text" name="item-{short.pk}" id="item-{short.pk}-text"', html)
    number_input = re.search(
        rf'<input type="text" inputmode="decimal" [^>]*name="item-{number.pk}"[^>]*>', html
    ).group(0)
    # No attribute gives the number away (min, max, step, pattern, placeholder, data-…).
    attributes = set(re.findall(r"\s([a-z-]+)=", number_input))
    assert attributes == {
        "type",
        "inputmode",
        "class",
        "name",
        "id",
        "value",
        "maxlength",
        "autocomplete",
        "aria-describedby",
    }
    assert f'<label for="item-{number.pk}-number">' in html
    for option in matching.options:
        select = re.search(
            rf'<select name="item-{matching.pk}-{option["key"]}"[^>]*>(.*?)</select>', html, re.S
        )
        assert select, option
        assert len(re.findall(r"<option ", select.group(1))) == 1 + len(matching.choices)
    # Nothing of the answer keys is on the page.
    for secret in ("nvcc", "NVIDIA CUDA Compiler", "tolerance", "answer_key", "correct"):
        assert secret not in html, secret


def test_typed_answers_through_the_form_without_javascript(
    learner_client, enrolled, course, typed_exam
):
    attempt_id, url = start(learner_client)
    response = learner_client.post(url, form_answers(attempt_id, right=True))
    assert response["Location"] == f"/exam/attempts/{attempt_id}/submit/"
    saved = rows(attempt_id)
    assert saved["short_answer"].answer_text == "NVCC"
    assert saved["numerical"].answer_text == "14,5"  # as typed
    assert len(saved["matching"].answer_pairs) == len(saved["matching"].options)
    confirm = learner_client.get(response["Location"]).content.decode()
    assert "Noch nicht beantwortet" not in confirm
    # The page shows the saved answers again.
    page = learner_client.get(url).content.decode()
    assert 'value="NVCC"' in page and 'value="14,5"' in page
    fieldset = page.split(f'id="item-{saved["matching"].pk}"')[1].split("</fieldset>")[0]
    assert fieldset.count(" selected>") == len(saved["matching"].options)
    learner_client.post(f"/exam/attempts/{attempt_id}/submit/")
    result = learner_client.get(f"/exam/attempts/{attempt_id}/result/").content.decode()
    assert "3 von 3 richtig" in result


def test_a_partly_matched_item_is_listed_as_unanswered(
    learner_client, enrolled, course, typed_exam
):
    attempt_id, url = start(learner_client)
    data = form_answers(attempt_id, right=True)
    matching = rows(attempt_id)["matching"]
    data.pop(f"item-{matching.pk}-{matching.options[0]['key']}")
    learner_client.post(url, data)
    confirm = learner_client.get(f"/exam/attempts/{attempt_id}/submit/").content.decode()
    assert "Noch nicht beantwortet" in confirm
    assert f"#item-{matching.pk}" in confirm


def test_a_number_that_is_no_number_is_refused_with_the_question_named(
    learner_client, enrolled, course, typed_exam
):
    attempt_id, url = start(learner_client)
    data = form_answers(attempt_id, right=True)
    number = rows(attempt_id)["numerical"]
    data[f"item-{number.pk}"] = "14 GB"
    response = learner_client.post(url, data, follow=True)
    html = response.content.decode()
    assert response.redirect_chain[-1][0] == url
    assert f"Frage {number.position}: „14 GB“ ist keine Zahl" in html
    assert all(row.answer_text is None for row in rows(attempt_id).values())


def test_the_result_page_shows_typed_answers_as_the_policy_allows(
    learner_client, enrolled, course, typed_exam
):
    typed_exam.review_content, typed_exam.review_timing = "correct_answers", "immediately"
    typed_exam.save()
    attempt_id, url = start(learner_client)
    data = form_answers(attempt_id, right=False)
    learner_client.post(url, data)
    learner_client.post(f"/exam/attempts/{attempt_id}/submit/")
    html = learner_client.get(f"/exam/attempts/{attempt_id}/result/").content.decode()
    assert "ganz sicher falsch" in html  # my text
    assert re.search(r'nvcc <span class="badge badge--done">richtige Antwort</span>', html)
    assert re.search(r'14 ± 0.5 <span class="badge badge--done">richtige Antwort</span>', html)
    assert html.count("→") == len(rows(attempt_id)["matching"].options)


def test_the_result_page_hides_accepted_answers_until_allowed(
    learner_client, enrolled, course, typed_exam
):
    typed_exam.review_content, typed_exam.review_timing = "correctness", "immediately"
    typed_exam.save()
    attempt_id, url = start(learner_client)
    learner_client.post(url, form_answers(attempt_id, right=False))
    learner_client.post(f"/exam/attempts/{attempt_id}/submit/")
    html = learner_client.get(f"/exam/attempts/{attempt_id}/result/").content.decode()
    assert "ganz sicher falsch" in html and "✗ falsch" in html
    assert "nvcc" not in html and "richtige Antwort" not in html


def test_attempt_page_queries_do_not_grow_with_typed_items(client, enrolled, course):
    from quizzes.models import ExamPolicy
    from quizzes.services.items import exam_policy_get

    client.force_login(enrolled)
    policy = exam_policy_get(module_id=course.pk)
    exam_typed_items_create(course, count=10)
    exam_bank_approve(course)
    counts = []
    for items in (3, 30):
        ExamPolicy.objects.filter(pk=policy.pk).update(
            items_per_attempt=items, max_attempts=5, required_step_share=0
        )
        attempt_url = client.post(MODULE + "exam/start/")["Location"]
        counts.append(count_queries(client, attempt_url))
        client.post(attempt_url + "submit/")
        counts.append(count_queries(client, attempt_url + "result/"))
    assert counts[0] == counts[2] and counts[1] == counts[3]
