"""What Lernpfad keeps of its LTI platforms beyond django-lti's tables (registrations,
deployments, users, contexts, resource links, line items, keys): what a link opens, the
one-time tickets that carry a launch into a window of its own, and the grade sends."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class LinkTarget(models.Model):
    """What a platform's resource link opens: a module, or its final exam (chosen by the
    teacher with Deep Linking and carried in the link's custom parameter)."""

    class Kind(models.TextChoices):
        MODULE = "module", _("module")
        EXAM = "exam", _("final exam")

    resource_link = models.OneToOneField(
        "lti_tool.LtiResourceLink",
        on_delete=models.CASCADE,
        related_name="target",
        verbose_name=_("resource link"),
    )
    kind = models.CharField(max_length=10, choices=Kind.choices, verbose_name=_("opens"))
    module = models.ForeignKey(
        "courses.Module", on_delete=models.CASCADE, related_name="+", verbose_name=_("module")
    )
    # The exam's grade column on the platform (AGS), when the platform offers one.
    line_item = models.ForeignKey(
        "lti_tool.LtiLineItem",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("grade column"),
    )

    class Meta:
        verbose_name = _("link target")
        verbose_name_plural = _("link targets")

    def __str__(self) -> str:
        return f"{self.resource_link} → {self.get_kind_display()}"


class LaunchTicket(models.Model):
    """Carries a validated launch from the platform's frame, where the browser may keep no
    cookie of Lernpfad's, into a window of Lernpfad's own: used once, within minutes."""

    token = models.CharField(max_length=64, unique=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    target_url = models.CharField(max_length=500)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"ticket for user {self.user_id}, until {self.expires_at:%H:%M:%S}"


class GradeSend(models.Model):
    """One score for one learner in one grade column, sent by the worker until the platform
    accepts it: one row per change of the grade (``cause``), so a retry never sends twice."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting to be sent")
        SENT = "sent", _("accepted by the platform")
        FAILED = "failed", _("given up")

    line_item = models.ForeignKey(
        "lti_tool.LtiLineItem",
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("grade column"),
    )
    lti_user = models.ForeignKey(
        "lti_tool.LtiUser",
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("platform user"),
    )
    cause = models.CharField(max_length=40, verbose_name=_("cause"))
    score_percent = models.DecimalField(max_digits=5, decimal_places=2, verbose_name=_("score (%)"))
    # The score's timestamp on the platform: when the grade changed, not when it was sent.
    changed_at = models.DateTimeField(verbose_name=_("changed"))
    status = models.CharField(
        max_length=10, choices=Status.choices, default=Status.PENDING, verbose_name=_("status")
    )
    tries = models.PositiveSmallIntegerField(default=0, verbose_name=_("tries"))
    # A worker holds the row while it sends; a holder older than the lease is taken as lost.
    claimed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("claimed"))
    next_try_at = models.DateTimeField(null=True, blank=True, verbose_name=_("next try"))
    last_http_status = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=_("last HTTP status")
    )
    last_error = models.TextField(blank=True, verbose_name=_("last error"))
    sent_at = models.DateTimeField(null=True, blank=True, verbose_name=_("sent"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created"))

    class Meta:
        verbose_name = _("grade send")
        verbose_name_plural = _("grade sends")
        constraints = [
            models.UniqueConstraint(
                fields=["line_item", "lti_user", "cause"], name="lti_gradesend_once_per_cause"
            ),
            models.CheckConstraint(
                condition=Q(status="sent", sent_at__isnull=False)
                | (~Q(status="sent") & Q(sent_at__isnull=True)),
                name="lti_gradesend_sent_has_time",
            ),
        ]
        indexes = [models.Index(fields=["status", "next_try_at"])]

    def __str__(self) -> str:
        return f"{self.lti_user} {self.score_percent} % ({self.get_status_display()})"
