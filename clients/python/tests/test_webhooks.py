"""Webhook verification: a real delivery from the service to the HTTPS side server (conftest.py),
verified with its endpoint's secret; a wrong secret, a changed body, a malformed or stale signature
are refused with WebhookVerificationError."""

from __future__ import annotations

import base64
import json
import secrets
import time
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from standardwebhooks import Webhook

import upscaler
from upscaler import Upscaler, WebhookVerifier, verify_webhook

from conftest import AccountKey, Service, SideServer, gradient_image


def other_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def test_a_real_job_succeeded_delivery_verifies_with_the_endpoint_secret_and_not_another(
    service: Service, account: AccountKey, side_server: SideServer
) -> None:
    path = f"/hooks/{uuid.uuid4().hex}"
    with Upscaler(account.key, base_url=service.api_url, poll_interval=0.2) as client:
        endpoint = client.create_webhook_endpoint(f"{side_server.url}{path}", events=["job.succeeded"], description="sdk")
        assert (endpoint["status"], endpoint["events"], endpoint["description"]) == ("enabled", ["job.succeeded"], "sdk")
        secret = endpoint["secret"]
        job = client.upscale(gradient_image(16, 16), wait=True)
        delivery = side_server.wait_for_delivery(path)
        # the attempt is logged once the receiver's answer is back, a moment after the receiver saw it
        deadline = time.monotonic() + 15
        while not (log := client.list_deliveries(endpoint["id"]))["data"] and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [(a["delivery_id"], a["job_id"], a["status_code"], a["outcome"]) for a in log["data"]] == [
            (delivery.headers["webhook-id"], job["id"], 204, "succeeded")
        ]
        assert client.get_webhook_endpoint(endpoint["id"]).get("secret") is None
        assert [e["id"] for e in client.list_webhook_endpoints()["data"]] == [endpoint["id"]]
        assert client.delete_webhook_endpoint(endpoint["id"])["status"] == "disabled"

    payload = verify_webhook(secret, delivery.body, delivery.headers)
    assert (payload["type"], payload["data"]["id"], payload["data"]["status"]) == ("job.succeeded", job["id"], "succeeded")
    assert payload["data"]["result"]["bytes"] == job["result"]["bytes"]
    assert delivery.headers["webhook-id"].startswith("dlv_")

    with pytest.raises(upscaler.WebhookVerificationError):
        verify_webhook(other_secret(), delivery.body, delivery.headers)
    with pytest.raises(upscaler.WebhookVerificationError):
        verify_webhook(secret, delivery.body.replace(b"succeeded", b"failed"), delivery.headers)
    with pytest.raises(upscaler.WebhookVerificationError):
        verify_webhook(secret, delivery.body, {k: v for k, v in delivery.headers.items() if k != "webhook-signature"})


def test_after_a_rotation_a_test_event_and_its_redelivery_verify_with_the_old_and_the_new_secret(
    service: Service, account: AccountKey, side_server: SideServer
) -> None:
    path = f"/hooks/{uuid.uuid4().hex}"
    with Upscaler(account.key, base_url=service.api_url) as client:
        endpoint = client.create_webhook_endpoint(f"{side_server.url}{path}")
        rotated = client.rotate_webhook_secret(endpoint["id"], overlap_seconds=3600)
        assert rotated["secret"] != endpoint["secret"] and rotated["previous_secret_expires_at"] is not None
        test = client.send_test_webhook(endpoint["id"])
        assert (test["object"], test["event_type"], test["job_id"]) == ("webhook_delivery", "webhook.test", None)
        first = side_server.wait_for_delivery(path)
        assert len(first.headers["webhook-signature"].split(" ")) == 2  # the new secret's and the previous one's
        for secret in (rotated["secret"], endpoint["secret"]):
            payload = verify_webhook(secret, first.body, first.headers)
            assert (payload["type"], payload["data"]["endpoint_id"]) == ("webhook.test", endpoint["id"])
        with pytest.raises(upscaler.WebhookVerificationError):
            verify_webhook(other_secret(), first.body, first.headers)

        again = client.redeliver_webhook(endpoint["id"], test["id"])
        assert (again["redelivery_of"], again["message_id"]) == (test["id"], first.headers["webhook-id"])
        second = side_server.wait_for_deliveries(path, 2)[1]
        assert second.headers["webhook-id"] == first.headers["webhook-id"] and second.body == first.body
        assert verify_webhook(rotated["secret"], second.body, second.headers)["type"] == "webhook.test"
        assert client.enable_webhook_endpoint(endpoint["id"])["status"] == "enabled"  # enabled: no change


