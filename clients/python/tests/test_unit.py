"""The client's rules on answers a real service gives only by chance or not yet (503, a lost
connection, `Preference-Applied`, `progress`), on a scripted transport (httpx.MockTransport)."""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable

import httpx
import pytest

import upscaler
from upscaler import AsyncUpscaler, Upscaler
from upscaler._base import retry_after_seconds

BASE = "https://api.test/api/v1"
JOB_ID = "job_" + "a" * 32


def job(status: str, **extra: object) -> dict[str, object]:
    view = {"id": JOB_ID, "object": "job", "status": status, "target": "2k", "credits": 3, "result": None, "error": None}
    return {**view, **extra}


def error(status: int, code: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, json={"error": {"code": code, "message": code}}, headers=headers)


class Script:
    """Answers requests in order from a list, and keeps each request with the time it was sent."""

    def __init__(self, *answers: httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]) -> None:
        self.answers = list(answers)
        self.requests: list[tuple[float, httpx.Request]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append((time.monotonic(), request))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer(request) if callable(answer) else answer

    def gaps(self) -> list[float]:
        times = [t for t, _ in self.requests]
        return [b - a for a, b in zip(times, times[1:])]

    def client(self, **options: object) -> Upscaler:
        return Upscaler("usk_test", base_url=BASE, http_client=httpx.Client(transport=httpx.MockTransport(self)), **options)  # type: ignore[arg-type]

    def async_client(self, **options: object) -> AsyncUpscaler:
        transport = httpx.MockTransport(self)
        return AsyncUpscaler("usk_test", base_url=BASE, http_client=httpx.AsyncClient(transport=transport), **options)  # type: ignore[arg-type]


# --- retries -------------------------------------------------------------------------------------------


def test_503_is_retried_after_retry_after_with_the_same_idempotency_key() -> None:
    script = Script(error(503, "billing_unavailable", {"retry-after": "1"}), httpx.Response(202, json=job("queued")))
    created = script.client().upscale(b"\x89PNG...")
    assert created["status"] == "queued"
    (_, first), (_, second) = script.requests
    assert first.headers["idempotency-key"] == second.headers["idempotency-key"]
    assert 1.0 <= script.gaps()[0] < 2.5


def test_409_idempotency_in_progress_is_retried_with_the_same_key() -> None:
    script = Script(error(409, "idempotency_in_progress"), httpx.Response(200, json=job("succeeded")))
    assert script.client().upscale(b"img", idempotency_key="k-1")["status"] == "succeeded"
    assert [r.headers["idempotency-key"] for _, r in script.requests] == ["k-1", "k-1"]


def test_after_max_retries_the_typed_error_is_raised_with_its_headers() -> None:
    script = Script(*[error(503, "billing_unavailable", {"retry-after": "0"}) for _ in range(3)])
    with pytest.raises(upscaler.BillingUnavailableError) as err:
        script.client(max_retries=2).get_account()
    assert isinstance(err.value, upscaler.ServiceUnavailableError)
    assert (err.value.status_code, err.value.code, err.value.headers["retry-after"]) == (503, "billing_unavailable", "0")
    assert len(script.requests) == 3


def test_a_lost_connection_is_retried_for_a_get_but_not_for_a_cancel() -> None:
    script = Script(httpx.ConnectError("refused"), httpx.Response(200, json=job("queued")))
    assert script.client().get_job(JOB_ID)["status"] == "queued"
    assert len(script.requests) == 2
    script = Script(httpx.ConnectError("refused"), httpx.Response(200, json=job("cancelled")))
    with pytest.raises(upscaler.APIConnectionError):
        script.client().cancel_job(JOB_ID)
    assert len(script.requests) == 1
    script = Script(*[httpx.ReadTimeout("slow") for _ in range(2)])
    with pytest.raises(upscaler.APITimeoutError):
        script.client(max_retries=1).get_job(JOB_ID)


def test_retry_after_as_an_http_date() -> None:
    in_3s = email.utils.formatdate(time.time() + 3, usegmt=True)
    seconds = retry_after_seconds(httpx.Response(429, headers={"retry-after": in_3s}))
    assert seconds is not None and 1.5 < seconds <= 3
    assert retry_after_seconds(httpx.Response(429, headers={"retry-after": "7"})) == 7
    assert retry_after_seconds(httpx.Response(429, headers={"retry-after": "soon"})) is None
    assert retry_after_seconds(httpx.Response(429)) is None


# --- errors ----------------------------------------------------------------------------------------------


def test_an_unknown_code_gets_the_class_of_its_status_and_a_body_without_json_plain_api_error() -> None:
    script = Script(error(409, "some_new_conflict"), httpx.Response(502, text="<html>bad gateway</html>"))
    client = script.client()
    with pytest.raises(upscaler.ConflictError) as conflict:
        client.get_job(JOB_ID)
    assert type(conflict.value) is upscaler.ConflictError and conflict.value.code == "some_new_conflict"
    with pytest.raises(upscaler.APIError) as gateway:
        client.get_job(JOB_ID)
    assert type(gateway.value) is upscaler.APIError and (gateway.value.status_code, gateway.value.code) == (502, "unknown")


def test_every_code_class_is_registered_under_its_code_and_status() -> None:
    for code, cls in upscaler.ERROR_CODES.items():
        assert cls.error_code == code and cls.http_status is not None
        e = cls("m", status=cls.http_status, code=code)
        assert isinstance(e, upscaler.APIError) and str(e) == f"{code} (HTTP {cls.http_status}): m"


# --- wait and progress ------------------------------------------------------------------------------------


def held(body: dict[str, object], n: int = 30) -> Callable[[httpx.Request], httpx.Response]:
    return lambda request: httpx.Response(200, json=body, headers={"preference-applied": f"wait={n}"})


def test_without_preference_applied_the_wait_polls_with_growing_backoff() -> None:
    script = Script(
        httpx.Response(202, json=job("queued")),
        *[httpx.Response(200, json=job("queued")) for _ in range(3)],
        httpx.Response(200, json=job("succeeded", result={"bytes": 1, "content_type": "image/png", "url": "/x"})),
    )
    result = script.client(poll_interval=0.2, max_poll_interval=0.4).upscale(b"img", wait=True)
    assert result["status"] == "succeeded"
    gaps = script.gaps()
    # 0.2, 0.3, 0.4 (capped), 0.4
    for gap, expected in zip(gaps, [0.2, 0.3, 0.4, 0.4]):
        assert expected <= gap < expected + 0.4, gaps
    assert [r.headers["prefer"] for _, r in script.requests] == ["wait=60"] * 5


def test_with_preference_applied_the_wait_asks_again_at_once() -> None:
    script = Script(
        held(job("queued")),
        held(job("processing")),
        held(job("succeeded", result={"bytes": 1, "content_type": "image/png", "url": "/x"})),
    )
    result = script.client(poll_interval=1.0).upscale(b"img", wait=40)
    assert result["status"] == "succeeded"
    assert all(gap < 0.9 for gap in script.gaps())  # no pause of poll_interval (1 s)
    prefers = [int(r.headers["prefer"].removeprefix("wait=")) for _, r in script.requests]
    assert prefers[0] in (39, 40) and all(p <= 40 for p in prefers)


def test_progress_is_reported_once_per_change_of_status_or_progress() -> None:
    views = [
        job("queued"),
        job("queued"),
        job("processing", progress=0),
        job("processing", progress=0.5),
        job("processing", progress=0.5),
        job("succeeded", progress=1, result={"bytes": 1, "content_type": "image/png", "url": "/x"}),
    ]
    script = Script(*[held(v) for v in views])
    seen: list[tuple[str, float | None]] = []
    script.client().wait_for_job(JOB_ID, on_progress=lambda p, j: seen.append((j["status"], p)))
    assert seen == [("queued", None), ("processing", 0.0), ("processing", 0.5), ("succeeded", 1.0)]
    assert {r.headers["prefer"] for _, r in script.requests} == {"wait=2"}  # held at most 2 s with on_progress


def test_a_wait_that_runs_out_raises_wait_timeout_with_the_last_view() -> None:
    script = Script(*[httpx.Response(200, json=job("processing")) for _ in range(50)])
    started = time.monotonic()
    with pytest.raises(upscaler.WaitTimeoutError) as timeout:
        script.client(poll_interval=0.1, max_poll_interval=0.1).wait_for_job(JOB_ID, timeout=0.5)
    assert 0.5 <= time.monotonic() - started < 2.0
    assert timeout.value.job["status"] == "processing" and timeout.value.timeout == 0.5


@pytest.mark.asyncio
async def test_async_wait_with_preference_applied_and_503_retry() -> None:
    script = Script(
        error(503, "service_unavailable", {"retry-after": "1"}),
        held(job("queued")),
        held(job("succeeded", result={"bytes": 1, "content_type": "image/png", "url": "/x"})),
    )
    async with script.async_client(poll_interval=2.0) as client:
        result = await client.upscale(b"img", wait=True)
    assert result["status"] == "succeeded"
    gaps = script.gaps()
    assert 1.0 <= gaps[0] < 2.5 and gaps[1] < 1.5  # after Retry-After; then no pause of poll_interval (2 s)


# --- downloads ---------------------------------------------------------------------------------------------


def link(n: int) -> httpx.Response:
    return httpx.Response(200, json={"url": "https://files.test/r.png?sig=1", "expires_in": 300, "content_type": "image/png", "bytes": n})


def test_the_signed_link_is_fetched_without_the_api_key_and_a_short_file_is_an_error() -> None:
    script = Script(link(5), httpx.Response(200, content=b"12345"), link(9), httpx.Response(200, content=b"12345"))
    client = script.client()
    with client.stream_download(JOB_ID) as chunks:
        assert b"".join(chunks) == b"12345"
    (_, api), (_, file) = script.requests[:2]
    assert api.headers["authorization"] == "Bearer usk_test" and api.url.params["redirect"] == "false"
    assert "authorization" not in file.headers and file.url.host == "files.test"
    with pytest.raises(upscaler.UpscalerError, match="incomplete: 5 of 9"):
        with client.stream_download(JOB_ID) as chunks:
            b"".join(chunks)


def test_an_interrupted_download_to_a_path_leaves_no_file(tmp_path) -> None:
    script = Script(link(9), httpx.Response(200, content=b"12345"))
    with pytest.raises(upscaler.UpscalerError):
        script.client().download(JOB_ID, tmp_path / "out.png")
    assert list(tmp_path.iterdir()) == []


# --- options ------------------------------------------------------------------------------------------------


def test_key_and_base_url_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UPSCALER_API_KEY", "usk_env")
    monkeypatch.setenv("UPSCALER_BASE_URL", "https://env.test/api/v1/")
    requests: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json={"object": "account"})

    Upscaler(http_client=httpx.Client(transport=httpx.MockTransport(answer))).get_account()
    assert str(requests[0].url) == "https://env.test/api/v1/account"
    assert requests[0].headers["authorization"] == "Bearer usk_env"
    for given in ("https://env.test", "https://env.test/", "https://env.test/api/v1"):
        assert Upscaler("usk_x", base_url=given).base_url == "https://env.test/api/v1"
    assert Upscaler("usk_x", base_url="https://env.test/upscaler/").base_url == "https://env.test/upscaler/api/v1"
    monkeypatch.delenv("UPSCALER_API_KEY")
    with pytest.raises(upscaler.UpscalerError, match="UPSCALER_API_KEY"):
        Upscaler()


