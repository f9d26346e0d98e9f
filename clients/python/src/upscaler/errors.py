"""Typed errors, one class per stable ``error.code`` of the API (docs/api.md, "Errors").

Every error answer is ``{"error": {"code", "message"}}``: :func:`api_error_from_response` picks the
class registered for ``code``, else the class for the HTTP status, else :class:`APIError`. Catch a
broad class (``NotFoundError``, ``BadRequestError``) or an exact one (``JobNotFoundError``); branch
on ``err.code``, never on the message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import httpx

if TYPE_CHECKING:
    from .types import Job

__all__ = [
    "UpscalerError",
    "APIConnectionError",
    "APITimeoutError",
    "APIError",
    "BadRequestError",
    "InvalidRequestError",
    "InvalidTargetError",
    "InvalidFormatError",
    "InvalidImageUrlError",
    "ImageFetchFailedError",
    "ImageTooLargeToUpscaleError",
    "AnimatedImageError",
    "InvalidImageError",
    "ImageDimensionsTooLargeError",
    "IdempotencyKeyReusedError",
    "InvalidCursorError",
    "InvalidSizeError",
    "SizeOutOfReachError",
    "AuthenticationError",
    "InsufficientCreditsError",
    "PermissionDeniedError",
    "NotFoundError",
    "JobNotFoundError",
    "RouteNotFoundError",
    "MethodNotAllowedError",
    "ConflictError",
    "ApiKeyLimitReachedError",
    "WebhookEndpointLimitReachedError",
    "WebhookEndpointDisabledError",
    "WebhookEndpointDeletedError",
    "ResultNotReadyError",
    "IdempotencyInProgressError",
    "GoneError",
    "FilesExpiredError",
    "PayloadTooLargeError",
    "UnsupportedMediaTypeError",
    "UnsupportedCharsetError",
    "UnsupportedContentEncodingError",
    "RateLimitError",
    "InternalServerError",
    "ServiceUnavailableError",
    "BillingUnavailableError",
    "JobError",
    "JobFailedError",
    "JobCancelledError",
    "WaitTimeoutError",
    "WebhookVerificationError",
    "ERROR_CODES",
    "api_error_from_response",
]


class UpscalerError(Exception):
    """Base of every error this package raises."""


class APIConnectionError(UpscalerError):
    """No answer: DNS, connection or TLS failure (after the retries)."""


class APITimeoutError(APIConnectionError):
    """No answer within the client's timeout (after the retries)."""


class APIError(UpscalerError):
    """An error answer of the API. ``code`` is the stable ``error.code``; ``status`` the HTTP status."""

    http_status: ClassVar[int | None] = None
    error_code: ClassVar[str | None] = None

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str,
        request_id: str | None = None,
        headers: httpx.Headers | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(f"{code} (HTTP {status}): {message}")
        self.message = message
        self.status_code = status
        self.code = code
        self.request_id = request_id
        self.headers = headers if headers is not None else httpx.Headers()
        self.body = body


class BadRequestError(APIError):
    http_status = 400


class InvalidRequestError(BadRequestError):
    error_code = "invalid_request"


class InvalidTargetError(BadRequestError):
    error_code = "invalid_target"


class InvalidFormatError(BadRequestError):
    error_code = "invalid_format"


class InvalidImageUrlError(BadRequestError):
    error_code = "invalid_image_url"


class ImageFetchFailedError(BadRequestError):
    error_code = "image_fetch_failed"


class ImageTooLargeToUpscaleError(BadRequestError):
    error_code = "image_too_large_to_upscale"


class AnimatedImageError(BadRequestError):
    error_code = "animated_image"


class InvalidImageError(BadRequestError):
    error_code = "invalid_image"


class ImageDimensionsTooLargeError(BadRequestError):
    error_code = "image_dimensions_too_large"


class IdempotencyKeyReusedError(BadRequestError):
    error_code = "idempotency_key_reused"


class InvalidCursorError(BadRequestError):
    error_code = "invalid_cursor"


class InvalidSizeError(BadRequestError):
    error_code = "invalid_size"


class SizeOutOfReachError(BadRequestError):
    error_code = "size_out_of_reach"


class AuthenticationError(APIError):
    http_status = 401
    error_code = "unauthorized"


class InsufficientCreditsError(APIError):
    http_status = 402
    error_code = "insufficient_credits"


class PermissionDeniedError(APIError):
    http_status = 403
    error_code = "forbidden"


class NotFoundError(APIError):
    http_status = 404
    error_code = "not_found"


class JobNotFoundError(NotFoundError):
    error_code = "job_not_found"


class RouteNotFoundError(NotFoundError):
    error_code = "route_not_found"


class MethodNotAllowedError(APIError):
    http_status = 405
    error_code = "method_not_allowed"


class ConflictError(APIError):
    http_status = 409
    error_code = "conflict"


class ApiKeyLimitReachedError(ConflictError):
    error_code = "api_key_limit_reached"


class WebhookEndpointLimitReachedError(ConflictError):
    error_code = "webhook_endpoint_limit_reached"


class WebhookEndpointDisabledError(ConflictError):
    error_code = "webhook_endpoint_disabled"


class WebhookEndpointDeletedError(ConflictError):
    error_code = "webhook_endpoint_deleted"


class ResultNotReadyError(ConflictError):
    error_code = "result_not_ready"


class IdempotencyInProgressError(ConflictError):
    error_code = "idempotency_in_progress"


class GoneError(APIError):
    http_status = 410


class FilesExpiredError(GoneError):
    error_code = "files_expired"


class PayloadTooLargeError(APIError):
    http_status = 413
    error_code = "payload_too_large"


class UnsupportedMediaTypeError(APIError):
    http_status = 415
    error_code = "unsupported_media_type"


class UnsupportedCharsetError(UnsupportedMediaTypeError):
    error_code = "unsupported_charset"


class UnsupportedContentEncodingError(UnsupportedMediaTypeError):
    error_code = "unsupported_content_encoding"


class RateLimitError(APIError):
    http_status = 429
    error_code = "rate_limited"


class InternalServerError(APIError):
    http_status = 500
    error_code = "internal_error"


class ServiceUnavailableError(APIError):
    http_status = 503
    error_code = "service_unavailable"


class BillingUnavailableError(ServiceUnavailableError):
    error_code = "billing_unavailable"


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
