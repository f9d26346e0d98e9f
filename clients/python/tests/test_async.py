"""The asyncio client against a real standalone (tests/conftest.py)."""

from __future__ import annotations

import asyncio
import io
import uuid
from pathlib import Path

import pytest

import upscaler
from upscaler import AsyncUpscaler

from conftest import AccountKey, Service, SideServer, gradient_image, image_info


def client_for(service: Service, account: AccountKey) -> AsyncUpscaler:
    return AsyncUpscaler(account.key, base_url=service.api_url, poll_interval=0.2)


@pytest.mark.asyncio
async def test_async_upscale_from_path_waits_reports_progress_and_downloads(service: Service, account: AccountKey, tmp_path: Path) -> None:
    source = tmp_path / "g.png"
    source.write_bytes(gradient_image(30, 20))
    seen: list[tuple[str, float | None]] = []

    async def on_progress(progress: float | None, job: upscaler.Job) -> None:  # a coroutine function is awaited
        await asyncio.sleep(0)
        seen.append((job["status"], progress))

    async with client_for(service, account) as client:
        job = await client.upscale(source, target="2k", format="png", wait=120, on_progress=on_progress)
        assert (job["status"], job["target"], job["credits"], job["filename"]) == ("succeeded", "2k", 3, "g.png")
        out = tmp_path / "g-2x.png"
        assert await client.download(job, out) == job["result"]["bytes"] == out.stat().st_size
        assert image_info(out.read_bytes()) == ("PNG", (60, 40))
        chunks = []
        async with client.stream_download(job["id"]) as stream:
            async for chunk in stream:
                chunks.append(chunk)
        assert b"".join(chunks) == out.read_bytes()
        account_view = await client.get_account()
        assert (account_view["balance"], account_view["charged"]) == (97, 3)
    assert seen[-1][0] == "succeeded" and len(seen) == len(set(seen))


@pytest.mark.asyncio
async def test_async_upscale_from_bytes_file_object_and_url(service: Service, account: AccountKey, side_server: SideServer) -> None:
    url = side_server.serve_image(f"{uuid.uuid4().hex}.jpg", gradient_image(10, 10, "JPEG"))
    async with client_for(service, account) as client:
        jobs = await asyncio.gather(
            client.upscale(gradient_image(12, 8), target="3k", format="jpeg", wait=True),
            client.upscale(io.BytesIO(gradient_image(12, 8)), target="4k", format="webp", filename="f.png", wait=True),
            client.upscale(url, target="2k", format="png", wait=True),
        )
        sizes = []
        for job in jobs:
            buffer = io.BytesIO()
            await client.download(job, buffer)
            sizes.append(image_info(buffer.getvalue()))
    assert [(j["target"], j["credits"]) for j in jobs] == [("3k", 6), ("4k", 9), ("2k", 3)]
    assert jobs[1]["filename"] == "f.png" and jobs[2]["source"]["content_type"] == "image/jpeg"
    assert sizes == [("JPEG", (36, 24)), ("WEBP", (48, 32)), ("PNG", (20, 20))]


@pytest.mark.asyncio
async def test_async_idempotency_key_replays_the_job_and_charges_once(service: Service, make_account) -> None:
    acct = make_account(credits=10)
    key = str(uuid.uuid4())
    image = gradient_image(16, 16)
    async with client_for(service, acct) as client:
        first = await client.upscale(image, idempotency_key=key, wait=True)
        again = await client.upscale(image, idempotency_key=key)
        assert (again["id"], again["status"]) == (first["id"], "succeeded")
        account_view = await client.get_account()
        assert (account_view["balance"], account_view["reserved"], account_view["charged"]) == (7, 0, 3)


@pytest.mark.asyncio
async def test_async_list_jobs_iterates_over_every_page(service: Service, make_account) -> None:
    acct = make_account(credits=30)
    async with client_for(service, acct) as client:
        ids = [(await client.upscale(gradient_image(8, 8 + i)))["id"] for i in range(5)]
        assert [j["id"] async for j in client.list_jobs(limit=2)] == ids[::-1]
        pages = [p async for p in client.list_jobs(limit=2).pages()]
        assert [len(p["data"]) for p in pages] == [2, 2, 1]
        assert [p["has_more"] for p in pages] == [True, True, False]
        await asyncio.gather(*(client.wait_for_job(i) for i in ids))


@pytest.mark.asyncio
async def test_async_errors_are_typed_by_code(service: Service, account: AccountKey) -> None:
    async with client_for(service, account) as client:
        with pytest.raises(upscaler.InvalidTargetError) as bad_target:
            await client.upscale(gradient_image(8, 8), target="5k")  # type: ignore[arg-type]
        assert (bad_target.value.status_code, bad_target.value.code) == (400, "invalid_target")
        with pytest.raises(upscaler.JobNotFoundError) as missing:
            await client.wait_for_job("job_" + "1" * 32)
        assert (missing.value.status_code, missing.value.code) == (404, "job_not_found")


@pytest.mark.asyncio
async def test_async_api_keys_are_created_listed_and_revoked(service: Service, account: AccountKey) -> None:
    async with client_for(service, account) as client:
        created = await client.create_api_key(["jobs:read"], name="ci", rate_limit_per_minute=30)
        assert created["key"].startswith("usk_") and created["prefix"] == created["key"][:12]
        assert (created["scopes"], created["rate_limit_per_minute"], created["revoked_at"]) == (["jobs:read"], 30, None)
        listed = {k["id"]: k for k in (await client.list_api_keys())["data"]}
        assert set(listed) == {account.key_id, created["id"]} and "key" not in listed[created["id"]]
        async with AsyncUpscaler(created["key"], base_url=service.api_url) as narrow:
            assert [j async for j in narrow.list_jobs()] == []
            with pytest.raises(upscaler.PermissionDeniedError):
                await narrow.upscale(gradient_image(8, 8))
            revoked = await client.revoke_api_key(created["id"])
            assert revoked["revoked_at"] is not None
            with pytest.raises(upscaler.AuthenticationError):
                await narrow.get_account()
