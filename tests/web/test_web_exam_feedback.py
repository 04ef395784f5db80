"""What the learner sees of an item's text and feedback: a multi-line prompt keeps its line
breaks, an HTML item shows its (sanitised) formatting, and the feedback on the chosen answer
appears on the result page only where the policy reveals the answers, never during the
attempt."""

from __future__ import annotations

import pytest

from tests.web.test_web_exam import start

pytestmark = pytest.mark.django_db


@pytest.fixture
def feedback_bank(studied, course):
    from quizzes.models import ExamItem, ExamPolicy

    for item in ExamItem.objects.filter(module=course):
        item.prompt = item.prompt + "\nZweite Zeile der Frage."
        item.answer_feedback = {
            o["key"]: f"Rückmeldung {o['key']} zu Nr. {item.pk}." for o in item.options
        }
        item.save()
    # One HTML item: its formatting shown, a script that slipped into the row removed.
    html = ExamItem.objects.filter(module=course, kind="single_choice").first()
    html.text_format = "html"
    html.prompt = "<p>Was ist <b>fett</b>?</p><script>alert(1)</script>"
    html.save()
    ExamPolicy.objects.filter(module=course).update(
        review_content="correct_answers", review_timing="immediately"
    )
    return html


def test_prompts_keep_line_breaks_and_feedback_waits_for_the_result(
    learner_client, feedback_bank, course
):
    from quizzes.models import ExamAttemptItem

    attempt_id, url = start(learner_client)
    page = learner_client.get(url).content.decode()
    items = list(ExamAttemptItem.objects.filter(attempt_id=attempt_id))
    plain = next(i for i in items if i.text_format == "plain")
    first_line = plain.prompt.split("\n")[0]
    assert "<br>Zweite Zeile der Frage." in page
    assert first_line.replace("'", "&#x27;").replace('"', "&quot;") in page
    assert "Rückmeldung" not in page  # no feedback while answering
    html_items = [i for i in items if i.text_format == "html"]
    if html_items:
        assert "<p>Was ist <b>fett</b>?</p>" in page and "<script>alert(1)</script>" not in page

    # Answer every item with its first option, submit, read the result.
    answers = {f"item-{i.pk}": [i.options[0]["key"]] for i in items if i.options}
    learner_client.post(url, answers)
    learner_client.post(f"/exam/attempts/{attempt_id}/submit/")
    result = learner_client.get(f"/exam/attempts/{attempt_id}/result/").content.decode()
    for item in items:
        item.refresh_from_db()
        chosen = item.options[0]["key"]
        assert item.answer_feedback[chosen] in result
        others = [k for k in item.answer_feedback if k != chosen]
        assert all(item.answer_feedback[k] not in result for k in others)
    assert "Rückmeldung" in result and "<br>Zweite Zeile der Frage." in result


def test_no_feedback_where_the_policy_hides_the_answers(learner_client, feedback_bank, course):
    from quizzes.models import ExamAttemptItem, ExamPolicy

    ExamPolicy.objects.filter(module=course).update(review_content="correctness")
    attempt_id, url = start(learner_client)
    items = list(ExamAttemptItem.objects.filter(attempt_id=attempt_id))
    learner_client.post(url, {f"item-{i.pk}": [i.options[0]["key"]] for i in items if i.options})
    learner_client.post(f"/exam/attempts/{attempt_id}/submit/")
    result = learner_client.get(f"/exam/attempts/{attempt_id}/result/").content.decode()
    assert "Rückmeldung" not in result
