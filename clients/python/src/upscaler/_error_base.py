"""The bases of the SDK's errors (upscaler.errors); the API's answers subclass APIError (_api_errors.py)."""

from __future__ import annotations

from typing import Any, ClassVar

import httpx


class UpscalerError(Exception):
    """Base of every error this package raises."""


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
