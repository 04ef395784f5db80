"""Names and Role Provisioning (the platform course's roster) and the tool's signing keys."""

from __future__ import annotations

import datetime

import pytest
import requests
from django.core.management import call_command
from django.utils import timezone

from tests.lti.conftest import COURSE, deep_link, learner_opens

pytestmark = pytest.mark.django_db(transaction=True)

MEMBERS = [
    {
        "user_id": "teacher-1",
        "roles": ["Instructor"],
        "name": "Tina Teacher",
        "email": "tina@uni.example",
    },
    {
        "user_id": "learner-1",
        "roles": ["Learner"],
        "name": "Lea Learner",
        "email": "lea@uni.example",
    },
    {
        "user_id": "learner-2",
        "roles": ["Learner"],
        "name": "Lou Learner",
        "email": "lou@uni.example",
    },
    {"user_id": "learner-3", "roles": ["Learner"], "name": "Leo Late", "email": "leo@uni.example"},
]


def test_the_roster_becomes_accounts_enrollments_and_course_admins(
    registered, lti_platform, course, second_module
):
    from lti_tool.models import LtiContext, LtiUser

    from accounts.models import User
    from accounts.roles import COURSE_ADMIN_GROUP
    from lti import services
    from progress.models import Enrollment

    lti_platform.client.set_roster(COURSE, MEMBERS, title="GPU-Kurs")
    link = deep_link(lti_platform, "module:self-hosting-27")
    learner_opens(lti_platform, link)  # learner-1 already has an account
    local = User.objects.create_user("lou", email="lou@uni.example", password="x" * 14)

    synced = services.roster_sync(context_id=LtiContext.objects.get().pk)
    assert synced == services.RosterSynced(
        members=4, accounts_created=3, enrolled=2, course_admins=1
    )
    accounts = {u.sub: u.auth_user for u in LtiUser.objects.select_related("auth_user")}
    assert set(accounts) == {"teacher-1", "learner-1", "learner-2", "learner-3"}
    enrolled = set(Enrollment.objects.filter(module=course).values_list("learner_id", flat=True))
    assert enrolled == {accounts[s].pk for s in ("learner-1", "learner-2", "learner-3")}
    teacher = accounts["teacher-1"]
    assert teacher.is_staff and teacher.groups.filter(name=COURSE_ADMIN_GROUP).exists()
    # … of the linked module only: the other module is not theirs.
    from courses import api as courses_api
    from courses.models import ModuleAdministrator

    row = ModuleAdministrator.objects.get(user=teacher)
    assert (row.module, row.source) == (course, "platform")
    assert courses_api.administered_module_ids(teacher) == frozenset({course.pk})
    # Never matched by address: Lou's platform identity is not the local account "lou".
    assert accounts["learner-2"] != local and accounts["learner-2"].email == ""
    # Again: nothing new.
    again = services.roster_sync(context_id=LtiContext.objects.get().pk)
    assert (again.accounts_created, again.enrolled) == (0, 0)
    assert ModuleAdministrator.objects.filter(user=teacher).count() == 1


def test_the_jwks_lists_active_keys_and_rotation_keeps_the_old_one_for_a_while(tool):
    from lti_tool.models import Key

    from lti import services

    first = requests.get(tool + "/lti/jwks/", timeout=10).json()["keys"]
    assert len(first) == 1 and first[0]["kty"] == "RSA" and "d" not in first[0]
    call_command("lti_rotate_key")
    kids = [key["kid"] for key in requests.get(tool + "/lti/jwks/", timeout=10).json()["keys"]]
    assert len(kids) == 2 and first[0]["kid"] in kids
    newest = Key.objects.active().latest()
    assert newest.as_jwk()["kid"] != first[0]["kid"]  # the new key signs
    # After the grace period the old key leaves the key set; the newest stays.
    later = timezone.now() + datetime.timedelta(days=8)
    assert services.key_rotate(now=later, new_key=False) == (None, 1)
    kids = [key["kid"] for key in requests.get(tool + "/lti/jwks/", timeout=10).json()["keys"]]
    assert kids == [newest.as_jwk()["kid"]]


def test_a_rotated_key_still_gets_tokens_and_sends_scores(registered, lti_platform, course):
    """The platform fetches the tool's JWKS by key id: after a rotation the new key signs
    the client assertion of the next service call, and the platform accepts it."""
    from lti_tool.models import LtiContext, LtiUser

    from lti import services

    lti_platform.client.set_roster(COURSE, MEMBERS)
    deep_link(lti_platform, "module:self-hosting-27")
    services.key_rotate()
    synced = services.roster_sync(context_id=LtiContext.objects.get().pk)
    assert synced.members == 4
    # No link has been opened yet, so no module to administer: the teacher gets no role (it
    # would be site-wide without one).
    assert synced.course_admins == 0
    assert not LtiUser.objects.get(sub="teacher-1").auth_user.is_staff
