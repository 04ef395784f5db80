"""Admin for accounts: users with their preferences, and devices."""

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminPasswordChangeForm
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from knox.models import AuthToken

from accounts import services
from accounts.models import Device, User
from accounts.reminders import REMINDER_PREFERENCE_FIELDS, ReminderPreferences

# What only a superuser sees on a user's page (the course admin's form leaves them out).
SUPERUSER_ONLY_USER_FIELDS = frozenset(
    {"password", "is_staff", "is_superuser", "groups", "user_permissions"}
)


class PasswordSetForm(AdminPasswordChangeForm):
    """Django's form for setting a password or turning password log-in off, saved by
    ``services.password_set``."""

    def save(self, commit=True):
        password = (
            self.cleaned_data["password1"] if self.cleaned_data["set_usable_password"] else None
        )
        return services.password_set(user=self.user, password=password)


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    change_password_form = PasswordSetForm
    fieldsets = (
        *DjangoUserAdmin.fieldsets,
        (
            "Lernpfad",
            {
                "fields": (
                    "email_confirmed_at",
                    "pending_email",
                    "display_name",
                    "full_name",
                    "language",
                    "time_zone",
                    "reminder_time",
                    "quiet_hours_start",
                    "quiet_hours_end",
                    "reminder_email",
                    "desired_retention",
                    "new_cards_per_day",
                    "reviews_per_day",
                )
            },
        ),
    )
    readonly_fields = ("email_confirmed_at", "pending_email")
    actions = ("email_confirm_selected", "login_lockout_lift")
    list_display = ("username", "email", "display_name", "language", "time_zone", "is_staff")
    search_fields = (
        "username",
        "email",
        "display_name",
        "full_name",
        "first_name",
        "last_name",
    )

    @admin.action(description=_("Lift the log-in lockout of the selected users"))
    def login_lockout_lift(self, request, queryset):
        usernames = list(queryset.values_list("username", flat=True))
        lifted = services.login_lockouts_lift(usernames=usernames)
        self.message_user(
            request,
            ngettext(
                "Lockout lifted: %(count)d failure record forgotten.",
                "Lockout lifted: %(count)d failure records forgotten.",
                lifted,
            )
            % {"count": lifted},
            messages.SUCCESS,
        )

    @admin.action(description=_("Confirm the e-mail address of the selected users"))
    def email_confirm_selected(self, request, queryset):
        # For a confirmation mail that never arrives; a requested change needs its own link.
        for user in queryset.filter(email_confirmed_at__isnull=True).exclude(email=""):
            services.email_mark_confirmed(user=user)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.queryset_scopes: list = []

    def queryset_scope_add(self, scope) -> None:
        """Narrow the list for some admins: ``scope(request, queryset)`` returns the users they
        may see (apps above accounts add theirs: progress keeps a per-module course admin to
        the learners of their modules). A user outside it is a 404."""
        self.queryset_scopes.append(scope)

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        for scope in self.queryset_scopes:
            queryset = scope(request, queryset)
        return queryset

    def get_object(self, request, object_id, from_field=None):
        found = super().get_object(request, object_id, from_field)
        if found is None and self.queryset_scopes and not request.user.is_superuser:
            # Hidden by a scope (not "perhaps it was deleted", the admin's redirect): a 404.
            unscoped = super().get_queryset(request)
            if object_id.isdigit() and unscoped.filter(pk=object_id).exists():
                raise Http404
        return found

    def has_add_permission(self, request):
        # A new account gets a password: superusers only (course admins enroll existing ones).
        return request.user.is_superuser and super().has_add_permission(request)

    def get_fieldsets(self, request, obj=None):
        """A course admin edits a learner's name, address and preferences, never the password
        or anyone's permissions (which would make the role a superuser's)."""
        fieldsets = super().get_fieldsets(request, obj)
        if request.user.is_superuser or obj is None:
            return fieldsets
        hidden = SUPERUSER_ONLY_USER_FIELDS
        return [
            (name, {**options, "fields": [f for f in options["fields"] if f not in hidden]})
            for name, options in fieldsets
            if [f for f in options["fields"] if f not in hidden]
        ]

    def user_change_password(self, request, id, form_url=""):
        if not request.user.is_superuser:
            raise PermissionDenied
        return super().user_change_password(request, id, form_url)

    def save_model(self, request, obj, form, change):
        # A changed reminder preference moves the next reminder, as the settings page does.
        if not change or REMINDER_PREFERENCE_FIELDS.intersection(form.changed_data):
            obj.next_reminder_at = ReminderPreferences.of(obj).next_after_change(timezone.now())
        super().save_model(request, obj, form, change)


@admin.register(Device)
class DeviceAdmin(admin.ModelAdmin):
    """Mobile devices with a token; deleting one revokes its token."""

    list_display = ("user", "name", "created_at", "expiry")
    search_fields = ("user__username", "user__email", "name")
    list_select_related = ("user", "token")
    fields = ("user", "name", "created_at", "expiry")
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    @admin.display(description=_("expires"), ordering="token__expiry")
    def expiry(self, device: Device):
        return device.token.expiry

    def delete_model(self, request, obj):
        obj.token.delete()

    def delete_queryset(self, request, queryset):
        AuthToken.objects.filter(digest__in=queryset.values("token_id")).delete()


# --- Single sign-on: one identity provider per institution (allauth's SocialApp) -------------
# allauth's admin module is imported here so that its registration exists to be replaced; the
# site wraps both for superusers only (lms.admin_site.SUPERUSER_ONLY).
from allauth.socialaccount import admin as socialaccount_admin  # noqa: E402
from allauth.socialaccount.models import SocialApp  # noqa: E402

from accounts.selectors import SSO_LOCAL_PASSWORDS_SETTING  # noqa: E402

SSO_PROVIDERS_WITH_INSTANCES = frozenset({"saml", "openid_connect"})


class IdentityProviderForm(socialaccount_admin.SocialAppForm):
    """allauth's form with the rules an institution's provider needs: a provider ID of its own
    (the identities' namespace: two institutions' subjects never meet) and a yes/no
    ``local_passwords``."""

    def clean(self):
        cleaned = super().clean()
        provider = cleaned.get("provider")
        provider_id = (cleaned.get("provider_id") or "").strip()
        if provider in SSO_PROVIDERS_WITH_INSTANCES:
            if not provider_id:
                self.add_error(
                    "provider_id",
                    _("Each institution's provider needs a provider ID of its own (e.g. uni-x)."),
                )
            elif (
                SocialApp.objects.filter(provider_id=provider_id)
                .exclude(pk=self.instance.pk)
                .exists()
            ):
                self.add_error("provider_id", _("Another provider has this provider ID."))
        settings = cleaned.get("settings")
        if not isinstance(settings, dict):
            self.add_error("settings", _("The settings are a JSON object."))
        elif not isinstance(settings.get(SSO_LOCAL_PASSWORDS_SETTING, False), bool):
            self.add_error("settings", _('"local_passwords" is true or false (without quotes).'))
        return cleaned


class IdentityProviderAdmin(socialaccount_admin.SocialAppAdmin):
    form = IdentityProviderForm
    list_display = ("name", "provider", "provider_id", "client_id")


admin.site.unregister(SocialApp)
admin.site.register(SocialApp, IdentityProviderAdmin)
