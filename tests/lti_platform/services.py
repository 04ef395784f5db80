"""AGS 2.0 and NRPS 2.0 as lti1p3platform's service classes over the platform state.

The library parses the bearer token, checks it (signature, issuer, expiry, scope), maps score
outcomes to statuses (409 for an old timestamp) and pages results. Two things it does not do
are done here: each operation asks for its own scope (the library accepts any AGS scope for
every AGS operation), and a score is validated against the AGS score schema.
"""

from __future__ import annotations

import typing as t
from datetime import datetime

from lti1p3platform.exceptions import LineItemNotFoundException, LtiServiceException
from lti1p3platform.lineitem import TLineItem
from lti1p3platform.membership import Context
from lti1p3platform.score import ActivityProgress, GradeProgress, TScore, UpdateScoreStatus
from lti1p3platform.service_connector import (
    AssignmentsGradesService,
    NamesRoleProvisioningService,
    TPage,
)

from tests.lti_platform.state import PlatformState, StateError, role_uri

if t.TYPE_CHECKING:
    from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
    from lti1p3platform.request import Request

SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/"
LINEITEM = SCOPE + "lineitem"
LINEITEM_READONLY = SCOPE + "lineitem.readonly"
RESULT_READONLY = SCOPE + "result.readonly"
SCORE = SCOPE + "score"
SCORE_MEDIA_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_MEDIA_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
MEMBERSHIP = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


def _page(items: list[t.Any], page: int, limit: int | None) -> TPage:
    if not limit:
        return {"content": items, "has_next": False, "next": None}
    start = (max(page, 1) - 1) * limit
    return {
        "content": items[start : start + limit],
        "has_next": start + limit < len(items),
        "next": None,
    }


def _service_error(error: StateError) -> Exception:
    if error.status == 404:
        return LineItemNotFoundException(error.message)
    return LtiServiceException(error.message, error.status)


def score_validate(body: t.Any) -> dict[str, t.Any]:
    """A score as AGS 2.0 defines it, or a 400 that lists every problem."""
    if not isinstance(body, dict):
        raise LtiServiceException("the score must be a JSON object", 400)
    problems = []
    if not isinstance(body.get("userId"), str) or not body["userId"]:
        problems.append("userId must be a non-empty string")
    activities = {progress.value for progress in ActivityProgress}
    if body.get("activityProgress") not in activities:
        problems.append(f"activityProgress must be one of {sorted(activities)}")
    gradings = {progress.value for progress in GradeProgress}
    if body.get("gradingProgress") not in gradings:
        problems.append(f"gradingProgress must be one of {sorted(gradings)}")
    try:
        stamp = datetime.fromisoformat(str(body.get("timestamp")))
        if stamp.tzinfo is None:
            problems.append("timestamp needs a time zone offset")
    except ValueError:
        problems.append("timestamp must be an ISO 8601 date-time")
    given, maximum = body.get("scoreGiven"), body.get("scoreMaximum")
    if given is not None:
        if isinstance(given, bool) or not isinstance(given, int | float) or given < 0:
            problems.append("scoreGiven must be a number >= 0")
        if isinstance(maximum, bool) or not isinstance(maximum, int | float) or maximum <= 0:
            problems.append("scoreMaximum must be a number > 0 when scoreGiven is set")
    if problems:
        raise LtiServiceException("; ".join(problems), 400)
    return body


