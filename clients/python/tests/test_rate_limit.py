"""Retries on 429 against the real service: a key with a rate of its own (1 request a minute,
docs/api.md "Rate limits") is refused with Retry-After, and the clients send the request again only
after that many seconds, when the window has reset.

Windows are aligned to the clock minute, so the test first waits until the window has between 5
and 12 seconds left: a scheduling step that keeps Retry-After short, not an assertion about time.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field

import httpx
import pytest

import upscaler
from upscaler import AsyncUpscaler, Upscaler

from conftest import Service


@dataclass
class Exchange:
    sent_at: float
    status: int = 0
    answered_at: float = 0.0
    retry_after: str | None = None


@dataclass
class Log:
    exchanges: list[Exchange] = field(default_factory=list)

    def on_request(self, request: httpx.Request) -> None:
        self.exchanges.append(Exchange(time.monotonic()))

    def on_response(self, response: httpx.Response) -> None:
        last = self.exchanges[-1]
        last.status, last.answered_at, last.retry_after = response.status_code, time.monotonic(), response.headers.get("retry-after")

    async def aon_request(self, request: httpx.Request) -> None:
        self.on_request(request)

    async def aon_response(self, response: httpx.Response) -> None:
        self.on_response(response)


def wait_for_window_end(low: float = 5.0, high: float = 12.0) -> None:
    left = 60 - time.time() % 60
    if not low <= left <= high:
        time.sleep((left - high) % 60 + 0.2)


def check_retry(log: Log) -> None:
    assert [e.status for e in log.exchanges] == [200, 429, 200]
    refused, retried = log.exchanges[1], log.exchanges[2]
    retry_after = int(refused.retry_after or "0")
    assert 1 <= retry_after <= 13
    gap = retried.sent_at - refused.answered_at
    assert retry_after <= gap < retry_after + 2.0, (retry_after, gap)


def test_429_is_retried_after_retry_after_by_the_sync_and_the_async_client(service: Service, make_account) -> None:
    sync_key = make_account(rate_limit_per_minute=1).key
    async_key = make_account(rate_limit_per_minute=1).key
    sync_log, async_log = Log(), Log()
    errors: list[BaseException] = []

    def run_sync() -> None:
        try:
            http = httpx.Client(event_hooks={"request": [sync_log.on_request], "response": [sync_log.on_response]})
            with http, Upscaler(sync_key, base_url=service.api_url, http_client=http) as client:
                client.get_account()
                assert client.get_account()["object"] == "account"
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    async def run_async() -> None:
        http = httpx.AsyncClient(event_hooks={"request": [async_log.aon_request], "response": [async_log.aon_response]})
        async with http, AsyncUpscaler(async_key, base_url=service.api_url, http_client=http) as client:
            await client.get_account()
            assert (await client.get_account())["object"] == "account"

    wait_for_window_end()
    thread = threading.Thread(target=run_sync)
    thread.start()
    asyncio.run(run_async())
    thread.join()
    if errors:
        raise errors[0]
    check_retry(sync_log)
    check_retry(async_log)

    # the window now has a minute left: a client that will not wait that long raises RateLimitError at once
    with Upscaler(sync_key, base_url=service.api_url, max_retry_after=5) as client:
        started = time.monotonic()
        with pytest.raises(upscaler.RateLimitError) as limited:
            client.get_account()
        assert time.monotonic() - started < 3.0  # not the Retry-After of more than 5 s
    e = limited.value
    assert (e.status_code, e.code) == (429, "rate_limited")
    assert int(e.headers["retry-after"]) > 5 and e.headers["x-ratelimit-remaining"] == "0"
