"""What the sync and the async client share: options, request shapes, the retry rule, the wait rule.

Nothing here does I/O; ``client.py`` and ``async_client.py`` do it, each in its own style.
"""

from __future__ import annotations

import email.utils
import mimetypes
import os
import random
import time
import urllib.parse
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypedDict, Union

import httpx

from ._version import __version__
from .errors import APIConnectionError, APITimeoutError, IdempotencyInProgressError, UpscalerError
from .types import ContentHint, Job, OutputFormat, QualityTier, SizeFit, Target

DEFAULT_BASE_URL = "http://127.0.0.1:8080/api/v1"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 3
#: A Retry-After longer than this is not waited for: the error is raised (a rate-limit window is 60 s).
DEFAULT_MAX_RETRY_AFTER = 60.0
#: The server holds a `Prefer: wait=N` request for at most 60 s.
MAX_PREFER_WAIT = 60
#: With on_progress, a held request lasts at most this many seconds: the callback hears progress that often.
PROGRESS_HOLD = 2
FINAL_STATUSES = frozenset({"succeeded", "failed", "cancelled"})

ImageInput = Union[str, os.PathLike[str], bytes, bytearray, memoryview, IO[bytes]]
"""A path, the bytes, a binary file object, or an ``https://`` URL the service fetches."""

ProgressCallback = Callable[[float | None, Job], Any]
"""Called as ``on_progress(progress, job)`` whenever a job's status or ``progress`` changes while
waiting. ``progress`` is the job's ``progress`` (0 to 1) where the server reports it, else None."""


class UpscaleOptions(TypedDict, total=False):
    """The options of ``upscale`` besides the image and ``wait`` (what its overloads take as ``**options``)."""

    target: Target | None
    format: OutputFormat | None
    quality: QualityTier | None
    content: ContentHint | None
    filename: str | None
    width: int | None
    height: int | None
    fit: SizeFit | None
    on_progress: ProgressCallback | None
    idempotency_key: str | None
    raise_on_failure: bool


@dataclass(frozen=True)
class ClientOptions:
    api_key: str
    base_url: str
    timeout: float
    max_retries: int
    max_retry_after: float
    poll_interval: float
    max_poll_interval: float
    headers: Mapping[str, str] = field(default_factory=dict)