class LineItemService(AssignmentsGradesService):
    """AGS for one course and one tool: line items, scores and results in the state."""

    def __init__(
        self,
        request: Request,
        platform_config: LTI1P3PlatformConfAbstract,
        *,
        state: PlatformState,
        context_id: str,
        client_id: str,
        scopes: list[str],
    ) -> None:
        super().__init__(request, platform_config, state.line_items_url(context_id))
        self.state = state
        self.context_id = context_id
        self.client_id = client_id
        self.scopes = scopes

    @property
    def allowed_scopes(self) -> list[str]:
        """The scopes this operation accepts (the library's check is "any of these")."""
        return self.scopes

    def _require_media_type(self, expected: str) -> None:
        assert self.request is not None
        if self.request.content_type != expected:
            message = f"Content-Type must be {expected}, not {self.request.content_type!r}"
            raise LtiServiceException(message, 415)

    def _where(self, number: str) -> dict[str, str]:
        return {"context_id": self.context_id, "client_id": self.client_id, "number": number}

    def find_lineitems(
        self,
        page: int = 1,
        limit: int | None = None,
        line_item_id: str | None = None,
        resource_link_id: str | None = None,
        resource_id: str | None = None,
        tag: str | None = None,
    ) -> TPage:
        """The tool's line items of the course, filtered and paged."""
        found = self.state.line_items_find(
            context_id=self.context_id,
            client_id=self.client_id,
            resource_link_id=resource_link_id,
            resource_id=resource_id,
            tag=tag,
        )
        return _page(found, page, limit)

    def find_lineitem(self, line_item_id: str) -> TLineItem:
        """One line item (404 when it is not the tool's)."""
        try:
            return t.cast(TLineItem, self.state.line_item_get(**self._where(line_item_id)))
        except StateError as error:
            raise _service_error(error) from error

    def create_lineitem(self, creation_data: TLineItem) -> TLineItem:
        """A new line item (400 without label or scoreMaximum)."""
        self._require_media_type(LINEITEM_MEDIA_TYPE)
        if not isinstance(creation_data, dict):
            raise LtiServiceException("the line item must be a JSON object", 400)
        try:
            item = self.state.line_item_create(
                context_id=self.context_id, client_id=self.client_id, fields=dict(creation_data)
            )
        except StateError as error:
            raise _service_error(error) from error
        return t.cast(TLineItem, item)

    def update_lineitem(self, update_data: TLineItem) -> TLineItem:
        """Replace a line item's fields."""
        self._require_media_type(LINEITEM_MEDIA_TYPE)
        fields = dict(update_data)
        number = str(fields.pop("id"))
        try:
            item = self.state.line_item_update(**self._where(number), fields=fields)
        except StateError as error:
            raise _service_error(error) from error
        return t.cast(TLineItem, item)

    def delete_lineitem(self, line_item_id: str) -> None:
        """Remove a line item and its results."""
        try:
            self.state.line_item_delete(**self._where(line_item_id))
        except StateError as error:
            raise _service_error(error) from error

    def update_score(self, line_item_id: str, score: TScore) -> UpdateScoreStatus:
        """Keep a score as the user's result, if it is newer than the one on record."""
        self._require_media_type(SCORE_MEDIA_TYPE)
        body = score_validate(score)
        try:
            self.state.member_get(self.context_id, body["userId"])
        except StateError as error:
            raise LtiServiceException(error.message, 422) from error
        try:
            created = self.state.score_record(**self._where(line_item_id), score=body)
        except StateError as error:
            if error.status == 409:
                return UpdateScoreStatus.OLD_TIMESTAMP
            raise _service_error(error) from error
        return UpdateScoreStatus.CREATED if created else UpdateScoreStatus.SUCCESS

    def get_results(
        self,
        line_item_id: str,
        page: int = 1,
        limit: int | None = None,
        user_id: str | None = None,
    ) -> TPage:
        """The line item's results (one per user), filtered and paged."""
        try:
            results = self.state.results_find(**self._where(line_item_id), user_id=user_id)
        except StateError as error:
            raise _service_error(error) from error
        return _page(results, page, limit)


class MembershipService(NamesRoleProvisioningService):
    """NRPS for one course: its roster as a membership container."""

    def __init__(
        self,
        request: Request,
        platform_config: LTI1P3PlatformConfAbstract,
        *,
        state: PlatformState,
        context_id: str,
    ) -> None:
        super().__init__(
            request, platform_config, f"{state.issuer}/contexts/{context_id}/memberships"
        )
        self.state = state
        self.context_id = context_id

    def get_member_data_page(
        self,
        page: int = 1,
        limit: int | None = None,
        role: str | None = None,
        since: str | None = None,
        **kwargs: t.Any,
    ) -> TPage:
        """The members, filtered by role (a URI or a short name such as "Learner")."""
        members = self.state.context_get(self.context_id)["members"]
        if role:
            members = [member for member in members if role_uri(role) in member["roles"]]
        return _page(members, page, limit)

    def get_context_by_id(self) -> Context:
        """The course as NRPS's ``context`` object."""
        context = self.state.context_get(self.context_id)
        return Context(id=context["id"], label=context["label"], title=context["title"])

    def is_resource_link_valid(self, context_id: str, resource_link_id: str) -> bool:
        """Whether ``rlid`` is a link of this course."""
        links = self.state.resource_links_in(context_id)
        return any(link["id"] == resource_link_id for link in links)
