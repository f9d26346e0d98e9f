"""Webhook verification (Standard Webhooks, docs/api.md "Signing"), with the ``standardwebhooks`` package.

    payload = verify_webhook(secret, request_body_bytes, request_headers)
    if payload["type"] == "job.succeeded": ...

Verify the raw body bytes before parsing them; keep ``webhook-id`` to drop duplicates (it is the
same on every retry of a delivery).
"""

from __future__ import annotations

import binascii
from collections.abc import Mapping
from typing import Any

import standardwebhooks

from .errors import WebhookVerificationError
from .types import WebhookPayload, WebhookTestPayload

__all__ = ["WebhookVerifier", "verify_webhook"]


class WebhookVerifier:
    """Verifies deliveries for one endpoint's ``whsec_`` secret (shown once, when it was created)."""

    def __init__(self, secret: str) -> None:
        try:
            self._webhook = standardwebhooks.Webhook(secret)
        except (binascii.Error, ValueError, standardwebhooks.webhooks.EmptyWebhookSecretError) as exc:
            raise ValueError(f"not a webhook secret (whsec_ and base64): {exc}") from exc

    def verify(self, body: bytes | str, headers: Mapping[str, str] | Any) -> WebhookPayload | WebhookTestPayload:
        """The delivery's payload, parsed; :class:`WebhookVerificationError` when the signature,
        the headers or the timestamp (more than 5 minutes away) do not verify.

        ``headers``: any mapping, or an object with ``items()`` (a framework's headers)."""
        plain = {str(k).lower(): str(v) for k, v in headers.items()}
        try:
            return self._webhook.verify(body, plain)
        except standardwebhooks.webhooks.WebhookVerificationError as exc:
            raise WebhookVerificationError(str(exc)) from exc
        except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
            # a malformed webhook-signature ("v1" without a comma, bad base64) is not a valid delivery
            raise WebhookVerificationError(f"malformed webhook headers or body: {exc}") from exc


def verify_webhook(secret: str, body: bytes | str, headers: Mapping[str, str] | Any) -> WebhookPayload | WebhookTestPayload:
    """One-off form of :meth:`WebhookVerifier.verify`."""
    return WebhookVerifier(secret).verify(body, headers)
