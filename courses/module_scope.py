"""Per-module course admins: which modules a user administers, and the admin mixin that keeps
a scoped course admin to them (every admin page a course admin opens uses it).

The rule: a superuser, and a course admin without any ``ModuleAdministrator`` row, administer
every module (the site-wide role as it always was); a course admin with rows administers
exactly those modules."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.postgres.expressions import ArraySubquery
from django.http import Http404

from courses.data import ModuleData
from courses.models import Module, ModuleAdministrator, QuickCheck, Step, TermCard
from lms.errors import ModuleNotFound

# Where the ids are kept on the request's user: one query per request, whatever the page lists.
_CACHE_ATTRIBUTE = "_administered_module_ids"


def administered_module_ids(user) -> frozenset[int] | None:
    """The ids of the modules the user may administer, or None for every module."""
    if user is None or not user.is_authenticated or user.is_superuser:
        return None
    cached = getattr(user, _CACHE_ATTRIBUTE, False)
    if cached is not False:
        return cached
    scope = _scope_of(
        ModuleAdministrator.objects.filter(user_id=user.pk).values_list("module_id", flat=True)
    )
    setattr(user, _CACHE_ATTRIBUTE, scope)
    return scope


def _scope_of(ids) -> frozenset[int] | None:
    return frozenset(ids) or None


def administered_module_by_slug(user, slug: str) -> ModuleData:
    """The module a custom admin page names, if the user administers it (else
    ``ModuleNotFound``: for them it does not exist). One query: the user's modules come
    along with the module's row (and are kept for the rest of the request)."""
    queryset = Module.objects.filter(slug=slug)
    fields = ("id", "slug", "title", "header")
    needs_scope = (
        user is not None
        and user.is_authenticated
        and not user.is_superuser
        and getattr(user, _CACHE_ATTRIBUTE, False) is False
    )
    if needs_scope:
        queryset = queryset.annotate(
            scope=ArraySubquery(
                ModuleAdministrator.objects.filter(user_id=user.pk).values("module_id")
            )
        )
        fields = (*fields, "scope")
    row = queryset.values(*fields).first()
    if row is None:
        raise ModuleNotFound(slug)
    if needs_scope:
        setattr(user, _CACHE_ATTRIBUTE, _scope_of(row.pop("scope")))
    if not module_administered(user, row["id"]):
        raise ModuleNotFound(slug)
    return ModuleData(**row)


def module_scope_filter(queryset, *, user, module_path: str | None):
    """The rows of ``queryset`` the user may see: ``module_path`` leads from its model to the
    module's id ("pk" for the module itself, "step__module"…); None: the model has no module,
    so a scoped course admin sees none of its rows."""
    ids = administered_module_ids(user)
    if ids is None:
        return queryset
    if module_path is None:
        return queryset.none()
    return queryset.filter(**{f"{module_path}__in": ids})


def module_administered(user, module_id: int) -> bool:
    ids = administered_module_ids(user)
    return ids is None or module_id in ids


class AdministeredModulesFilter(admin.RelatedFieldListFilter):
    """The module filter of a list, offering only the modules the admin administers."""

    def field_choices(self, field, request, model_admin):
        ids = administered_module_ids(request.user)
        ordering = self.field_admin_ordering(field, request, model_admin)
        return field.get_choices(
            include_blank=False,
            ordering=ordering,
            limit_choices_to=None if ids is None else {"pk__in": ids},
        )


# Content a form may point to, and the path from it to its module.
_CHOICE_PATHS = {Module: "pk", Step: "module", QuickCheck: "module", TermCard: "module"}


class ModuleChoicesMixin:
    """A model admin or inline whose forms offer a scoped course admin only their modules'
    content (a module, step, quick check or term card chosen, typed by id or searched)."""

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        path = _CHOICE_PATHS.get(db_field.related_model)
        if path is not None and "queryset" not in kwargs:
            ids = administered_module_ids(request.user)
            if ids is not None:
                kwargs["queryset"] = db_field.related_model._default_manager.filter(
                    **{f"{path}__in": ids}
                )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class ModuleScopedAdminMixin(ModuleChoicesMixin):
    """A model admin whose rows belong to a module (``module_path``, as for
    ``module_scope_filter``): a scoped course admin lists, opens and chooses only their
    modules' rows; another module's object is a 404."""

    module_path: str | None = "module"

    def get_queryset(self, request):
        return module_scope_filter(
            super().get_queryset(request), user=request.user, module_path=self.module_path
        )

    def get_object(self, request, object_id, from_field=None):
        found = super().get_object(request, object_id, from_field)
        if found is None and administered_module_ids(request.user) is not None:
            # Not "perhaps it was deleted" (a redirect): for this admin it does not exist.
            raise Http404
        return found

    def get_list_filter(self, request):
        filters = super().get_list_filter(request)
        if administered_module_ids(request.user) is None:
            return filters
        return [
            (entry, AdministeredModulesFilter)
            if isinstance(entry, str) and (entry == "module" or entry.endswith("__module"))
            else entry
            for entry in filters
        ]
