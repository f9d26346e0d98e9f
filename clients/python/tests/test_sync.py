"""The synchronous client against a real standalone (tests/conftest.py)."""

from __future__ import annotations

import io
import time
import uuid
from pathlib import Path

import httpx
import pytest

import upscaler
from upscaler import Upscaler

from conftest import REPO_ROOT, Service, SideServer, AccountKey, gradient_image, image_info

BUTTERFLY = REPO_ROOT.parent / "shared" / "datasets" / "Set5" / "butterfly.png"


def client_for(service: Service, account: AccountKey, **options: object) -> Upscaler:
    return Upscaler(account.key, base_url=service.api_url, poll_interval=0.2, **options)  # type: ignore[arg-type]


def test_upscale_from_path_2k_png_waits_and_downloads_the_2x_image(service: Service, account: AccountKey, tmp_path: Path) -> None:
    # Set5's butterfly (256x256) where ../shared/datasets is beside the repository, else a gradient
    source = tmp_path / "butterfly.png"
    source.write_bytes(BUTTERFLY.read_bytes() if BUTTERFLY.exists() else gradient_image(64, 48))
    _, (width, height) = image_info(source.read_bytes())
    with client_for(service, account) as client:
        job = client.upscale(source, target="2k", format="png", quality="fast", wait=120)
        assert job["status"] == "succeeded"
        assert (job["target"], job["requested_target"], job["format"], job["quality"], job["credits"]) == ("2k", "2k", "png", "fast", 3)
        assert job["filename"] == "butterfly.png"
        # fields are only added within v1 (pixel sizes among them): the ones the spec names are matched
        assert (job["source"]["bytes"], job["source"]["content_type"]) == (source.stat().st_size, "image/png")
        assert job["result"] is not None and job["result"]["content_type"] == "image/png"
        out = tmp_path / "out" / "butterfly-2x.png"
        out.parent.mkdir()
        written = client.download(job, out)
        assert written == job["result"]["bytes"] == out.stat().st_size
        assert image_info(out.read_bytes()) == ("PNG", (2 * width, 2 * height))
        assert [p.name for p in out.parent.iterdir()] == ["butterfly-2x.png"]  # no temporary file left
        account_view = client.get_account()
        assert (account_view["balance"], account_view["reserved"], account_view["charged"]) == (97, 0, 3)


def test_upscale_from_bytes_3k_jpeg_and_download_to_a_stream(service: Service, account: AccountKey) -> None:
    with client_for(service, account) as client:
        job = client.upscale(gradient_image(24, 16), target="3k", format="jpeg", filename="g.png", wait=True)
        assert (job["status"], job["target"], job["credits"], job["filename"]) == ("succeeded", "3k", 6, "g.png")
        assert job["result"]["content_type"] == "image/jpeg"
        buffer = io.BytesIO()
        assert client.download(job["id"], buffer) == job["result"]["bytes"]
        assert image_info(buffer.getvalue()) == ("JPEG", (72, 48))
        with client.stream_download(job) as chunks:
            streamed = b"".join(chunks)
        assert streamed == buffer.getvalue()
        with client.stream_download(job, asset="source") as chunks:
            assert b"".join(chunks) == gradient_image(24, 16)


def test_upscale_from_a_file_object_4k_webp(service: Service, account: AccountKey, tmp_path: Path) -> None:
    path = tmp_path / "small.jpg"
    path.write_bytes(gradient_image(20, 12, "JPEG"))
    with client_for(service, account) as client, open(path, "rb") as f:
        job = client.upscale(f, target="4k", format="webp", wait=True)
        assert (job["status"], job["target"], job["credits"], job["filename"]) == ("succeeded", "4k", 9, "small.jpg")
        assert job["source"]["content_type"] == "image/jpeg"
        buffer = io.BytesIO()
        client.download(job, buffer)
        assert image_info(buffer.getvalue()) == ("WEBP", (80, 48))