SECRET = "whsec_" + base64.b64encode(b"0123456789abcdef0123456789abcdef").decode()
BODY = json.dumps({"type": "job.failed", "timestamp": "2026-01-01T00:00:04.000Z", "data": {"id": "job_1", "status": "failed"}})


def signed_headers(secret: str, body: str, when: datetime, msg_id: str = "dlv_1") -> dict[str, str]:
    return {
        "Webhook-Id": msg_id,
        "Webhook-Timestamp": str(int(when.timestamp())),
        "Webhook-Signature": Webhook(secret).sign(msg_id, when, body),
    }


def test_a_payload_signed_with_webhook_sign_verifies_from_bytes_or_text_and_any_header_case() -> None:
    now = datetime.now(tz=timezone.utc)
    headers = signed_headers(SECRET, BODY, now)
    verifier = WebhookVerifier(SECRET)
    assert verifier.verify(BODY, headers) == json.loads(BODY)
    assert verifier.verify(BODY.encode(), {k.upper(): v for k, v in headers.items()}) == json.loads(BODY)
    # a second signature (secret rotation: both are sent, Standard Webhooks) verifies with either secret
    rotated = other_secret()
    both = {**headers, "Webhook-Signature": f"{Webhook(rotated).sign('dlv_1', now, BODY)} {headers['Webhook-Signature']}"}
    assert verify_webhook(SECRET, BODY, both)["type"] == "job.failed"
    assert verify_webhook(rotated, BODY, both)["type"] == "job.failed"


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda h: {**h, "Webhook-Signature": "v1"}, id="signature without a comma"),
        pytest.param(lambda h: {**h, "Webhook-Signature": "v1,%%%not-base64"}, id="signature not base64"),
        pytest.param(lambda h: {**h, "Webhook-Signature": "v2," + h["Webhook-Signature"][3:]}, id="unknown version"),
        pytest.param(lambda h: {**h, "Webhook-Timestamp": "yesterday"}, id="timestamp not a number"),
        pytest.param(lambda h: {**h, "Webhook-Id": "dlv_2"}, id="another message id"),
        pytest.param(lambda h: {k: v for k, v in h.items() if k != "Webhook-Id"}, id="no webhook-id"),
    ],
)
def test_malformed_headers_are_refused_with_webhook_verification_error(change) -> None:
    headers = change(signed_headers(SECRET, BODY, datetime.now(tz=timezone.utc)))
    with pytest.raises(upscaler.WebhookVerificationError):
        verify_webhook(SECRET, BODY, headers)


def test_a_timestamp_more_than_five_minutes_away_is_refused() -> None:
    now = datetime.now(tz=timezone.utc)
    for when in (now - timedelta(minutes=6), now + timedelta(minutes=6)):
        with pytest.raises(upscaler.WebhookVerificationError, match="too (old|new)"):
            verify_webhook(SECRET, BODY, signed_headers(SECRET, BODY, when))
    assert verify_webhook(SECRET, BODY, signed_headers(SECRET, BODY, now - timedelta(minutes=4)))["type"] == "job.failed"


def test_a_secret_that_is_not_whsec_base64_is_refused_up_front() -> None:
    with pytest.raises(ValueError):
        WebhookVerifier("whsec_")
