"""The upload form: several documents at once (a module document and its term cards)."""

from __future__ import annotations

from pathlib import PurePath

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from lms.text import text_is_storable

# The seed module is 157 kB; a document ten times its size is no course document any more.
DOCUMENT_MAX_BYTES = 2_000_000
UPLOAD_MAX_BYTES = 10_000_000
UPLOAD_MAX_FILES = 50
DOCUMENT_SUFFIXES = (".txt",)
NAME_MAX_LENGTH = 200  # ImportDocument.name holds 255


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """A file field that takes several files (Django's documented pattern)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": ".txt,text/plain"}))
        # An empty file is refused by the import, with its name (Django's message names none).
        kwargs.setdefault("allow_empty_file", True)
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(item, initial) for item in data]
        return [single(data, initial)]


class DocumentUploadForm(forms.Form):
    documents = MultipleFileField(
        label=gettext_lazy("Documents"),
        help_text=gettext_lazy(
            "A module document and any number of term cards (.txt, UTF-8), at most 2 MB each."
        ),
    )

    def clean_documents(self) -> list[tuple[str, bytes]]:
        uploads = self.cleaned_data["documents"]
        if len(uploads) > UPLOAD_MAX_FILES:
            raise forms.ValidationError(
                _("At most %(count)s documents at once.") % {"count": UPLOAD_MAX_FILES}
            )
        problems, names, total = [], set(), 0
        for upload in uploads:
            name = PurePath(upload.name).name
            total += upload.size
            if len(name) > NAME_MAX_LENGTH or not text_is_storable(name):
                problems.append(
                    _("A file name is longer than %(limit)s characters or not plain text.")
                    % {"limit": NAME_MAX_LENGTH}
                )
            elif not name.lower().endswith(DOCUMENT_SUFFIXES):
                problems.append(_("%(name)s: choose a .txt document.") % {"name": name})
            elif upload.size > DOCUMENT_MAX_BYTES:
                problems.append(
                    _("%(name)s is larger than %(limit)s MB.")
                    % {"name": name, "limit": DOCUMENT_MAX_BYTES // 1_000_000}
                )
            elif name in names:
                problems.append(_("%(name)s was chosen twice.") % {"name": name})
            names.add(name)
        if total > UPLOAD_MAX_BYTES:
            problems.append(
                _("The documents are larger than %(limit)s MB together.")
                % {"limit": UPLOAD_MAX_BYTES // 1_000_000}
            )
        if problems:
            raise forms.ValidationError(problems)
        return [(PurePath(upload.name).name, upload.read()) for upload in uploads]