def test_a_text_mode_file_object_is_refused(tmp_path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x")
    with open(path) as f, pytest.raises(TypeError, match="binary"):
        Script().client().upscale(f)  # type: ignore[arg-type]


# --- the content hint ------------------------------------------------------------------


def test_content_is_sent_as_a_form_field_and_in_the_json_body_only_when_given() -> None:
    import json

    created = lambda request: httpx.Response(202, json=job("queued"))  # noqa: E731
    script = Script(created, created, created)
    client = script.client()
    client.upscale(b"\x89PNG\r\n\x1a\n", quality="sharp", content="illustration")
    client.upscale("https://images.test/a.png", content="illustration")
    client.upscale(b"\x89PNG\r\n\x1a\n", quality="sharp")
    form, url_body, plain = (r.content for _, r in script.requests)
    assert b'name="content"\r\n\r\nillustration' in form
    assert json.loads(url_body) == {"image_url": "https://images.test/a.png", "content": "illustration"}
    assert b'name="content"' not in plain


# --- output by pixel size ---------------------------------------------------------------------------


def test_width_height_and_fit_are_sent_as_form_text_and_as_json_numbers() -> None:
    import json

    created = lambda request: httpx.Response(202, json=job("queued"))  # noqa: E731
    script = Script(created, created)
    client = script.client()
    client.upscale(b"\x89PNG\r\n\x1a\n", width=1920, height=1080, fit="cover")
    client.upscale("https://images.test/a.png", height=800)
    form, url_body = (r.content for _, r in script.requests)
    assert b'name="width"\r\n\r\n1920' in form
    assert b'name="height"\r\n\r\n1080' in form
    assert b'name="fit"\r\n\r\ncover' in form
    assert b'name="target"' not in form
    assert json.loads(url_body) == {"image_url": "https://images.test/a.png", "height": 800}
