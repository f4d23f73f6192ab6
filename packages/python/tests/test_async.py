"""The asyncio client: the same API, awaited."""

from __future__ import annotations

import asyncio

import pytest
from conftest import echo_job, wait_until_active

from unfurl import AsyncUnfurl, InvalidRequestError, JobCancelledError, Unfurl


def run(coroutine):  # type: ignore[no-untyped-def]
    return asyncio.run(coroutine)


def test_async_calls_iterators_and_errors(site: str) -> None:
    async def scenario() -> None:
        async with AsyncUnfurl() as client:
            page = await client.web.scrape(url=f"{site}/docs/p/1")
            assert page["name"] == "Page 1"
            # Calls at once on one client.
            pages = await asyncio.gather(*(client.web.scrape(url=f"{site}/docs/p/{i}") for i in range(5)))
            assert [p["name"] for p in pages] == [f"Page {i}" for i in range(5)]
            accepted = await client.web.crawl(url=f"{site}/docs", limit=4)
            urls = [p["url"] async for p in client.web.iter_crawl(accepted["jobId"], interval=0.1)]
            assert len(urls) == 4
            with pytest.raises(InvalidRequestError):
                await client.transcript(url="")

    run(scenario())


def test_async_wait_and_cancel(fresh: Unfurl) -> None:
    job_id = echo_job(fresh, value="long", sleepMs=30_000)
    wait_until_active(fresh, job_id)

    async def scenario() -> None:
        async with AsyncUnfurl(api_key=fresh.api_key) as client:
            waiting = asyncio.ensure_future(client.jobs.wait(job_id, interval=0.05))
            await asyncio.sleep(0.1)
            assert (await client.jobs.cancel(job_id))["status"] == "cancelled"
            with pytest.raises(JobCancelledError):
                await waiting

    run(scenario())