def test_upscale_from_an_https_url(service: Service, account: AccountKey, side_server: SideServer) -> None:
    url = side_server.serve_image(f"{uuid.uuid4().hex}.png", gradient_image(16, 16))
    with client_for(service, account) as client:
        job = client.upscale(url, target="2k", wait=True)
        assert (job["status"], job["filename"]) == ("succeeded", url.rsplit("/", 1)[1])
        assert (job["source"]["bytes"], job["source"]["content_type"]) == (len(gradient_image(16, 16)), "image/png")
        buffer = io.BytesIO()
        client.download(job, buffer)
        assert image_info(buffer.getvalue()) == ("PNG", (32, 32))


def test_without_wait_upscale_answers_the_create_view_and_wait_for_job_finishes_it(service: Service, account: AccountKey) -> None:
    seen: list[tuple[str, float | None]] = []
    with client_for(service, account) as client:
        created = client.upscale(gradient_image(16, 16))
        assert created["status"] == "queued" and "result" not in created
        job = client.wait_for_job(created, timeout=120, on_progress=lambda progress, job: seen.append((job["status"], progress)))
        assert job["id"] == created["id"] and job["status"] == "succeeded"
    # one call per change of (status, progress), the last one the final job
    assert seen[-1][0] == "succeeded"
    assert len(seen) == len(set(seen))
    progresses = [p for _, p in seen if p is not None]
    assert all(0 <= p <= 1 for p in progresses) and progresses == sorted(progresses)


def test_wait_sends_prefer_wait_and_polls_get_jobs_until_final(service: Service, account: AccountKey) -> None:
    requests: list[httpx.Request] = []
    http = httpx.Client(event_hooks={"request": [requests.append]})
    with Upscaler(account.key, base_url=service.api_url, http_client=http, poll_interval=0.2) as client:
        job = client.upscale(gradient_image(16, 16), wait=30)
    http.close()
    assert job["status"] == "succeeded"
    assert requests[0].method == "POST" and requests[0].headers["prefer"] in {f"wait={n}" for n in (29, 30)}
    polls = requests[1:]
    assert all(r.method == "GET" and r.url.path == f"/api/v1/jobs/{job['id']}" for r in polls)
    assert all(1 <= int(r.headers["prefer"].removeprefix("wait=")) <= 30 for r in polls)


def test_the_service_holds_each_wait_request_so_the_client_never_pauses_and_progress_reaches_1(service: Service, account: AccountKey) -> None:
    # Prefer: wait=N is applied by the service: Preference-Applied on every answer
    exchanges: list[list[object]] = []
    hooks = {
        "request": [lambda r: exchanges.append([time.monotonic(), r.headers.get("prefer")])],
        "response": [lambda r: exchanges[-1].extend([time.monotonic(), r.headers.get("preference-applied")])],
    }
    seen: list[tuple[str, float | None]] = []
    with httpx.Client(event_hooks=hooks) as http, Upscaler(account.key, base_url=service.api_url, http_client=http, poll_interval=1.0) as client:
        job = client.upscale(
            gradient_image(512, 512), target="2k", quality="fast", wait=True, on_progress=lambda p, j: seen.append((j["status"], p))
        )
    assert (job["status"], job["progress"]) == ("succeeded", 1)
    assert (job["source"]["width"], job["source"]["height"], job["result"]["width"], job["result"]["height"]) == (512, 512, 1024, 1024)
    assert job["created_at"] <= job["started_at"] <= job["finished_at"]
    # with on_progress each request is held at most 2 s; every answer says it was held, and the next
    # request follows at once (a pause would be poll_interval, 1 s)
    assert all(prefer == "wait=2" and applied == "wait=2" for _, prefer, _, applied in exchanges), exchanges
    gaps = [exchanges[i + 1][0] - exchanges[i][2] for i in range(len(exchanges) - 1)]
    assert all(gap < 0.9 for gap in gaps), gaps
    assert seen[-1] == ("succeeded", 1.0)
    progresses = [p for _, p in seen if p is not None]
    assert progresses == sorted(progresses) and all(0 <= p <= 1 for p in progresses)


