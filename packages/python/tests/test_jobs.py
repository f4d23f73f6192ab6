"""Waiting for jobs with progress, failures, cancellation, timeouts and the jobs listing."""

from __future__ import annotations

import time

import pytest
from conftest import echo_job, wait_until_active

from unfurl import ConflictError, JobCancelledError, JobFailedError, JobTimeoutError, NotFoundError, Unfurl


def test_wait_reports_progress_and_answers_the_job(fresh: Unfurl) -> None:
    job_id = echo_job(fresh, value="hello", sleepMs=300)
    statuses: list[str] = []
    done = fresh.jobs.wait(job_id, interval=0.05, on_poll=lambda answer: statuses.append(answer["status"]))
    assert done["status"] == "completed" and done["result"]["value"] == "hello"
    assert statuses[0] in ("queued", "active") and statuses[-1] == "completed"


def test_a_failed_job_raises_with_its_answer(fresh: Unfurl) -> None:
    job_id = echo_job(fresh, value="x", permanent=True)
    with pytest.raises(JobFailedError) as caught:
        fresh.jobs.wait(job_id, interval=0.05)
    assert "permanent failure for x" in str(caught.value)
    assert caught.value.job["status"] == "failed"
    assert fresh.jobs.wait(job_id, raise_on_failure=False)["status"] == "failed"


def test_extract_without_a_provider_fails_as_a_job(fresh: Unfurl) -> None:
    accepted = fresh.extract(url="https://www.youtube.com/watch?v=GJLlxj_dtq8", prompt="The topic")
    with pytest.raises(JobFailedError):
        fresh.jobs.wait(accepted["jobId"], interval=0.1)
    assert fresh.extract_status(accepted["jobId"])["status"] == "failed"


def test_cancel_stops_a_running_job(fresh: Unfurl) -> None:
    job_id = echo_job(fresh, value="long", sleepMs=30_000, estimate=4, cost=4)
    wait_until_active(fresh, job_id)
    cancelled = fresh.jobs.cancel(job_id)
    assert cancelled["id"] == job_id and cancelled["status"] == "cancelled" and cancelled["credits"] == 0
    with pytest.raises(JobCancelledError):
        fresh.jobs.wait(job_id, interval=0.05)
    assert fresh.account.get()["credits"] == 100
    with pytest.raises(ConflictError) as again:
        fresh.jobs.cancel(job_id)
    assert again.value.details == "status=cancelled"
    with pytest.raises(NotFoundError):
        fresh.jobs.cancel("job_unknown")


def test_wait_gives_up_at_its_timeout(fresh: Unfurl) -> None:
    job_id = echo_job(fresh, value="slow", sleepMs=5000)
    started = time.monotonic()
    with pytest.raises(JobTimeoutError) as caught:
        fresh.jobs.wait(job_id, timeout=0.3, interval=0.05)
    assert 0.29 <= time.monotonic() - started < 2
    assert caught.value.job["status"] in ("queued", "active")


def test_jobs_listing_by_cursor(fresh: Unfurl) -> None:
    made = [echo_job(fresh, value=f"v{i}") for i in range(5)]
    listed = [job["id"] for job in fresh.jobs.list(page_size=2)]
    assert listed == list(reversed(made))
    page = fresh.jobs.page(limit=2)
    assert len(page["jobs"]) == 2 and page["total"] == 5 and page["next"]
