"""The generated types and the typed errors follow the API's OpenAPI document; the synchronous client is
async_client.py rendered by unasync."""

from __future__ import annotations

import json
import re
import typing

import pytest

import upscaler
from upscaler import _generate, _unasync, types


@pytest.mark.skipif(
    not _generate.DOCS_OPENAPI.exists(),
    reason="docs/openapi.json is missing; "
    "types.py was rendered from the built service's document (python -m upscaler._generate --source dist)",
)
def test_types_py_and_api_errors_py_are_fresh_renders_of_docs_openapi_json() -> None:
    document = _generate.DOCS_OPENAPI.read_text(encoding="utf-8")
    assert _generate.OUTPUT.read_text(encoding="utf-8") == _generate.render(document), "types.py is stale: run python -m upscaler._generate"
    assert _generate.ERRORS_OUTPUT.read_text(encoding="utf-8") == _generate.render_errors(document), (
        "_api_errors.py is stale: run python -m upscaler._generate"
    )


def test_error_classes_follow_x_error_codes() -> None:
    document = json.dumps(
        {
            "x-error-codes": {
                "invalid_request": {"status": 400, "message": 'A "quoted" reason.'},
                "teapot_busy": {"status": 409, "message": "Busy."},
                "conflict": {"status": 409, "message": "Already final."},
            }
        }
    )
    namespace: dict[str, typing.Any] = {}
    exec(_generate.render_errors(document).replace("from ._error_base import APIError", "from upscaler import APIError"), namespace)
    teapot, conflict, bad = namespace["TeapotBusyError"], namespace["ConflictError"], namespace["InvalidRequestError"]
    assert (teapot.__mro__[1], teapot.error_code, teapot.http_status, teapot.__doc__) == (conflict, "teapot_busy", 409, "Busy.")
    assert (conflict.error_code, conflict.__doc__, bad.__doc__) == ("conflict", "Already final.", 'A "quoted" reason.')
    assert namespace["__all__"] == ["BadRequestError", "InvalidRequestError", "ConflictError", "TeapotBusyError"]
    with pytest.raises(SystemExit, match=r"without a class in STATUS_CLASSES: \[418\]"):
        _generate.render_errors(json.dumps({"x-error-codes": {"teapot": {"status": 418, "message": "I am one."}}}))


def test_client_py_is_a_fresh_render_of_async_client_py() -> None:
    fresh = _unasync.render(_unasync.SOURCE.read_text(encoding="utf-8"))
    assert _unasync.OUTPUT.read_text(encoding="utf-8") == fresh, "client.py is stale: run python -m upscaler._unasync"
    assert re.findall(r"\bawait\b|\basync (?:def|with|for)\b|\bAsync[A-Z]\w*|\b_async_io\b", fresh) == []


def test_both_clients_offer_the_same_calls() -> None:
    def calls(cls: type) -> set[str]:
        return {name for name in vars(cls) if not name.startswith("__")}

    assert calls(upscaler.Upscaler) == calls(upscaler.AsyncUpscaler)
    assert calls(upscaler.JobPager) == calls(upscaler.AsyncJobPager)
    assert "download" in calls(upscaler.Upscaler) and "_json" in calls(upscaler.Upscaler)


@pytest.mark.skipif(not _generate.DOCS_OPENAPI.exists(), reason="docs/openapi.json is not in the repository yet")
def test_every_error_code_of_docs_openapi_json_has_its_class_or_is_a_failed_job_code() -> None:
    # the committed document, as the generated types: a code added to it comes with a class here
    document = json.loads(_generate.DOCS_OPENAPI.read_text(encoding="utf-8"))
    # answers' enumerations are open: anyOf [the known values, any string]
    def known(schema: dict) -> set:
        return set(schema.get("enum") or schema["anyOf"][0]["enum"])

    codes = known(document["components"]["schemas"]["Error"]["properties"]["error"]["properties"]["code"])
    failed_job_codes = known(document["components"]["schemas"]["Job"]["properties"]["error"]["properties"]["code"])
    assert failed_job_codes >= {
        "engine_error",
        "corrupt_image",
        "processing_timeout",
        "attempts_exhausted",
        "image_too_large_to_upscale",
        "animated_image",
        "unsupported_media_type",
    }
    assert codes - set(upscaler.ERROR_CODES) == failed_job_codes - set(upscaler.ERROR_CODES)


def test_the_generated_job_types_name_every_field_of_the_spec() -> None:
    assert set(typing.get_type_hints(types.Job)) >= {
        "id", "object", "status", "target", "filename", "credits", "error", "source", "result",
        "created_at", "finished_at", "duration_ms", "format", "quality", "requested_target",
    }  # fmt: skip
    assert set(typing.get_type_hints(types.JobListItem)) >= {"id", "object", "status", "target", "credits", "created_at"}
    assert typing.get_args(types.JobStatus) == ("pending", "queued", "processing", "succeeded", "failed", "cancelled")
