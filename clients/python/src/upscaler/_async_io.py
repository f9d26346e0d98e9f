"""What the asynchronous client awaits where the synchronous one blocks (``_sync_io.py`` is its twin).

``async_client.py`` calls these by name; ``python -m upscaler._unasync`` turns that file into ``client.py``,
renaming ``_async_io`` to ``_sync_io``, so each client gets its own I/O from one source.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

sleep = asyncio.sleep


async def resolve(value: Any) -> Any:
    """The value, awaited if it is awaitable: an ``on_progress`` coroutine function, an async file's
    ``read()`` or ``write()`` (aiofiles, anyio)."""
    if inspect.isawaitable(value):
        return await value
    return value


async def run_blocking(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` in a worker thread, off the event loop (reading a file to upload)."""
    return await asyncio.to_thread(fn, *args)
