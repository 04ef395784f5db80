"""The test platform's memory: tools, courses, resource links, line items, scores and logs.

One JSON document guarded by one lock (the server is threaded) and written to
``<state dir>/state.json`` after every change (a temporary file renamed over the old one), so a
test reads what the platform saw even after the process died. Line item and resource link
numbers count up and are never reused.
"""

from __future__ import annotations

import copy
import json
import os
import secrets
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
# Short role names a test may write in a roster; a full URI is kept as it is.
ROLE_URIS = {
    name: f"http://purl.imsglobal.org/vocab/lis/v2/membership#{name}"
    for name in ("Learner", "Instructor", "ContentDeveloper", "Mentor", "Administrator")
}
STORAGE_MODES = ("parent", "frame", "off")
DEFAULT_CONTEXT = "course-1"
# The field names a line item has in AGS 2.0 (everything else in a stored item is ours).
LINE_ITEM_FIELDS = (
    "label",
    "scoreMaximum",
    "resourceId",
    "tag",
    "resourceLinkId",
    "startDateTime",
    "endDateTime",
    "gradesReleased",
)


class StateError(Exception):
    """A request the state refuses; ``status`` is the HTTP status that says why."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def now_iso() -> str:
    """The current UTC time in ISO 8601 with microseconds."""
    return datetime.now(UTC).isoformat()


def role_uri(role: str) -> str:
    """The LIS membership URI for a short role name ("Learner"); a URI stays as it is."""
    return ROLE_URIS.get(role, role)


def member_normalise(member: dict[str, Any]) -> dict[str, Any]:
    """A roster entry as NRPS 2.0 shows it: ``user_id``, role URIs, names, e-mail, status."""
    if not isinstance(member, dict) or not str(member.get("user_id", "")).strip():
        raise StateError("every member needs a user_id")
    roles = member.get("roles") or ["Learner"]
    if not isinstance(roles, list):
        raise StateError(f"roles of {member['user_id']} must be a list")
    user_id = str(member["user_id"])
    given = member.get("given_name", user_id.replace("-", " ").title())
    family = member.get("family_name", "Test")
    return {
        "user_id": user_id,
        "roles": [role_uri(str(role)) for role in roles],
        "name": member.get("name", f"{given} {family}"),
        "given_name": given,
        "family_name": family,
        "email": member.get("email", f"{user_id}@platform.test"),
        "status": member.get("status", "Active"),
    }


def _initial() -> dict[str, Any]:
    return {
        "storage_mode": "parent",
        "registration_tokens": {},
        "tools": {},
        "contexts": {
            DEFAULT_CONTEXT: {
                "id": DEFAULT_CONTEXT,
                "title": "Test course 1",
                "label": "TC1",
                "members": [
                    member_normalise({"user_id": "teacher-1", "roles": ["Instructor"]}),
                    member_normalise({"user_id": "learner-1", "roles": ["Learner"]}),
                    member_normalise({"user_id": "learner-2", "roles": ["Learner"]}),
                ],
            }
        },
        "resource_links": {},
        "line_items": {},
        "results": {},
        "launches": {},
        "deep_links": {},
        "score_posts": [],
        "score_failures": {"count": 0, "status": 500},
        "score_delay": {"count": 0, "seconds": 0},
        "token_requests": [],
        "deep_link_returns": [],
        "storage_messages": [],
        "returns": [],
        "counters": {"tool": 0, "resource_link": 0, "line_item": 0},
    }


class PlatformState:
    """Everything the platform knows, behind one lock, saved as JSON after every change."""

    def __init__(self, folder: Path, *, issuer: str) -> None:
        self.issuer = issuer.rstrip("/")
        self.path = folder / "state.json"
        self._lock = threading.RLock()
        if self.path.exists():
            self._data = json.loads(self.path.read_text())
        else:
            self._data = _initial()
            self._save()

    # -- plumbing -------------------------------------------------------------------------------

    def _save(self) -> None:
        temporary = self.path.with_suffix(".json.tmp")
        temporary.write_text(json.dumps(self._data, indent=1, sort_keys=True))
        os.replace(temporary, self.path)

    def _next(self, counter: str) -> str:
        self._data["counters"][counter] += 1
        return str(self._data["counters"][counter])

    def snapshot(self) -> dict[str, Any]:
        """A deep copy of the whole state (what ``GET /control/state`` answers)."""
        with self._lock:
            return copy.deepcopy(self._data)

    def reset(self) -> None:
        """Forget everything: tools, courses, links, scores, logs (the platform key stays)."""
        with self._lock:
            self._data = _initial()
            self._save()

    # -- settings -------------------------------------------------------------------------------

    def storage_mode(self) -> str:
        """Where platform storage answers: the parent page, a named frame, or not at all."""
        with self._lock:
            return self._data["storage_mode"]

    def storage_mode_set(self, *, mode: str) -> None:
        """Switch platform storage ("parent", "frame" or "off") for later launches."""
        if mode not in STORAGE_MODES:
            raise StateError(f"mode must be one of {', '.join(STORAGE_MODES)}")
        with self._lock:
            self._data["storage_mode"] = mode
            self._save()

    # -- dynamic registration -------------------------------------------------------------------

    def registration_token_create(self) -> str:
        """A new registration token for one dynamic registration."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._data["registration_tokens"][token] = {"created_at": now_iso(), "used": False}
            self._save()
        return token

    def registration_token_valid(self, token: str, *, unused: bool) -> bool:
        """Whether the platform issued ``token`` (and, with ``unused``, nobody registered yet)."""
        with self._lock:
            entry = self._data["registration_tokens"].get(token)
            return entry is not None and not (unused and entry["used"])

    def tool_register(self, *, token: str | None, tool: dict[str, Any]) -> dict[str, Any]:
        """Store a validated tool under a new client_id and deployment_id; uses up ``token``."""
        with self._lock:
            if token is not None:
                if not self.registration_token_valid(token, unused=True):
                    raise StateError("registration token unknown or already used", 401)
                self._data["registration_tokens"][token]["used"] = True
            number = self._next("tool")
            tool = {
                **tool,
                "client_id": f"tool-{number}-{secrets.token_hex(4)}",
                "deployment_id": f"deployment-{number}",
                "registered_at": now_iso(),
            }
            self._data["tools"][tool["client_id"]] = tool
            self._save()
            return copy.deepcopy(tool)

    def tool_get(self, client_id: str | None) -> dict[str, Any]:
        """The tool with ``client_id``; without one, the tool registered last."""
        with self._lock:
            tools = self._data["tools"]
            if client_id is None:
                if not tools:
                    raise StateError("no tool is registered", 404)
                return copy.deepcopy(list(tools.values())[-1])
            if client_id not in tools:
                raise StateError(f"unknown client_id {client_id}", 404)
            return copy.deepcopy(tools[client_id])

    # -- courses --------------------------------------------------------------------------------

    def context_set(
        self, *, context_id: str, members: list[dict[str, Any]], title: str = "", label: str = ""
    ) -> dict[str, Any]:
        """Create or replace a course and its roster."""
        roster = [member_normalise(member) for member in members]
        with self._lock:
            context = {
                "id": context_id,
                "title": title or f"Course {context_id}",
                "label": label or context_id.upper(),
                "members": roster,
            }
            self._data["contexts"][context_id] = context
            self._save()
            return copy.deepcopy(context)

    def context_get(self, context_id: str) -> dict[str, Any]:
        """A course with its roster."""
        with self._lock:
            if context_id not in self._data["contexts"]:
                raise StateError(f"unknown context {context_id}", 404)
            return copy.deepcopy(self._data["contexts"][context_id])

    def member_get(self, context_id: str, user_id: str) -> dict[str, Any]:
        """A member of a course (403 when the user is not enrolled)."""
        for member in self.context_get(context_id)["members"]:
            if member["user_id"] == user_id:
                return member
        raise StateError(f"user {user_id} is not a member of {context_id}", 403)

    # -- launches -------------------------------------------------------------------------------

    def launch_create(self, **launch: Any) -> str:
        """Remember a launch the platform started; the key is its ``lti_message_hint``."""
        hint = secrets.token_urlsafe(16)
        with self._lock:
            self._data["launches"][hint] = {**launch, "created_at": now_iso(), "id_tokens": 0}
            self._save()
        return hint

    def launch_get(self, hint: str) -> dict[str, Any]:
        """The launch behind an ``lti_message_hint``."""
        with self._lock:
            if hint not in self._data["launches"]:
                raise StateError("unknown lti_message_hint")
            return copy.deepcopy(self._data["launches"][hint])

    def launch_issued(self, hint: str, *, claims: dict[str, Any]) -> None:
        """Count an id_token issued for a launch and keep its claims for the tests."""
        with self._lock:
            launch = self._data["launches"][hint]
            launch["id_tokens"] += 1
            launch["last_claims"] = claims
            self._save()

    def deep_link_create(self, *, context_id: str, user_id: str, client_id: str) -> str:
        """A deep-linking request's opaque ``data`` value, to find the course on return."""
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._data["deep_links"][token] = {
                "context_id": context_id,
                "user_id": user_id,
                "client_id": client_id,
                "created_at": now_iso(),
                "returned": False,
            }
            self._save()
        return token

    def deep_link_consume(self, token: str, *, client_id: str) -> dict[str, Any]:
        """The deep-linking request a response answers; each can be answered once."""
        with self._lock:
            request = self._data["deep_links"].get(token)
            if request is None or request["client_id"] != client_id:
                raise StateError("the data claim names no deep-linking request of this tool")
            if request["returned"]:
                raise StateError("this deep-linking request was answered already")
            request["returned"] = True
            self._save()
            return copy.deepcopy(request)

    # -- resource links and line items ----------------------------------------------------------

    def resource_link_create(
        self,
        *,
        context_id: str,
        client_id: str,
        title: str,
        url: str | None = None,
        text: str = "",
        custom: dict[str, str] | None = None,
        line_item: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A resource link in a course; with ``line_item`` its gradebook column right away."""
        self.context_get(context_id)
        if line_item is not None:
            self._line_item_fields({"label": title, **line_item})
        with self._lock:
            link_id = f"rl-{self._next('resource_link')}"
            link = {
                "id": link_id,
                "context_id": context_id,
                "client_id": client_id,
                "title": title,
                "text": text,
                "url": url,
                "custom": custom or {},
                "created_at": now_iso(),
            }
            self._data["resource_links"][link_id] = link
            if line_item is not None:
                self.line_item_create(
                    context_id=context_id,
                    client_id=client_id,
                    fields={"label": title, **line_item, "resourceLinkId": link_id},
                )
            self._save()
            return copy.deepcopy(link)

    def resource_links_in(self, context_id: str) -> list[dict[str, Any]]:
        """The resource links of a course, oldest first."""
        with self._lock:
            links = self._data["resource_links"].values()
            return [copy.deepcopy(link) for link in links if link["context_id"] == context_id]

    def resource_link_get(self, link_id: str) -> dict[str, Any]:
        """One resource link."""
        with self._lock:
            if link_id not in self._data["resource_links"]:
                raise StateError(f"unknown resource link {link_id}", 404)
            return copy.deepcopy(self._data["resource_links"][link_id])

    def line_items_url(self, context_id: str) -> str:
        """The AGS line item container URL of a course."""
        return f"{self.issuer}/contexts/{context_id}/lineitems"

    @staticmethod
    def line_item_public(item: dict[str, Any]) -> dict[str, Any]:
        """A stored line item as AGS shows it (without the platform's bookkeeping)."""
        public = {"id": item["id"]}
        public.update({name: item[name] for name in LINE_ITEM_FIELDS if name in item})
        return public

    @staticmethod
    def _line_item_fields(fields: dict[str, Any]) -> dict[str, Any]:
        problems = []
        maximum = fields.get("scoreMaximum")
        if isinstance(maximum, bool) or not isinstance(maximum, int | float) or maximum <= 0:
            problems.append("scoreMaximum must be a number above 0")
        if not isinstance(fields.get("label"), str) or not fields["label"].strip():
            problems.append("label must be a non-empty string")
        if problems:
            raise StateError("; ".join(problems))
        return {name: fields[name] for name in LINE_ITEM_FIELDS if fields.get(name) is not None}

    def line_item_create(
        self, *, context_id: str, client_id: str, fields: dict[str, Any]
    ) -> dict[str, Any]:
        """A new line item in a course, owned by the tool that asked."""
        clean = self._line_item_fields(fields)
        self.context_get(context_id)
        with self._lock:
            link_id = clean.get("resourceLinkId")
            if link_id is not None:
                link = self._data["resource_links"].get(link_id)
                if link is None or link["context_id"] != context_id:
                    raise StateError(f"resourceLinkId {link_id} is not a link of this course")
            number = self._next("line_item")
            item = {
                "id": f"{self.line_items_url(context_id)}/{number}",
                **clean,
                "number": number,
                "context_id": context_id,
                "client_id": client_id,
                "created_at": now_iso(),
            }
            self._data["line_items"][number] = item
            self._data["results"][number] = {}
            self._save()
            return self.line_item_public(item)

    def _line_item(self, context_id: str, client_id: str, number: str) -> dict[str, Any]:
        item = self._data["line_items"].get(number)
        if item is None or item["context_id"] != context_id or item["client_id"] != client_id:
            raise StateError(f"no line item {number} of this tool in {context_id}", 404)
        return item

    def line_item_get(self, *, context_id: str, client_id: str, number: str) -> dict[str, Any]:
        """One line item of a tool."""
        with self._lock:
            return self.line_item_public(self._line_item(context_id, client_id, number))

    def line_items_find(
        self,
        *,
        context_id: str,
        client_id: str | None,
        resource_link_id: str | None = None,
        resource_id: str | None = None,
        tag: str | None = None,
    ) -> list[dict[str, Any]]:
        """A course's line items (of one tool), filtered as AGS's query parameters say."""
        with self._lock:
            found = []
            for item in self._data["line_items"].values():
                if item["context_id"] != context_id:
                    continue
                if client_id is not None and item["client_id"] != client_id:
                    continue
                if resource_link_id is not None and item.get("resourceLinkId") != resource_link_id:
                    continue
                if resource_id is not None and item.get("resourceId") != resource_id:
                    continue
                if tag is not None and item.get("tag") != tag:
                    continue
                found.append(self.line_item_public(item))
            return found

    def line_item_update(
        self, *, context_id: str, client_id: str, number: str, fields: dict[str, Any]
    ) -> dict[str, Any]:
        """Replace a line item's fields (its resource link stays, as AGS requires)."""
        clean = self._line_item_fields(fields)
        with self._lock:
            item = self._line_item(context_id, client_id, number)
            if clean.get("resourceLinkId", item.get("resourceLinkId")) != item.get(
                "resourceLinkId"
            ):
                raise StateError("resourceLinkId of a line item cannot change")
            for name in LINE_ITEM_FIELDS:
                if name != "resourceLinkId":
                    item.pop(name, None)
            item.update(clean)
            self._save()
            return self.line_item_public(item)

    def line_item_delete(self, *, context_id: str, client_id: str, number: str) -> None:
        """Remove a line item and its results."""
        with self._lock:
            self._line_item(context_id, client_id, number)
            del self._data["line_items"][number]
            self._data["results"].pop(number, None)
            self._save()

    # -- scores ---------------------------------------------------------------------------------

    def score_record(
        self, *, context_id: str, client_id: str, number: str, score: dict[str, Any]
    ) -> bool:
        """Keep a validated score as the user's result; True when it is the user's first.

        A score whose timestamp is not later than the one on record changes nothing: AGS 2.0
        forbids updating a result with an older score (409).
        """
        with self._lock:
            self._line_item(context_id, client_id, number)
            results = self._data["results"].setdefault(number, {})
            previous = results.get(score["userId"])
            if previous is not None and datetime.fromisoformat(
                previous["timestamp"]
            ) >= datetime.fromisoformat(score["timestamp"]):
                raise StateError(
                    f"timestamp {score['timestamp']} is not after the last score's "
                    f"{previous['timestamp']}",
                    409,
                )
            results[score["userId"]] = {**score, "received_at": now_iso()}
            self._save()
            return previous is None

    def results_find(
        self, *, context_id: str, client_id: str, number: str, user_id: str | None = None
    ) -> list[dict[str, Any]]:
        """The results of a line item as AGS 2.0 shows them (one per user, the newest score)."""
        with self._lock:
            item = self._line_item(context_id, client_id, number)
            results = []
            for user, score in self._data["results"].get(number, {}).items():
                if user_id is not None and user != user_id:
                    continue
                result = {
                    "id": f"{item['id']}/results/{user}",
                    "scoreOf": item["id"],
                    "userId": user,
                    "resultMaximum": score.get("scoreMaximum", item["scoreMaximum"]),
                }
                if score.get("scoreGiven") is not None:
                    result["resultScore"] = score["scoreGiven"]
                if score.get("comment"):
                    result["comment"] = score["comment"]
                results.append(result)
            return results

    def score_failures_arm(self, *, count: int, status: int) -> None:
        """Make the next ``count`` score POSTs answer ``status`` without touching any result."""
        if count < 0 or status not in (401, 403, 500, 502, 503):
            raise StateError("count must be >= 0 and status one of 401, 403, 500, 502, 503")
        with self._lock:
            self._data["score_failures"] = {"count": count, "status": status}
            self._save()

    def score_failure_take(self) -> int | None:
        """The status an armed failure answers for this score POST (None when none is armed)."""
        with self._lock:
            failures = self._data["score_failures"]
            if failures["count"] <= 0:
                return None
            failures["count"] -= 1
            self._save()
            return failures["status"]

    def score_delay_arm(self, *, count: int, seconds: float) -> None:
        """The next ``count`` score POSTs are recorded, then answered ``seconds`` later (a
        tool's worker can be killed while it waits for the answer)."""
        if count < 0 or not 0 <= seconds <= 300:
            raise StateError("count must be >= 0 and seconds from 0 to 300")
        with self._lock:
            self._data["score_delay"] = {"count": count, "seconds": seconds}
            self._save()

    def score_delay_take(self) -> float:
        """Seconds this score POST's answer waits (0 when no delay is armed)."""
        with self._lock:
            delay = self._data["score_delay"]
            if delay["count"] <= 0:
                return 0
            delay["count"] -= 1
            self._save()
            return delay["seconds"]

    # -- logs -----------------------------------------------------------------------------------

    def log(self, name: str, entry: dict[str, Any]) -> None:
        """Append to one of the logs (score_posts, token_requests, deep_link_returns, …)."""
        with self._lock:
            self._data[name].append({**entry, "at": now_iso()})
            self._save()
