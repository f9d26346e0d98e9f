"""Calls a type checker judges (tests/test_typing.py runs mypy on this file): not imported by the tests."""

from upscaler import AsyncUpscaler, Upscaler


def sync_calls(c: Upscaler) -> None:
    reveal_type(c.upscale("a.jpg", target="4k", wait=True))  # Job
    reveal_type(c.upscale("a.jpg", target="4k"))  # JobCreate | Job
    reveal_type(c.upscale("a.jpg", quality="best", wait=30.0, on_progress=lambda p, j: None))  # Job
    c.upscale("a.jpg", targt="4k")  # error: no such option
    c.upscale("a.jpg", target="8k")  # error: not a target


async def async_calls(c: AsyncUpscaler) -> None:
    reveal_type(await c.upscale("a.jpg", wait=True, content="photo"))  # Job
    reveal_type(await c.upscale(b"\x89PNG", filename="a.png", width=1920))  # JobCreate | Job
