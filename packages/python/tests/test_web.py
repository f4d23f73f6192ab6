"""Scrapes, maps, crawls and batch scrapes of the loopback website."""

from __future__ import annotations

import pytest

from unfurl import JobCancelledError, NotFoundError, ServiceUnavailableError, Unfurl

#: Pages of the loopback website under /docs/p/ (test/sdk/server.ts).
SITE_PAGES = 120


def test_scrape_map_and_scrape_document(client: Unfurl, site: str) -> None:
    page = client.web.scrape(url=f"{site}/docs/p/3", no_links=True)
    assert page["name"] == "Page 3" and "page number 3" in page["content"]
    assert client.last_credits is not None and client.last_credits.charged == 1
    links = client.web.map(url=f"{site}/docs", limit=10)
    assert len(links["urls"]) == 10
    document = client.web.scrape_document(url=f"{site}/docs/p/4", formats=["markdown", "links"])
    assert "Page 4" in document["markdown"] and document["metadata"]["statusCode"] == 200


def test_crawl_pages_follow_next_past_the_first_answer(client: Unfurl, site: str) -> None:
    accepted = client.web.crawl(url=f"{site}/docs", limit=SITE_PAGES + 1, max_depth=1)
    polls: list[str] = []
    urls = [p["url"] for p in client.web.iter_crawl(accepted["jobId"], interval=0.1, on_poll=lambda a: polls.append(a["status"]))]
    assert len(urls) == SITE_PAGES + 1 and len(set(urls)) == len(urls)
    assert polls[-1] == "completed"
    first = client.web.crawl_status(accepted["jobId"])
    assert len(first["pages"]) == 100 and first["next"]
    rest = client.web.crawl_status(accepted["jobId"], skip=100)
    assert len(rest["pages"]) == SITE_PAGES + 1 - 100


def test_crawl_and_wait_answers_every_page(client: Unfurl, site: str) -> None:
    seen: list[str] = []
    done = client.web.crawl_and_wait(
        url=f"{site}/docs", limit=5, interval=0.1, on_page=lambda p: seen.append(p["url"]), idempotency_key="py-crawl-1"
    )
    assert done["status"] == "completed" and len(done["pages"]) == 5 and "next" not in done
    assert seen == [p["url"] for p in done["pages"]]
    # The same key and body answer the same job.
    assert client.web.crawl(url=f"{site}/docs", limit=5, idempotency_key="py-crawl-1")["jobId"] == done["jobId"]


def test_batch_scrape_results_as_they_arrive(client: Unfurl, site: str) -> None:
    urls = [f"{site}/docs/p/{i}" for i in range(3)] + [f"{site}/broken"]
    job_id = client.web.batch_scrape(urls=urls)["jobId"]
    results = list(client.web.iter_batch_scrape(job_id, interval=0.1))
    assert [r["url"] for r in results] == urls
    assert "error" in results[-1] and "document" in results[0]
    assert client.jobs.wait(job_id, interval=0.1)["stats"]["total"] == 4
    assert client.web.batch_scrape_status(job_id, skip=3)["results"][0]["url"] == urls[3]


def test_cancel_a_running_crawl(client: Unfurl, site: str) -> None:
    job_id = client.web.crawl(url=f"{site}/docs", limit=SITE_PAGES, delay=1)["jobId"]
    assert client.jobs.cancel(job_id)["status"] in ("cancelled", "active")
    with pytest.raises(JobCancelledError) as caught:
        client.jobs.wait(job_id, interval=0.1)
    assert caught.value.job["status"] == "cancelled"


def test_web_search_without_searxng_and_a_missing_file(client: Unfurl) -> None:
    with pytest.raises(ServiceUnavailableError):
        client.web.search(query="unfurl")
    with pytest.raises(NotFoundError):
        client.files.get("file_missing")


def test_a_screenshot_is_a_stored_file(client: Unfurl, site: str) -> None:
    document = client.web.scrape_document(url=f"{site}/docs/p/5", formats=["screenshot"])
    file_id = document["screenshot"].rsplit("/", 1)[-1]
    stored = client.files.get(file_id)
    assert stored.content_type == "image/png" and stored.content.startswith(b"\x89PNG")
