"""django.contrib.admin with Lernpfad's site (``lms.admin_site.LernpfadAdminSite``)."""

from django.contrib.admin.apps import AdminConfig


class LernpfadAdminConfig(AdminConfig):
    default_site = "lms.admin_site.LernpfadAdminSite"
