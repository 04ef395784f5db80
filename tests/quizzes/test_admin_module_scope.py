"""Per-module course admins: a course admin with a ModuleAdministrator row for module A opens
every admin list and custom page and meets A's rows only; module B's objects and pages are a
404, the import workspace a 403. A course admin without a row still sees both modules."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group
from django.urls import reverse

from courses.module_scope import ModuleScopedAdminMixin
from tests.factories import exam_bank_approve, learner_create
from tests.quizzes.conftest import ExamDriver

pytestmark = pytest.mark.django_db


def _course_admin(client, username: str):
    user = learner_create(username, is_staff=True)
    user.groups.add(Group.objects.get(name="Kursverwaltung"))
    client.force_login(user)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return user


@pytest.fixture
def two_modules(course, second_module, make_learner, enroll, client_for, exam):
    """Module A (the seed) and B, each with a bank, learners who took its exam, progress."""
    from reviews.models import ModuleExamPlan

    exam_bank_approve(course)
    exam_bank_approve(second_module)
    for name, correct in (("petra", 10), ("paul", 3)):
        user = make_learner(name, display_name=name.title(), full_name=f"{name.title()} Prüfling")
        enroll(user)
        exam.take(client_for(user), correct=correct)
    bert = make_learner("bert", display_name="Bert", full_name="Bert Beta")
    enroll(bert, second_module)
    ExamDriver(second_module.slug).take(client_for(bert), correct=2)
    for module in (course, second_module):
        ModuleExamPlan.objects.get_or_create(module=module, defaults={"max_days_ahead": 30})
    return course, second_module


@pytest.fixture
def scoped(client, two_modules):
    from courses.models import ModuleAdministrator

    module_a, _module_b = two_modules
    user = _course_admin(client, "kursa")
    ModuleAdministrator.objects.create(user=user, module=module_a, source="admin")
    return client


def _scoped_admins():
    for model, model_admin in admin.site._registry.items():
        if isinstance(model_admin, ModuleScopedAdminMixin) and model_admin.module_path:
            yield model, model_admin


def _url(model, view: str, *args) -> str:
    meta = model._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{view}", args=args)


def test_a_scoped_course_admin_lists_and_opens_only_their_modules_rows(scoped, two_modules):
    module_a, module_b = two_modules
    checked_lists, refused_objects = set(), set()
    for model, model_admin in _scoped_admins():
        path = model_admin.module_path
        response = scoped.get(_url(model, "changelist"))
        if response.status_code == 403:
            continue  # not the role's model
        assert response.status_code == 200, model
        shown = response.context["cl"].queryset
        assert not shown.filter(**{path: module_b.pk}).exists(), model
        assert shown.count() == model._default_manager.filter(**{path: module_a.pk}).count(), model
        checked_lists.add(model._meta.label_lower)
        other = model._default_manager.filter(**{path: module_b.pk}).first()
        if other is not None:
            assert scoped.get(_url(model, "change", other.pk)).status_code == 404, model
            assert scoped.get(_url(model, "history", other.pk)).status_code == 404, model
            refused_objects.add(model._meta.label_lower)
        mine = model._default_manager.filter(**{path: module_a.pk}).first()
        if mine is not None:
            assert scoped.get(_url(model, "change", mine.pk)).status_code == 200, model
    assert {
        "courses.module",
        "courses.step",
        "courses.quickcheck",
        "progress.enrollment",
        "progress.stepprogress",
        "quizzes.examitem",
        "quizzes.exampolicy",
        "quizzes.examattempt",
        "quizzes.certificate",
        "quizzes.examregrade",
        "quizzes.quickcheckrating",
        "reviews.reviewcard",
        "reviews.reviewlog",
        "reviews.moduleexamplan",
        "reviews.examdate",
        "reviews.moduleparameters",
    } <= checked_lists
    assert {
        "courses.module",
        "courses.step",
        "progress.enrollment",
        "progress.stepprogress",
        "quizzes.examitem",
        "quizzes.exampolicy",
        "quizzes.examattempt",
        "reviews.moduleexamplan",
    } <= refused_objects


def test_the_module_filter_and_the_module_choices_offer_only_their_modules(scoped, two_modules):
    module_a, module_b = two_modules
    # One module left to choose: Django leaves the filter out; B is never offered.
    page = scoped.get(reverse("admin:courses_step_changelist")).content.decode()
    assert f"module__id__exact={module_b.pk}" not in page
    form = scoped.get(reverse("admin:quizzes_examitem_add")).context["adminform"].form
    assert set(form.fields["module"].queryset) == {module_a}
    assert not form.fields["step"].queryset.filter(module=module_b).exists()
    assert form.fields["step"].queryset.filter(module=module_a).exists()
    response = scoped.get(
        reverse("admin:autocomplete"),
        {"app_label": "quizzes", "model_name": "examaccommodation", "field_name": "module"},
    )
    assert [row["id"] for row in response.json()["results"]] == [str(module_a.pk)]


def test_a_scoped_course_admin_sees_only_the_learners_of_their_modules(scoped, two_modules):
    from accounts.models import User

    response = scoped.get(reverse("admin:accounts_user_changelist"))
    assert response.status_code == 200
    names = set(response.context["cl"].queryset.values_list("username", flat=True))
    assert names == {"petra", "paul"}
    bert = User.objects.get(username="bert")
    assert scoped.get(reverse("admin:accounts_user_change", args=[bert.pk])).status_code == 404
    petra = User.objects.get(username="petra")
    assert scoped.get(reverse("admin:accounts_user_change", args=[petra.pk])).status_code == 200


def test_a_scoped_course_admin_gets_404_on_the_other_modules_pages(scoped, two_modules):
    from courses.models import Step
    from quizzes.models import ExamItem

    module_a, module_b = two_modules
    dashboard = "admin:quizzes_module_dashboard"
    assert scoped.get(reverse(dashboard, args=[module_a.slug])).status_code == 200
    assert scoped.get(reverse(dashboard, args=[module_b.slug])).status_code == 404
    first = scoped.get(reverse("admin:quizzes_module_dashboard_first"))
    assert first["Location"] == reverse(dashboard, args=[module_a.slug])

    grades = reverse("admin:quizzes_examattempt_grades", args=["csv"])
    assert scoped.get(grades, {"module": module_b.slug}).status_code == 404
    text = scoped.get(grades).content.decode()
    assert module_a.slug in text and module_b.slug not in text

    export = reverse("admin:quizzes_examitem_gift_export")
    assert scoped.get(export, {"module": module_a.slug}).status_code == 200
    assert scoped.get(export, {"module": module_b.slug}).status_code == 404
    assert module_b.slug not in scoped.get(export).content.decode()
    gift_import = scoped.get(reverse("admin:quizzes_examitem_gift_import"))
    assert [slug for slug, _label in gift_import.context["form"].fields["module"].choices] == [
        module_a.slug
    ]

    statistics = reverse("admin:quizzes_examitem_statistics")
    assert scoped.get(statistics, {"module": module_a.slug}).status_code == 200
    assert scoped.get(statistics, {"module": module_b.slug}).status_code == 404

    step_b = Step.objects.filter(module=module_b).first()
    step_a = Step.objects.filter(module=module_a).first()
    preview = "admin:courses_step_preview"
    assert scoped.get(reverse(preview, args=[step_b.pk])).status_code == 404
    assert scoped.get(reverse(preview, args=[step_a.pk])).status_code == 200

    item_b = ExamItem.objects.filter(module=module_b).first()
    regrade = "admin:quizzes_examitem_regrade"
    assert scoped.get(reverse(regrade, args=[item_b.pk])).status_code == 404

    document = "admin:publishing_module_document"
    assert scoped.get(reverse(document, args=[module_b.pk])).status_code == 404
    assert scoped.get(reverse(document, args=[module_a.pk])).status_code == 200


def test_the_import_workspace_is_closed_to_a_scoped_course_admin(scoped):
    assert scoped.get(reverse("admin:publishing_courseimport_changelist")).status_code == 403
    assert scoped.get(reverse("admin:publishing_courseimport_upload")).status_code == 403
    index = scoped.get(reverse("admin:index")).content.decode()
    assert reverse("admin:publishing_courseimport_changelist") not in index


def test_a_course_admin_without_rows_still_administers_every_module(client, two_modules):
    from accounts.models import User

    module_a, module_b = two_modules
    _course_admin(client, "kursall")
    modules = client.get(reverse("admin:courses_module_changelist")).context["cl"].queryset
    assert set(modules) >= {module_a, module_b}
    for module in (module_a, module_b):
        url = reverse("admin:quizzes_module_dashboard", args=[module.slug])
        assert client.get(url).status_code == 200
    users = client.get(reverse("admin:accounts_user_changelist")).context["cl"].queryset
    assert {"petra", "paul", "bert"} <= set(users.values_list("username", flat=True))
    bert = User.objects.get(username="bert")
    assert client.get(reverse("admin:accounts_user_change", args=[bert.pk])).status_code == 200
    assert client.get(reverse("admin:publishing_courseimport_changelist")).status_code == 200


def test_an_unscoped_admin_gets_both_modules_in_the_filter(admin_client, two_modules):
    module_a, module_b = two_modules
    page = admin_client.get(reverse("admin:courses_step_changelist")).content.decode()
    assert f"module__id__exact={module_a.pk}" in page
    assert f"module__id__exact={module_b.pk}" in page


def test_superusers_assign_and_remove_module_administrators(admin_client, client, course):
    from courses.models import ModuleAdministrator

    kurs = _course_admin(client, "kurs")
    page = admin_client.get(reverse("admin:courses_module_change", args=[course.pk]))
    assert page.status_code == 200
    assert "administrators-TOTAL_FORMS" in page.content.decode()
    added = admin_client.post(
        reverse("admin:courses_moduleadministrator_add"),
        {"user": kurs.pk, "module": course.pk, "source": "admin"},
    )
    assert added.status_code == 302
    row = ModuleAdministrator.objects.get(user=kurs, module=course)
    assert (
        admin_client.get(reverse("admin:courses_moduleadministrator_changelist")).status_code == 200
    )
    # A course admin neither sees nor assigns them.
    assert client.get(reverse("admin:courses_moduleadministrator_changelist")).status_code == 403
    module_page = client.get(reverse("admin:courses_module_change", args=[course.pk]))
    assert "administrators-TOTAL_FORMS" not in module_page.content.decode()
    admin_client.post(
        reverse("admin:courses_moduleadministrator_delete", args=[row.pk]), {"post": "yes"}
    )
    assert not ModuleAdministrator.objects.filter(pk=row.pk).exists()


@pytest.mark.parametrize(
    ("url", "budget"),
    [
        # The unscoped budgets (test_course_admin_workspace) and one query for the admin's modules.
        ("/admin/quizzes/examattempt/dashboard/{slug}/", 16),
        ("/admin/progress/enrollment/", 15),
        ("/admin/quizzes/examattempt/", 12),
        ("/admin/quizzes/examitem/statistics/?module={slug}", 11),
        ("/admin/courses/step/", 11),
        ("/admin/progress/stepprogress/", 10),
        ("/admin/reviews/reviewlog/", 12),
        ("/admin/quizzes/certificate/", 10),
        ("/admin/accounts/user/", 12),
    ],
)
def test_a_scoped_admins_query_counts_do_not_grow(client, course, second_module, url, budget):
    from courses.models import ModuleAdministrator
    from quizzes.services.items import exam_policy_get
    from tests.helpers.queries import assert_queries_constant
    from tests.quizzes.test_course_admin_workspace import _learners

    policy = exam_policy_get(module_id=course.pk)
    user = _course_admin(client, "kursq")
    ModuleAdministrator.objects.create(user=user, module=course, source="admin")
    _learners(course, policy, 1)
    url = url.format(slug=course.slug)

    def get():
        assert client.get(url).status_code == 200

    get()
    assert_queries_constant(
        get, grow=lambda: (_learners(course, policy, 12, start=1), get()), budget=budget
    )
