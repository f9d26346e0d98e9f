"""The client of the Upscaler API (v1), asynchronous: :class:`AsyncUpscaler`.

This file is the source of both clients: ``python -m upscaler._unasync`` writes ``client.py`` (:class:`Upscaler`)
from it with unasync (async and await dropped, ``AsyncUpscaler`` -> ``Upscaler``, ``_async_io`` -> ``_sync_io``;
the table is in ``_unasync.py``). Edit this file, then render; ``--check`` in the tests keeps them equal.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any, Literal, Unpack, overload

from urllib.parse import urljoin

import httpx

from . import _async_io as _io
from . import _base
from ._base import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_RETRY_AFTER,
    DEFAULT_TIMEOUT,
    FINAL_STATUSES,
    ImageInput,
    ProgressCallback,
    UpscaleOptions,
)
from .errors import UpscalerError, WaitTimeoutError
from .types import (
    Account,
    ApiKey,
    ApiKeyCreated,
    ApiKeyList,
    ContentHint,
    SizeFit,
    DeliveryAttemptList,
    Job,
    JobCancel,
    JobCreate,
    JobList,
    JobListItem,
    JobStatus,
    OutputFormat,
    QualityTier,
    ResultLink,
    Scope,
    Target,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEndpointCreated,
    WebhookEndpointList,
    WebhookEventType,
)


class AsyncUpscaler:
    """A client of the Upscaler API (v1).

    >>> async with AsyncUpscaler(api_key="usk_...", base_url="https://api.example.com/api/v1") as client:
    ...     job = await client.upscale("photo.jpg", target="4k", format="webp", wait=True)
    ...     await client.download(job, "photo-4x.webp")

    ``api_key`` and ``base_url`` default to ``UPSCALER_API_KEY`` and ``UPSCALER_BASE_URL``.
    Requests answered 429 or 503 are sent again after their ``Retry-After`` (at most
    ``max_retries`` times, and not when it is longer than ``max_retry_after`` seconds).
    ``on_progress`` is called on each change of a job's status or progress; in the asynchronous client it may
    be a coroutine function, and a file object's ``read`` / ``write`` may be coroutines (aiofiles, anyio).
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
        poll_interval: float = 0.5,
        max_poll_interval: float = 2.0,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._options = _base.resolve_options(
            api_key, base_url, timeout, max_retries, max_retry_after, poll_interval, max_poll_interval
        )
        self._own_http = http_client is None
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self._http.headers.update(self._options.headers)

    @property
    def base_url(self) -> str:
        return self._options.base_url

    async def close(self) -> None:
        if self._own_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncUpscaler:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- transport -------------------------------------------------------------------------------

    async def _request(
        self,
        method: str,
        path: str,
        *,
        retry_safe: bool,
        headers: Mapping[str, str] | None = None,
        prefer_wait: int | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        url = f"{self._options.base_url}{path}"
        extra = dict(headers or {})
        if prefer_wait is not None:
            extra["prefer"] = f"wait={prefer_wait}"
        attempt = 0
        while True:
            try:
                response = await self._http.request(
                    method,
                    url,
                    headers=_base.auth_headers(self._options, extra),
                    timeout=_base.request_timeout(self._options, prefer_wait),
                    **kwargs,
                )
            except httpx.TransportError as exc:
                decision = _base.decide_retry(self._options, attempt, None, retry_safe)
                if not decision.retry:
                    raise _base.connection_error(exc) from exc
            else:
                if response.status_code < 400:
                    return response
                decision = _base.decide_retry(self._options, attempt, response, retry_safe)
                if not decision.retry:
                    return _base.check_response(response)
            await _io.sleep(decision.delay)
            attempt += 1

    async def _json(self, method: str, path: str, *, retry_safe: bool, **kwargs: Any) -> Any:
        """The JSON body of a successful answer (the request as :meth:`_request` sends it)."""
        return (await self._request(method, path, retry_safe=retry_safe, **kwargs)).json()

    # --- jobs ------------------------------------------------------------------------------------

    @overload
    async def upscale(
        self, image: ImageInput, *, wait: Literal[False] = ..., **options: Unpack[UpscaleOptions]
    ) -> JobCreate | Job: ...

    @overload
    async def upscale(self, image: ImageInput, *, wait: Literal[True] | float, **options: Unpack[UpscaleOptions]) -> Job: ...

    async def upscale(
        self,
        image: ImageInput,
        *,
        target: Target | None = None,
        format: OutputFormat | None = None,
        quality: QualityTier | None = None,
        content: ContentHint | None = None,
        filename: str | None = None,
        width: int | None = None,
        height: int | None = None,
        fit: SizeFit | None = None,
        wait: bool | float = False,
        on_progress: ProgressCallback | None = None,
        idempotency_key: str | None = None,
        raise_on_failure: bool = True,
    ) -> JobCreate | Job:
        """Submit an image: a path, bytes, a binary file object, or an ``https://`` URL.

        Every call carries an ``Idempotency-Key`` (a fresh UUID unless given), kept across its
        retries, so a retried submit never creates or charges a second job.

        ``content="illustration"`` (drawings, line art, screenshots, text) runs the illustration network
        where one measured better (the ``sharp`` tier); the service's default is ``"photo"``.

        ``width`` and/or ``height`` ask for the result's pixel size instead of ``target``: the service
        runs (and charges) the smallest target that reaches it, then resizes exactly; with both,
        ``fit`` is ``"within"`` (default, aspect kept), ``"cover"`` (cropped to fill) or ``"exact"``.

        ``wait=False`` answers the created job (create view). ``wait=True`` waits until the job is
        final, ``wait=<seconds>`` at most that long (then :class:`WaitTimeoutError`), and answers the
        full job; a failed or cancelled job raises :class:`JobFailedError` /
        :class:`JobCancelledError` unless ``raise_on_failure=False``.
        """
        fields = _base.upscale_fields(target, format, quality, filename, content, width, height, fit)
        if _base.is_url(image):
            body = _base.upscale_request(str(image), None, fields)
        else:
            body = _base.upscale_request(None, await _read_image(image, filename), fields)
        headers = {"idempotency-key": idempotency_key or _base.new_idempotency_key()}
        deadline = _base.Deadline(None if wait is False else _base.wait_timeout(wait))
        prefer = None if wait is False else _base.prefer_wait(deadline.left(), on_progress is not None)
        response = await self._request("POST", "/upscale", retry_safe=True, headers=headers, prefer_wait=prefer, **body)
        job = response.json()
        if wait is False:
            return job
        held = _base.preference_applied(response)
        return await self._wait(job["id"], job, held, deadline, on_progress, raise_on_failure)

    async def get_job(self, job: str | Mapping[str, Any]) -> Job:
        """The job, every field (``GET /jobs/{id}``); ``job`` is an id or a job."""
        return await self._json("GET", f"/jobs/{_base.quote(_base.job_id_of(job))}", retry_safe=True)

    async def cancel_job(self, job: str | Mapping[str, Any]) -> JobCancel:
        """Cancel a job that has not finished; its credits come back (``DELETE /jobs/{id}``)."""
        return await self._json("DELETE", f"/jobs/{_base.quote(_base.job_id_of(job))}", retry_safe=False)

    async def wait_for_job(
        self,
        job: str | Mapping[str, Any],
        *,
        timeout: float | None = None,
        on_progress: ProgressCallback | None = None,
        raise_on_failure: bool = True,
    ) -> Job:
        """Wait until the job is final and answer it (``timeout=None``: as long as it takes).

        Each ``GET /jobs/{id}`` asks the server to hold it (``Prefer: wait=N``); a server that did
        not (no ``Preference-Applied``) is polled with backoff instead.
        """
        return await self._wait(_base.job_id_of(job), None, False, _base.Deadline(timeout), on_progress, raise_on_failure)

    async def _wait(
        self,
        job_id: str,
        job: Any,
        held: bool,
        deadline: _base.Deadline,
        on_progress: ProgressCallback | None,
        raise_on_failure: bool,
    ) -> Job:
        """`job`: the view in hand, if any; `held`: whether the server held the request that answered it."""
        reporter = _base.ProgressReporter(on_progress)
        delay = self._options.poll_interval
        while True:
            if job is not None:
                await _io.resolve(reporter.see(job))
                # a final job in a partial view (no `result`: the create view) is asked for in full
                if job["status"] in FINAL_STATUSES and "result" in job:
                    return _base.raise_for_final(job, raise_on_failure)
                if deadline.passed():
                    raise WaitTimeoutError(job, deadline.timeout or 0)
                if not held:
                    left = deadline.left()
                    await _io.sleep(delay if left is None else max(0.0, min(delay, left)))
                    delay = min(delay * 1.5, self._options.max_poll_interval)
            prefer = _base.prefer_wait(deadline.left(), on_progress is not None)
            response = await self._request("GET", f"/jobs/{_base.quote(job_id)}", retry_safe=True, prefer_wait=prefer)
            held = _base.preference_applied(response)
            job = response.json()

    def list_jobs(
        self, *, status: JobStatus | None = None, limit: int | None = None, starting_after: str | None = None
    ) -> AsyncJobPager:
        """Every job, newest first, one page (``limit`` per page) fetched as iteration reaches it.

        >>> async for job in client.list_jobs(status="succeeded"): ...
        >>> async for page in client.list_jobs(limit=100).pages(): ...
        """
        return AsyncJobPager(self, status=status, limit=limit, starting_after=starting_after)

    async def list_jobs_page(
        self, *, status: JobStatus | None = None, limit: int | None = None, starting_after: str | None = None
    ) -> JobList:
        """One page of ``GET /jobs``."""
        params = {"status": status, "limit": limit, "starting_after": starting_after}
        return await self._json(
            "GET", "/jobs", retry_safe=True, params={k: v for k, v in params.items() if v is not None}
        )

    # --- results ---------------------------------------------------------------------------------

    async def result_link(self, job: str | Mapping[str, Any], *, asset: Literal["result", "source"] = "result") -> ResultLink:
        """A fresh signed link to the result (or the source), valid 300 s."""
        job_id = _base.job_id_of(job)
        params = {"redirect": "false", "asset": asset}
        return await self._json("GET", f"/jobs/{_base.quote(job_id)}/result", retry_safe=True, params=params)

    @asynccontextmanager
    async def stream_download(
        self, job: str | Mapping[str, Any], *, asset: Literal["result", "source"] = "result"
    ) -> AsyncIterator[AsyncIterator[bytes]]:
        """The file's bytes as they arrive: ``async with client.stream_download(job) as chunks: async for chunk in chunks: ...``.

        The bytes come from the signed link, which is fetched without the API key."""
        link = await self.result_link(job, asset=asset)
        try:
            async with self._http.stream("GET", urljoin(self._options.base_url, link["url"]), timeout=self._options.timeout) as response:
                _base.check_response(response)
                yield _counted(response.aiter_bytes(), link["bytes"])
        except httpx.TransportError as exc:
            raise _base.connection_error(exc) from exc

    async def download(
        self,
        job: str | Mapping[str, Any],
        to: str | os.PathLike[str] | IO[bytes],
        *,
        asset: Literal["result", "source"] = "result",
    ) -> int:
        """Save the result (or the source) to a path or a writable binary stream; answers the byte count.

        A path is written whole or not at all (a temporary file beside it, renamed at the end)."""
        if hasattr(to, "write"):
            written = 0
            async with self.stream_download(job, asset=asset) as chunks:
                async for chunk in chunks:
                    await _io.resolve(to.write(chunk))
                    written += len(chunk)
            return written
        path = Path(to)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
        try:
            with os.fdopen(fd, "wb") as out:
                written = await self.download(job, out, asset=asset)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
        return written

    # --- account ---------------------------------------------------------------------------------

    async def get_account(self) -> Account:
        """The caller's account: ``balance``, ``reserved``, ``charged`` credits."""
        return await self._json("GET", "/account", retry_safe=True)


    # --- API keys and webhook endpoints (docs/api.md) -------------------------------------------

    async def list_api_keys(self) -> ApiKeyList:
        """Every key of the account, revoked ones included (scope keys:read)."""
        return await self._json("GET", "/api_keys", retry_safe=True)

    async def create_api_key(
        self, scopes: list[Scope], *, name: str | None = None, rate_limit_per_minute: int | None = None
    ) -> ApiKeyCreated:
        """A new key (scope keys:write); its ``key`` is shown only in this answer."""
        body = _base.drop_none({"scopes": scopes, "name": name, "rate_limit_per_minute": rate_limit_per_minute})
        return await self._json("POST", "/api_keys", retry_safe=False, json=body)

    async def revoke_api_key(self, key_id: str) -> ApiKey:
        return await self._json("DELETE", f"/api_keys/{_base.quote(key_id)}", retry_safe=False)

    async def create_webhook_endpoint(
        self, url: str, *, events: list[WebhookEventType] | None = None, description: str | None = None
    ) -> WebhookEndpointCreated:
        """Register an ``https://`` endpoint (scope webhooks:write); its ``secret`` (for
        :func:`upscaler.verify_webhook`) is shown only in this answer."""
        body = _base.drop_none({"url": url, "events": events, "description": description})
        return await self._json("POST", "/webhook_endpoints", retry_safe=False, json=body)

    async def list_webhook_endpoints(self) -> WebhookEndpointList:
        return await self._json("GET", "/webhook_endpoints", retry_safe=True)

    async def get_webhook_endpoint(self, endpoint_id: str) -> WebhookEndpoint:
        return await self._json("GET", f"/webhook_endpoints/{_base.quote(endpoint_id)}", retry_safe=True)

    async def delete_webhook_endpoint(self, endpoint_id: str) -> WebhookEndpoint:
        """Disables the endpoint for good (it stays listed as ``disabled``)."""
        path = f"/webhook_endpoints/{_base.quote(endpoint_id)}"
        return await self._json("DELETE", path, retry_safe=False)

    async def list_deliveries(self, endpoint_id: str, *, limit: int | None = None) -> DeliveryAttemptList:
        """The endpoint's delivery log: every attempt of its latest ``limit`` deliveries."""
        path = f"/webhook_endpoints/{_base.quote(endpoint_id)}/deliveries"
        return await self._json("GET", path, retry_safe=True, params=_base.drop_none({"limit": limit}))

    async def rotate_webhook_secret(self, endpoint_id: str, *, overlap_seconds: int | None = None) -> WebhookEndpointCreated:
        """A new ``secret`` (shown once); for ``overlap_seconds`` (default 86,400) deliveries carry
        both signatures, so :func:`upscaler.verify_webhook` accepts either secret meanwhile."""
        path = f"/webhook_endpoints/{_base.quote(endpoint_id)}/rotate_secret"
        body = _base.drop_none({"overlap_seconds": overlap_seconds})
        return await self._json("POST", path, retry_safe=False, json=body)

    async def enable_webhook_endpoint(self, endpoint_id: str) -> WebhookEndpoint:
        """Deliveries again to an endpoint disabled by a 410 answer (events from now on)."""
        path = f"/webhook_endpoints/{_base.quote(endpoint_id)}/enable"
        return await self._json("POST", path, retry_safe=False)

    async def send_test_webhook(self, endpoint_id: str) -> WebhookDelivery:
        """Schedules a ``webhook.test`` delivery to the endpoint."""
        path = f"/webhook_endpoints/{_base.quote(endpoint_id)}/test"
        return await self._json("POST", path, retry_safe=False)

    async def redeliver_webhook(self, endpoint_id: str, delivery_id: str) -> WebhookDelivery:
        """Sends a delivery again (same body, same ``webhook-id``, signed anew)."""
        path = f"/webhook_endpoints/{_base.quote(endpoint_id)}/deliveries/{_base.quote(delivery_id)}/redeliver"
        return await self._json("POST", path, retry_safe=False)

class AsyncJobPager:
    """Iterates over jobs across pages of ``GET /jobs`` (``while has_more: starting_after=next_cursor``)."""

    def __init__(self, client: AsyncUpscaler, *, status: str | None, limit: int | None, starting_after: str | None) -> None:
        self._client = client
        self._status = status
        self._limit = limit
        self._starting_after = starting_after

    async def pages(self) -> AsyncIterator[JobList]:
        cursor = self._starting_after
        while True:
            page = await self._client.list_jobs_page(status=self._status, limit=self._limit, starting_after=cursor)  # type: ignore[arg-type]
            yield page
            if not page["has_more"] or not page["next_cursor"]:
                return
            cursor = page["next_cursor"]

    async def __aiter__(self) -> AsyncIterator[JobListItem]:
        async for page in self.pages():
            for item in page["data"]:
                yield item


async def _read_image(image: ImageInput, filename: str | None) -> _base.UploadPart:
    if isinstance(image, (bytes, bytearray, memoryview)):
        return _base.upload_from_bytes(image, filename)
    if isinstance(image, (str, os.PathLike)):
        part = await _io.run_blocking(_base.upload_from_path, image)
        return part if filename is None else _base.UploadPart(filename, part.content, part.content_type)
    if hasattr(image, "read"):
        return _base.upload_from_read(await _io.resolve(image.read()), image, filename)
    raise TypeError(f"image must be a path, bytes, a binary file object or an https:// URL, not {type(image).__name__}")


async def _counted(chunks: AsyncIterator[bytes], expected: int) -> AsyncIterator[bytes]:
    """Passes the chunks on and checks, at the end, that the file is whole."""
    received = 0
    async for chunk in chunks:
        received += len(chunk)
        yield chunk
    if received != expected:
        raise UpscalerError(f"download incomplete: {received} of {expected} bytes")
