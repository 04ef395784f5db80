"""Helpers of the accounts tests: the links in account mails."""

from __future__ import annotations

import re

CONFIRM_LINK = re.compile(r"https?://[^/\s]+(/confirm-email/([^/\s]+)/)")
RESET_LINK = re.compile(r"https?://[^/\s]+(/password-reset/[^/\s]+/[^/\s]+/)")


def confirmation_token_in(message) -> str:
    """The token of the confirmation link in a mail."""
    return CONFIRM_LINK.search(message.body)[2]


def confirmation_path_in(message) -> str:
    """The path of the confirmation link in a mail (the web page it opens)."""
    return CONFIRM_LINK.search(message.body)[1]


def reset_path_in(message) -> str:
    """The path of the password-reset link in a mail."""
    return RESET_LINK.search(message.body)[1]