def test_the_same_idempotency_key_twice_makes_one_job_and_one_charge(service: Service, make_account) -> None:
    acct = make_account(credits=10)
    key = str(uuid.uuid4())
    image = gradient_image(16, 16)
    with client_for(service, acct) as client:
        first = client.upscale(image, idempotency_key=key)
        again = client.upscale(image, idempotency_key=key)
        assert again["id"] == first["id"]
        client.wait_for_job(first)
        replay = client.upscale(image, idempotency_key=key)
        assert (replay["id"], replay["status"]) == (first["id"], "succeeded")
        assert [j["id"] for j in client.list_jobs()] == [first["id"]]
        account_view = client.get_account()
        assert (account_view["balance"], account_view["reserved"], account_view["charged"]) == (7, 0, 3)
        with pytest.raises(upscaler.IdempotencyKeyReusedError) as err:
            client.upscale(image, idempotency_key=key, target="3k")
        assert (err.value.status_code, err.value.code) == (400, "idempotency_key_reused")


class DropFirstAnswer(httpx.HTTPTransport):
    """Sends the first POST, then loses its answer (a connection reset after the server acted)."""

    def __init__(self) -> None:
        super().__init__()
        self.posts: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.method == "POST":
            self.posts.append(request)
            if len(self.posts) == 1:
                response.read()
                response.close()
                raise httpx.ReadError("connection reset", request=request)
        return response


def test_a_submit_whose_answer_was_lost_is_retried_with_its_key_and_charged_once(service: Service, make_account) -> None:
    acct = make_account(credits=10)
    transport = DropFirstAnswer()
    with httpx.Client(transport=transport) as http, Upscaler(acct.key, base_url=service.api_url, http_client=http) as client:
        job = client.upscale(gradient_image(16, 16), wait=True)
        assert len(transport.posts) == 2
        keys = {p.headers["idempotency-key"] for p in transport.posts}
        assert len(keys) == 1 and uuid.UUID(keys.pop()).version == 4
        assert [j["id"] for j in client.list_jobs()] == [job["id"]]
        account_view = client.get_account()
        assert (account_view["balance"], account_view["charged"]) == (7, 3)


def test_each_upscale_call_gets_its_own_idempotency_key(service: Service, account: AccountKey) -> None:
    with client_for(service, account) as client:
        a = client.upscale(gradient_image(16, 16))
        b = client.upscale(gradient_image(16, 16))
        assert a["id"] != b["id"]


def test_list_jobs_iterates_over_every_page_newest_first(service: Service, make_account) -> None:
    acct = make_account(credits=30)
    with client_for(service, acct) as client:
        ids = [client.upscale(gradient_image(8 + i, 8))["id"] for i in range(5)]
        assert [j["id"] for j in client.list_jobs(limit=2)] == ids[::-1]
        pages = list(client.list_jobs(limit=2).pages())
        assert [[j["id"] for j in p["data"]] for p in pages] == [ids[4:2:-1], ids[2:0:-1], ids[:1]]
        assert [(p["has_more"], p["next_cursor"]) for p in pages] == [(True, ids[3]), (True, ids[1]), (False, None)]
        assert [j["id"] for j in client.list_jobs(limit=2, starting_after=ids[3])] == ids[2::-1]
        for job_id in ids:
            client.wait_for_job(job_id, raise_on_failure=False)
        assert [j["id"] for j in client.list_jobs(status="succeeded", limit=3)] == ids[::-1]
        assert list(client.list_jobs(status="failed")) == []


