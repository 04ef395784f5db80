"""The Django admin for course content works for a course admin."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url",
    [
        "/admin/courses/module/",
        "/admin/courses/step/",
        "/admin/courses/step/?q=CUDA",
        "/admin/courses/step/?level__exact=S4&status__exact=active",
        "/admin/courses/termcard/",
        "/admin/courses/quickcheck/",
    ],
)
def test_admin_lists_load(course, admin_client, url):
    response = admin_client.get(url)
    assert response.status_code == 200


def test_step_search_covers_term_and_definition(course, admin_client):
    by_definition = admin_client.get("/admin/courses/step/?q=Mantissenbits")
    assert by_definition.status_code == 200
    assert "BF16" in by_definition.content.decode()
    assert "FP16</a>" not in by_definition.content.decode()


def test_step_change_page_shows_inlines_in_order(course, admin_client):
    step = course.steps.get(number=12)
    page = admin_client.get(f"/admin/courses/step/{step.pk}/change/").content.decode()
    assert page.index("1. Verstehen") < page.index("5. Prüfen") < page.index("Lernauftrag")
    assert "CUDA out of memory — GPU, CUDA und Inferenzoptimierung" in page
    assert step.content_hash in page  # read-only
    module_page = admin_client.get(f"/admin/courses/module/{course.pk}/change/").content.decode()
    assert "GPU compute" in module_page and "GPU utilization" in module_page


def test_admin_edit_through_the_form_changes_the_etag(course, admin_client, client):
    step = course.steps.get(number=1)
    url = f"/admin/courses/step/{step.pk}/change/"
    etag = client.get("/api/v1/modules/self-hosting-27/steps/1/")["ETag"]
    data = {
        "number": step.number,
        "total": step.total,
        "term": step.term,
        "level": step.level,
        "status": step.status,
        "lead": step.lead,
        "definition": "Eine neue Definition.",
        "as_of": step.as_of.isoformat(),
        "source_count": step.source_count,
        "source_status": step.source_status,
        "footer": step.footer,
    }
    for prefix, rows in (
        ("sections", list(step.sections.order_by("position"))),
        ("quick_check_links", list(step.quick_check_links.order_by("position"))),
    ):
        data[f"{prefix}-TOTAL_FORMS"] = len(rows)
        data[f"{prefix}-INITIAL_FORMS"] = len(rows)
        data[f"{prefix}-MIN_NUM_FORMS"] = 0
        data[f"{prefix}-MAX_NUM_FORMS"] = 1000
        for i, row in enumerate(rows):
            data[f"{prefix}-{i}-id"] = row.pk
            data[f"{prefix}-{i}-step"] = step.pk
            data[f"{prefix}-{i}-position"] = row.position
            if prefix == "sections":
                data[f"{prefix}-{i}-kind"] = row.kind
                data[f"{prefix}-{i}-heading"] = row.heading
                data[f"{prefix}-{i}-body"] = row.body
                data[f"{prefix}-{i}-commands"] = (
                    "[]" if not row.commands else str(row.commands).replace("'", '"')
                )
                if row.is_truncated:
                    data[f"{prefix}-{i}-is_truncated"] = "on"
            else:
                data[f"{prefix}-{i}-quick_check"] = row.quick_check_id
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    step.refresh_from_db()
    assert step.definition == "Eine neue Definition."
    fresh = client.get("/api/v1/modules/self-hosting-27/steps/1/", HTTP_IF_NONE_MATCH=etag)
    assert fresh.status_code == 200
    assert fresh.json()["definition"] == "Eine neue Definition."
