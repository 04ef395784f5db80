"""An aiosmtpd handler that keeps every message it receives, for tests that check what the
workers sent (tests/reliability/test_faults.py, tests/cluster/). Subclasses add the hooks a test
needs to stop a batch at a chosen message (hold at RCPT TO, wait at MAIL FROM)."""

from __future__ import annotations

import email
import email.message
import email.policy
import threading
from collections import Counter


class MessageSink:
    def __init__(self) -> None:
        self.messages: list[email.message.EmailMessage] = []
        self._lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self._lock:
            self.messages.append(message)
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[email.message.EmailMessage]:
        with self._lock:
            return [message for message in self.messages if message["To"] == address]

    def count(self) -> int:
        with self._lock:
            return len(self.messages)

    def per_address(self) -> Counter:
        with self._lock:
            return Counter(message["To"] for message in self.messages)
