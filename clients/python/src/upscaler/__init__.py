"""Python client of the Upscaler image-upscaling API (v1): sync and async, on httpx.

    from upscaler import Upscaler
    with Upscaler() as client:                       # UPSCALER_API_KEY, UPSCALER_BASE_URL
        job = client.upscale("photo.jpg", target="4k", format="webp", wait=True)
        client.download(job, "photo-4x.webp")
"""

from ._version import __version__
from .async_client import AsyncJobPager, AsyncUpscaler
from .client import JobPager, Upscaler
from .errors import *  # noqa: F403 (the typed errors are part of the package's surface)
from .errors import __all__ as _errors_all
from .types import Account, Job, JobCancel, JobCreate, JobList, JobListItem, ResultLink, WebhookPayload, WebhookTestPayload
from .webhooks import WebhookVerifier, verify_webhook

__all__ = [
    "__version__",
    "Upscaler",
    "AsyncUpscaler",
    "JobPager",
    "AsyncJobPager",
    "WebhookVerifier",
    "verify_webhook",
    "Account",
    "Job",
    "JobCancel",
    "JobCreate",
    "JobList",
    "JobListItem",
    "ResultLink",
    "WebhookPayload",
    "WebhookTestPayload",
    *_errors_all,
]
