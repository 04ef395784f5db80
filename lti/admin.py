"""The admin of what Lernpfad keeps beside django-lti's tables (whose admin django-lti
registers: registrations with their deployments): keys with "rotate", platform courses with
"roster sync", link targets, grade sends with "send again". Superusers only, as every LTI model
(lms.admin_site.SUPERUSER_ONLY): these are infrastructure."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from lti_tool.admin import LtiRegistrationAdmin as LibraryRegistrationAdmin
from lti_tool.models import Key, LtiContext, LtiDeployment, LtiRegistration

from lti import services, tasks
from lti.models import GradeSend, LinkTarget


class ReadOnly:
    """Written by launches, sends and syncs, never by hand."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class DeploymentInline(admin.TabularInline):
    """A registration's deployments: the ID the platform sends, and whether it may launch."""

    model = LtiDeployment
    fields = ["deployment_id", "is_active"]
    extra = 0


admin.site.unregister(LtiRegistration)


@admin.register(LtiRegistration)
class LtiRegistrationAdmin(LibraryRegistrationAdmin):
    """django-lti's registration form with only the deployment fields a platform admin knows.
    Superusers only (lms.admin_site.SUPERUSER_ONLY): a registration's teachers become course
    admins."""

    inlines = [DeploymentInline]


@admin.register(LinkTarget)
class LinkTargetAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["resource_link", "kind", "module", "line_item"]
    list_filter = ["kind"]
    list_select_related = ["resource_link", "module", "line_item"]


@admin.register(GradeSend)
class GradeSendAdmin(ReadOnly, admin.ModelAdmin):
    list_display = [
        "lti_user",
        "line_item",
        "score_percent",
        "status",
        "tries",
        "last_http_status",
        "changed_at",
        "sent_at",
    ]
    list_filter = ["status"]
    list_select_related = ["lti_user", "line_item"]
    readonly_fields = [field.name for field in GradeSend._meta.fields]
    actions = ["send_again"]

    @admin.action(description=_("Send again now"))
    def send_again(self, request, queryset):
        ids = list(queryset.exclude(status=GradeSend.Status.SENT).values_list("pk", flat=True))
        queryset.filter(pk__in=ids).update(
            status=GradeSend.Status.PENDING, next_try_at=None, tries=0
        )
        for pk in ids:
            tasks.grade_send.delay(pk)
        self.message_user(
            request,
            ngettext("%d score queued.", "%d scores queued.", len(ids)) % len(ids),
            messages.SUCCESS,
        )


@admin.register(LtiContext)
class LtiContextAdmin(ReadOnly, admin.ModelAdmin):
    """The platform courses Lernpfad was launched from; their roster can be synced."""

    list_display = ["title", "label", "deployment", "memberships_url"]
    list_select_related = ["deployment__registration"]
    actions = ["roster_sync"]

    @admin.action(description=_("Sync the roster (NRPS)"))
    def roster_sync(self, request, queryset):
        contexts = list(queryset.exclude(memberships_url="").values_list("pk", flat=True))
        for pk in contexts:
            tasks.roster_sync.delay(pk)
        self.message_user(
            request,
            ngettext(
                "Roster sync queued for %d course.",
                "Roster sync queued for %d courses.",
                len(contexts),
            )
            % len(contexts),
            messages.SUCCESS,
        )


@admin.register(Key)
class KeyAdmin(ReadOnly, admin.ModelAdmin):
    """Lernpfad's signing keys; the newest active one signs, every active one is in the JWKS."""

    list_display = ["pk", "datetime_created", "is_active"]
    fields = ["datetime_created", "is_active", "public_key"]
    readonly_fields = fields
    actions = ["rotate"]

    @admin.action(description=_("Rotate: create a new signing key"))
    def rotate(self, request, queryset):
        _key, retired = services.key_rotate()
        self.message_user(
            request,
            _("A new key signs from now on; %(retired)d old key(s) left the key set.")
            % {"retired": retired},
            messages.SUCCESS,
        )
