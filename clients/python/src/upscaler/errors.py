"""Typed errors, one class per stable ``error.code`` of the API (docs/api.md, "Errors"), generated into
_api_errors.py from the OpenAPI document (python -m upscaler._generate).

Every error answer is ``{"error": {"code", "message"}}``: :func:`api_error_from_response` picks the
class registered for ``code``, else the class for the HTTP status, else :class:`APIError`. Catch a
broad class (``NotFoundError``, ``BadRequestError``) or an exact one (``JobNotFoundError``); branch
on ``err.code``, never on the message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import httpx

from . import _api_errors
from ._api_errors import *  # noqa: F403 (one class per status and code, generated from the OpenAPI document)
from ._error_base import APIError, UpscalerError

if TYPE_CHECKING:
    from .types import Job

__all__ = [
    "UpscalerError",
    "APIConnectionError",
    "APITimeoutError",
    "APIError",
    "JobError",
    "JobFailedError",
    "JobCancelledError",
    "WaitTimeoutError",
    "WebhookVerificationError",
    "ERROR_CODES",
    "api_error_from_response",
]
__all__ += _api_errors.__all__


class APIConnectionError(UpscalerError):
    """No answer: DNS, connection or TLS failure (after the retries)."""


class APITimeoutError(APIConnectionError):
    """No answer within the client's timeout (after the retries)."""


def _registry() -> tuple[dict[str, type[APIError]], dict[int, type[APIError]]]:
    by_code: dict[str, type[APIError]] = {}
    by_status: dict[int, type[APIError]] = {}
    stack: list[type[APIError]] = [APIError]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.error_code is not None:
            by_code[cls.error_code] = cls
        # the class of a status is the broadest one carrying it (BadRequestError, not InvalidTargetError)
        if cls.http_status is not None and (cls.http_status not in by_status or issubclass(by_status[cls.http_status], cls)):
            by_status[cls.http_status] = cls
    return by_code, by_status


ERROR_CODES, _BY_STATUS = _registry()
"""``error.code`` -> its exception class."""


def api_error_from_response(response: httpx.Response) -> APIError:
    """The typed error for an error answer (any non-2xx status)."""
    body: Any = None
    code = "unknown"
    message = response.reason_phrase or "error"
    try:
        body = response.json()
    except ValueError:
        body = response.text
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        code = str(body["error"].get("code", code))
        message = str(body["error"].get("message", message))
    cls = ERROR_CODES.get(code) or _BY_STATUS.get(response.status_code) or APIError
    return cls(
        message,
        status=response.status_code,
        code=code,
        request_id=response.headers.get("x-request-id"),
        headers=response.headers,
        body=body,
    )


class JobError(UpscalerError):
    """A job waited for ended without a result. ``job`` is the final job."""

    def __init__(self, message: str, job: Job) -> None:
        super().__init__(message)
        self.job = job


class JobFailedError(JobError):
    """The job failed; ``code`` is its ``error.code`` (engine_error, corrupt_image, ...)."""

    def __init__(self, job: Job) -> None:
        error: Mapping[str, Any] = job.get("error") or {}
        self.code: str = str(error.get("code", "unknown"))
        self.message: str = str(error.get("message", ""))
        super().__init__(f"job {job['id']} failed: {self.code}: {self.message}", job)


class JobCancelledError(JobError):
    """The job was cancelled before it finished."""

    def __init__(self, job: Job) -> None:
        super().__init__(f"job {job['id']} was cancelled", job)


class WaitTimeoutError(UpscalerError):
    """The job was not final when the wait ran out. ``job`` is the last view seen (not final)."""

    def __init__(self, job: Any, timeout: float) -> None:
        super().__init__(f"job {job['id']} still {job['status']} after {timeout:g} s")
        self.job = job
        self.timeout = timeout


class WebhookVerificationError(UpscalerError):
    """A webhook delivery whose signature, headers or timestamp do not verify: reject it."""
