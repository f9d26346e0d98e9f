"""The contract as outside tools see it (docs/api.md, "Generating your own client"): a client generated from
docs/openapi.json by openapi-python-client (the version pinned in pyproject.toml), used as its README says, runs
the main flow against a real standalone with no cast and no hand-written request: upload, wait, list with paging,
download through the redirect and through the signed link, cancel, and two typed errors. Only the generated
package is used to talk to the service; the operator API (not part of the flow) makes the account."""

from __future__ import annotations

import importlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import AccountKey, Service, gradient_image, image_info
from upscaler import _generate

PACKAGE = "upscaler_generated"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("generated")
    # no post hooks: the generator formats with ruff when it is on PATH, which changes nothing it emits
    config = out / "config.yaml"
    config.write_text("post_hooks: []\n", encoding="utf-8")
    run = subprocess.run(
        [
            str(Path(sys.executable).parent / "openapi-python-client"),
            "generate",
            "--path",
            str(_generate.DOCS_OPENAPI),
            "--meta",
            "none",
            "--config",
            str(config),
            "--output-path",
            str(out / PACKAGE),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    # What the generator skipped: only the two image answers it has no model for (a signed file and the dashboard's
    # icon), which a caller reads from the response's `content`; anything else it cannot parse fails here.
    skipped = sorted(line for line in (run.stdout + run.stderr).splitlines() if line.startswith("WARNING"))
    assert skipped == [
        "WARNING parsing GET /api/v1/files/{path} within files.",
        "WARNING parsing GET /dashboard/favicon.svg within dashboard.",
    ], run.stdout + run.stderr
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def test_the_main_flow_through_a_generated_client(
    generated: ModuleType, service: Service, make_account, tmp_path: Path
) -> None:
    from upscaler_generated.api.files import download_signed_file
    from upscaler_generated.api.jobs import cancel_job, create_job, download_result, get_job, list_jobs
    from upscaler_generated.models import (
        CreateJobFilesBody,
        CreateJobFilesBodyQuality,
        CreateJobFilesBodyTarget,
        Error,
        Job,
        JobCreate,
        JobList,
        ResultLink,
    )
    from upscaler_generated.types import UNSET, File

    acct: AccountKey = make_account(credits=40)
    client = generated.AuthenticatedClient(base_url=service.base_url, token=acct.key)

    # upload (multipart, the image as a File) and wait (Prefer: wait=N as a generated header parameter)
    image = gradient_image(40, 30)
    created = [
        create_job.sync_detailed(
            client=client,
            body=CreateJobFilesBody(image=File(payload=image, file_name=f"photo-{i}.png", mime_type="image/png"),
                target=CreateJobFilesBodyTarget("2k"),
            ),
        )
        for i in range(2)
    ]
    assert [(r.status_code, type(r.parsed)) for r in created] == [(202, JobCreate), (202, JobCreate)], [r.content for r in created]
    job_id = created[1].parsed.id
    job = None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        answer = get_job.sync_detailed(job_id, client=client, prefer="wait=30")
        assert answer.status_code == 200 and isinstance(answer.parsed, Job)
        job = answer.parsed
        if job.status in ("succeeded", "failed", "cancelled"):
            break
    assert job is not None and job.status == "succeeded"
    assert (job.result.width, job.result.height, job.quality, job.filename) == (80, 60, "fast", "photo-1.png")

    # list with paging: one job a page, the second page after the first's cursor
    first = list_jobs.sync_detailed(client=client, limit=1)
    assert first.status_code == 200 and isinstance(first.parsed, JobList) and first.parsed.has_more
    second = list_jobs.sync_detailed(client=client, limit=1, starting_after=first.parsed.next_cursor)
    assert [first.parsed.data[0].id, second.parsed.data[0].id] == [created[1].parsed.id, created[0].parsed.id]

    # the result through the redirect: 302, and its Location is the declared signed-file operation
    redirected = download_result.sync_detailed(job_id, client=client)
    assert redirected.status_code == 302
    location = urlsplit(redirected.headers["location"])
    query = {k: v[0] for k, v in parse_qs(location.query).items()}
    via_redirect = download_signed_file.sync_detailed(
        location.path.removeprefix("/api/v1/files/"),
        client=client,
        expires=query["expires"],
        name=query.get("name", UNSET),
        type_=query.get("type", UNSET),
        sig=query["sig"],
    )
    assert via_redirect.status_code == 200
    assert via_redirect.headers["content-type"] == "image/png"
    assert image_info(via_redirect.content) == ("PNG", (80, 60))
    # and through the signed link (redirect=false answers it as JSON)
    link = download_result.sync_detailed(job_id, client=client, redirect=False)
    assert link.status_code == 200 and isinstance(link.parsed, ResultLink)
    signed = urlsplit(link.parsed.url)
    params = {k: v[0] for k, v in parse_qs(signed.query).items()}
    via_link = download_signed_file.sync_detailed(
        signed.path.removeprefix("/api/v1/files/"), client=client, expires=params["expires"],
        name=params.get("name", UNSET),
        type_=params.get("type", UNSET),
        sig=params["sig"],
    )
    assert (via_link.status_code, len(via_link.content)) == (200, link.parsed.bytes_)

    # cancel a job while it waits or runs (a long one: 1024x1024 at 4k, best), refunded
    long = create_job.sync_detailed(
        client=client,
        body=CreateJobFilesBody(
            image=File(payload=gradient_image(1024, 1024), file_name="long.png", mime_type="image/png"),
            target=CreateJobFilesBodyTarget("4k"),
            quality=CreateJobFilesBodyQuality.BEST,
        ),
    )
    assert long.status_code == 202
    cancelled = cancel_job.sync_detailed(long.parsed.id, client=client)
    assert (cancelled.status_code, cancelled.parsed.status, cancelled.parsed.credits_) == (200, "cancelled", 9)

    # two typed errors: a job that is not there (404), and a result that is not ready (409), each with its code
    # both parsed as the one Error model every error answer shares
    missing = get_job.sync_detailed("job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b", client=client)
    assert (missing.status_code, type(missing.parsed), missing.parsed.error.code) == (404, Error, "job_not_found")
    not_ready = download_result.sync_detailed(long.parsed.id, client=client, redirect=False)
    assert (not_ready.status_code, type(not_ready.parsed), not_ready.parsed.error.code) == (409, Error, "result_not_ready")
    # a tier or error code the document does not know yet still parses: the answers' enumerations are open
    newer = Job.from_dict({**job.to_dict(), "quality": "ultra", "format": "jxl"})
    assert (newer.quality, newer.format_) == ("ultra", "jxl")
