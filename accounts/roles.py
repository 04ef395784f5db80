"""The course-admin role "Kursverwaltung": a group and exactly the permissions it holds
(infrastructure stays with superusers); migrations and ``demo_setup`` sync it."""

from __future__ import annotations

COURSE_ADMIN_GROUP = "Kursverwaltung"

VIEW = ("view",)
EDIT = ("view", "change")
FULL = ("view", "add", "change", "delete")

# (app label, model name) -> the actions the role may take on it.
COURSE_ADMIN_PERMISSIONS: dict[tuple[str, str], tuple[str, ...]] = {
    # Content: edited in the admin, brought in by the import (steps retire, never deleted).
    ("courses", "module"): EDIT,
    ("courses", "step"): EDIT,
    ("courses", "section"): FULL,
    ("courses", "termcard"): EDIT,
    ("courses", "quickcheck"): ("view", "add", "change"),
    ("courses", "stepquickcheck"): FULL,
    # Enrollments (the users list's action needs "change user"; accounts.admin hides passwords).
    ("progress", "enrollment"): FULL,
    ("accounts", "user"): EDIT,
    # Learner progress: read only.
    ("progress", "stepprogress"): VIEW,
    ("quizzes", "examattempt"): VIEW,
    ("quizzes", "quickcheckrating"): VIEW,
    ("reviews", "reviewcard"): VIEW,
    ("reviews", "reviewlog"): VIEW,
    # The item bank and its review, policies, accommodations, certificates.
    ("quizzes", "examitem"): FULL,
    ("quizzes", "exampolicy"): ("view", "add", "change"),
    ("quizzes", "examaccommodation"): FULL,
    ("quizzes", "certificate"): EDIT,
    # The audit lines of regrades (written by the regrade, never edited).
    ("quizzes", "examregrade"): VIEW,
    ("quizzes", "examregradelearner"): VIEW,
    # The module's exam date plan; the learners' own exam dates and FSRS fits read only.
    ("reviews", "moduleexamplan"): ("view", "add", "change"),
    ("reviews", "examdate"): VIEW,
    ("reviews", "parameterfit"): VIEW,
    ("reviews", "learnerparameters"): VIEW,
    ("reviews", "moduleparameters"): VIEW,
    # Bringing documents in: upload, preview, publish, the history (publishing).
    ("publishing", "courseimport"): ("view", "add"),
    ("publishing", "importdocument"): VIEW,
}


def course_admin_permission_codenames() -> set[tuple[str, str]]:
    """``(app_label, codename)`` of every permission of the role."""
    return {
        (app_label, f"{action}_{model}")
        for (app_label, model), actions in COURSE_ADMIN_PERMISSIONS.items()
        for action in actions
    }


def course_admin_group_sync(apps=None) -> None:
    """Create the group if missing and give it exactly the role's permissions (``apps``: a
    migration's registry, or None), creating the permissions first on a fresh database."""
    from django.apps import apps as global_apps
    from django.contrib.auth.management import create_permissions

    registry = apps or global_apps
    for app_config in global_apps.get_app_configs():
        if app_config.label in {label for label, _model in COURSE_ADMIN_PERMISSIONS}:
            create_permissions(app_config, apps=registry, verbosity=0)
    Group = registry.get_model("auth", "Group")
    Permission = registry.get_model("auth", "Permission")
    wanted = course_admin_permission_codenames()
    permissions = [
        permission
        for permission in Permission.objects.filter(
            codename__in={codename for _label, codename in wanted}
        ).select_related("content_type")
        if (permission.content_type.app_label, permission.codename) in wanted
    ]
    group, _created = Group.objects.get_or_create(name=COURSE_ADMIN_GROUP)
    group.permissions.set(permissions)