def resolve_options(
    api_key: str | None,
    base_url: str | None,
    timeout: float,
    max_retries: int,
    max_retry_after: float,
    poll_interval: float,
    max_poll_interval: float,
) -> ClientOptions:
    key = api_key if api_key is not None else os.environ.get("UPSCALER_API_KEY")
    if not key:
        raise UpscalerError("no API key: pass api_key= or set UPSCALER_API_KEY")
    url = (base_url or os.environ.get("UPSCALER_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    # the service's origin (plus any mount prefix) or its /api/v1 address, as the TypeScript SDK and
    # the CLI take UPSCALER_BASE_URL
    if not url.endswith("/api/v1"):
        url += "/api/v1"
    return ClientOptions(
        api_key=key,
        base_url=url,
        timeout=timeout,
        max_retries=max_retries,
        max_retry_after=max_retry_after,
        poll_interval=poll_interval,
        max_poll_interval=max_poll_interval,
        headers={"user-agent": f"upscaler-python/{__version__}", "accept": "application/json"},
    )


def auth_headers(options: ClientOptions, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The API key goes on each API request, never as a client default: a signed download URL
    (possibly another host: S3) must not receive it."""
    headers = {"authorization": f"Bearer {options.api_key}"}
    if extra:
        headers.update(extra)
    return headers


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


# --- upscale request -------------------------------------------------------------------------------


@dataclass
class UploadPart:
    filename: str
    content: bytes
    content_type: str


def is_url(image: object) -> bool:
    return isinstance(image, str) and image.startswith(("https://", "http://"))


def upload_from_path(path: str | os.PathLike[str]) -> UploadPart:
    p = Path(path)
    return UploadPart(p.name, p.read_bytes(), _content_type(p.name))


def upload_from_bytes(data: bytes | bytearray | memoryview, filename: str | None) -> UploadPart:
    name = filename or "image"
    return UploadPart(name, bytes(data), _content_type(name))


def upload_from_read(data: Any, file: Any, filename: str | None) -> UploadPart:
    if isinstance(data, str):
        raise TypeError("the file object must be opened in binary mode ('rb')")
    name = filename or os.path.basename(str(getattr(file, "name", "") or "")) or "image"
    return UploadPart(name, bytes(data), _content_type(name))


def _content_type(name: str) -> str:
    # informative only: the service detects the format from the bytes (spec 1)
    guessed, _ = mimetypes.guess_type(name)
    return guessed if guessed and guessed.startswith("image/") else "application/octet-stream"


def upscale_fields(
    target: str | None,
    format: str | None,
    quality: str | None,
    filename: str | None,
    content: str | None = None,
    width: int | None = None,
    height: int | None = None,
    fit: str | None = None,
) -> dict[str, str | int]:
    fields: dict[str, str | int | None] = {
        "target": target,
        "format": format,
        "quality": quality,
        "content": content,
        "filename": filename,
        "width": width,
        "height": height,
        "fit": fit,
    }
    return {k: v for k, v in fields.items() if v is not None}


def upscale_request(image_url: str | None, upload: UploadPart | None, fields: dict[str, str | int]) -> dict[str, Any]:
    """httpx keyword arguments for POST /upscale: JSON for a URL (width and height as numbers), multipart for a file
    (every field as text)."""
    if image_url is not None:
        return {"json": {"image_url": image_url, **fields}}
    assert upload is not None
    data = {k: str(v) for k, v in fields.items()}
    return {"files": {"image": (upload.filename, upload.content, upload.content_type)}, "data": data}


def prefer_wait(seconds_left: float | None, progress: bool = False) -> int:
    """N of `Prefer: wait=N`: what is left of the caller's wait, between 1 and 60; with a progress
    callback at most PROGRESS_HOLD, so that a held request comes back with news that often."""
    cap = PROGRESS_HOLD if progress else MAX_PREFER_WAIT
    if seconds_left is None:
        return cap
    return max(1, min(cap, int(seconds_left)))


def preference_applied(response: httpx.Response) -> bool:
    """True when the server says it held the request (`Preference-Applied: wait=N`)."""
    return "wait" in response.headers.get("preference-applied", "").lower()


def quote(path_segment: str) -> str:
    return urllib.parse.quote(path_segment, safe="")


def drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}


def job_id_of(job: str | Mapping[str, Any]) -> str:
    return job if isinstance(job, str) else str(job["id"])


# --- retries ---------------------------------------------------------------------------------------


def retry_after_seconds(response: httpx.Response) -> float | None:
    """Retry-After as seconds (delta-seconds or an HTTP date, RFC 9110 10.2.3), or None."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def backoff_seconds(attempt: int) -> float:
    """Without Retry-After: 0.5 s, 1 s, 2 s, ... up to 8 s, with full jitter on the upper half."""
    base = min(8.0, 0.5 * 2**attempt)
    return base / 2 + random.uniform(0, base / 2)


@dataclass
class RetryDecision:
    retry: bool
    delay: float = 0.0


def decide_retry(
    options: ClientOptions, attempt: int, response: httpx.Response | None, retry_safe: bool
) -> RetryDecision:
    """Whether to send the request again, and after how long.

    429 and 503 are retried after Retry-After (docs/api.md: every 429 and 503 carries it); 409
    idempotency_in_progress ("retry shortly, with the same key") and, for requests safe to repeat
    (GETs, and POST /upscale with its Idempotency-Key), a lost connection with backoff.
    """
    if attempt >= options.max_retries:
        return RetryDecision(False)
    if response is None:
        return RetryDecision(retry_safe, backoff_seconds(attempt))
    if response.status_code in (429, 503):
        after = retry_after_seconds(response)
        if after is None:
            return RetryDecision(True, backoff_seconds(attempt))
        return RetryDecision(after <= options.max_retry_after, after)
    if response.status_code == 409 and retry_safe and _error_code(response) == IdempotencyInProgressError.error_code:
        return RetryDecision(True, retry_after_seconds(response) or backoff_seconds(attempt))
    return RetryDecision(False)


def _error_code(response: httpx.Response) -> str | None:
    try:
        body = response.json()
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    return error.get("code") if isinstance(error, dict) else None


def connection_error(exc: httpx.TransportError) -> APIConnectionError:
    if isinstance(exc, httpx.TimeoutException):
        return APITimeoutError(f"no answer in time: {exc!r}")
    return APIConnectionError(f"no answer: {exc!r}")


# --- waiting ---------------------------------------------------------------------------------------


class ProgressReporter:
    """Calls the callback when (status, progress) differs from the last view it saw."""

    def __init__(self, callback: ProgressCallback | None) -> None:
        self.callback = callback
        self.last: tuple[Any, Any] | None = None

    def see(self, job: Job) -> Any:
        """Answers what the callback answered (an awaitable, for a coroutine function)."""
        progress = job.get("progress")  # additive field: absent on servers without it
        state = (job.get("status"), progress)
        if self.callback is None or state == self.last:
            return None
        self.last = state
        return self.callback(float(progress) if isinstance(progress, (int, float)) else None, job)


class Deadline:
    def __init__(self, timeout: float | None) -> None:
        self.timeout = timeout
        self.at = None if timeout is None else time.monotonic() + timeout

    def left(self) -> float | None:
        return None if self.at is None else self.at - time.monotonic()

    def passed(self) -> bool:
        left = self.left()
        return left is not None and left <= 0


def wait_timeout(wait: bool | float | None) -> float | None:
    """`wait=True`: until the job is final (every job ends: docs/api.md, failed-job codes); a number: at most that."""
    return None if wait is True else float(wait)  # type: ignore[arg-type]


def request_timeout(options: ClientOptions, prefer: int | None) -> httpx.Timeout:
    """A held request (`Prefer: wait=N`) may take N seconds before its first byte."""
    if prefer is None:
        return httpx.Timeout(options.timeout)
    return httpx.Timeout(options.timeout, read=options.timeout + prefer)


def raise_for_final(job: Job, raise_on_failure: bool) -> Job:
    from .errors import JobCancelledError, JobFailedError

    if raise_on_failure and job["status"] == "failed":
        raise JobFailedError(job)
    if raise_on_failure and job["status"] == "cancelled":
        raise JobCancelledError(job)
    return job


def check_response(response: httpx.Response) -> httpx.Response:
    if response.status_code >= 400:
        from .errors import api_error_from_response

        raise api_error_from_response(response)
    return response

