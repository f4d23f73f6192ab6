"""Fixtures for the SDK's tests, which run against a real Unfurl server.

test/python/sdk.test.ts starts the server (on the platform replay and a loopback website) and runs
this suite with UNFURL_API_URL and UNFURL_API_KEY (an account with credits to spare), the website's
address in UNFURL_TEST_SITE and a rate-limited second server in UNFURL_TEST_LIMITED_URL.
"""

from __future__ import annotations

import itertools
import os
import time
from typing import Any, Iterator

import httpx
import pytest

from unfurl import Unfurl

_emails = itertools.count()


def env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run these tests through test/python/sdk.test.ts")
    return value


@pytest.fixture(scope="session")
def site() -> str:
    return env("UNFURL_TEST_SITE")


@pytest.fixture
def client() -> Iterator[Unfurl]:
    """The account with credits to spare, from the environment."""
    with Unfurl() as c:
        yield c


def unique_email(tag: str) -> str:
    return f"py-{tag}-{os.getpid()}-{time.time_ns()}-{next(_emails)}@example.com"


@pytest.fixture
def fresh() -> Iterator[Unfurl]:
    """A new account of its own (100 free credits)."""
    with Unfurl(api_key="") as anonymous:
        registration = anonymous.auth.register(unique_email("fresh"), "correct horse battery")
    with Unfurl(api_key=registration["apiKey"]) as c:
        yield c


def echo_job(client: Unfurl, **job_input: Any) -> str:
    """A job of the server's test-only echo kind (sleepMs, permanent…), as the account of ``client``."""
    res = httpx.post(
        f"{client.base_url}/v1/test/jobs/echo",
        json=job_input,
        headers={"authorization": f"Bearer {client.api_key}"},
    )
    assert res.status_code == 202, res.text
    return res.json()["jobId"]


def wait_until_active(client: Unfurl, job_id: str) -> None:
    for _ in range(200):
        if client.jobs.get(job_id)["status"] == "active":
            return
        time.sleep(0.025)
    pytest.fail(f"job {job_id} never started")