def test_errors_are_typed_by_code(service: Service, make_account) -> None:
    acct = make_account(credits=2)
    with client_for(service, acct) as client:
        with pytest.raises(upscaler.InvalidTargetError) as bad_target:
            client.upscale(gradient_image(8, 8), target="8k")  # type: ignore[arg-type]
        e = bad_target.value
        assert isinstance(e, upscaler.BadRequestError) and isinstance(e, upscaler.APIError)
        assert (e.status_code, e.code) == (400, "invalid_target")
        assert e.request_id and e.body["error"]["code"] == "invalid_target"

        with pytest.raises(upscaler.InvalidFormatError) as bad_format:
            client.upscale(gradient_image(8, 8), format="gif")  # type: ignore[arg-type]
        assert bad_format.value.code == "invalid_format"

        with pytest.raises(upscaler.InsufficientCreditsError) as poor:
            client.upscale(gradient_image(8, 8))
        assert (poor.value.status_code, poor.value.code) == (402, "insufficient_credits")

        with pytest.raises(upscaler.JobNotFoundError) as missing:
            client.get_job("job_" + "0" * 32)
        assert isinstance(missing.value, upscaler.NotFoundError)
        assert (missing.value.status_code, missing.value.code) == (404, "job_not_found")

        with pytest.raises(upscaler.UnsupportedMediaTypeError) as not_image:
            client.upscale(b"this is not an image at all")
        assert (not_image.value.status_code, not_image.value.code) == (415, "unsupported_media_type")

        with pytest.raises(upscaler.InvalidCursorError):
            list(client.list_jobs(starting_after="job_" + "f" * 32))

    with Upscaler("usk_" + "x" * 32, base_url=service.api_url) as stranger:
        with pytest.raises(upscaler.AuthenticationError) as unauthorized:
            stranger.get_account()
        assert (unauthorized.value.status_code, unauthorized.value.code) == (401, "unauthorized")

    reader = make_account(scopes=["jobs:read"])
    with client_for(service, reader) as client:
        with pytest.raises(upscaler.PermissionDeniedError) as forbidden:
            client.upscale(gradient_image(8, 8))
        assert (forbidden.value.status_code, forbidden.value.code) == (403, "forbidden")


def corrupt_png() -> bytes:
    """A PNG whose header decodes but whose pixel data is cut short: the job fails with corrupt_image."""
    whole = gradient_image(64, 64)
    return whole[: int(len(whole) * 0.6)]


def test_a_failed_job_raises_job_failed_with_its_code_and_has_no_result(service: Service, make_account) -> None:
    acct = make_account(credits=10)
    with client_for(service, acct) as client:
        with pytest.raises(upscaler.JobFailedError) as failed:
            client.upscale(corrupt_png(), wait=True)
        job = failed.value.job
        assert (failed.value.code, job["status"], job["error"]["code"]) == ("corrupt_image", "failed", "corrupt_image")
        assert client.wait_for_job(job, raise_on_failure=False)["status"] == "failed"
        with pytest.raises(upscaler.ResultNotReadyError) as not_ready:
            client.download(job, io.BytesIO())
        assert (not_ready.value.status_code, not_ready.value.code) == (409, "result_not_ready")
        assert client.get_account()["balance"] == 10  # refunded


def test_cancel_job_answers_the_cancel_view_and_a_second_cancel_is_a_conflict(service: Service, make_account) -> None:
    acct = make_account(credits=10)
    with client_for(service, acct) as client:
        job = client.upscale(gradient_image(16, 16))
        try:
            cancelled = client.cancel_job(job["id"])
        except upscaler.ConflictError:
            pytest.skip("the job finished before the cancel (finish beats cancel, docs/job-states.md)")
        assert (cancelled["id"], cancelled["status"]) == (job["id"], "cancelled")
        with pytest.raises(upscaler.ConflictError) as conflict:
            client.cancel_job(job["id"])
        assert (conflict.value.status_code, conflict.value.code) == (409, "conflict")
        with pytest.raises(upscaler.JobCancelledError):
            client.wait_for_job(job)
        assert client.get_account()["balance"] == 10
