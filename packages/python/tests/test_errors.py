"""Typed errors, retries of 429 and 503 honouring Retry-After, and the client's configuration."""

from __future__ import annotations

import http.server
import os
import threading
import time
from typing import Iterator

import pytest
from conftest import unique_email

from unfurl import (
    APIConnectionError,
    AuthenticationError,
    InsufficientCreditsError,
    InvalidRequestError,
    NotFoundError,
    RateLimitError,
    ServiceUnavailableError,
    Unfurl,
    UnfurlError,
)


def test_error_body_becomes_a_typed_exception(client: Unfurl) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        client.web.scrape(url="not a url")
    error = caught.value
    assert error.code == "invalid_request" and error.status == 400
    assert error.details == "url"
    assert error.request_id
    assert isinstance(error, UnfurlError)
    with pytest.raises(NotFoundError) as missing:
        client.jobs.get("job_unknown")
    assert missing.value.code == "not_found"
    with Unfurl(api_key="uf_wrong") as wrong, pytest.raises(AuthenticationError):
        wrong.account.get()


def test_insufficient_credits(fresh: Unfurl, site: str) -> None:
    with pytest.raises(InsufficientCreditsError) as caught:
        fresh.web.batch_scrape(urls=[f"{site}/docs/p/{i}" for i in range(150)])
    assert caught.value.status == 402


def test_unreachable_server_is_a_network_error() -> None:
    with Unfurl("http://127.0.0.1:9", "uf_x", max_retries=0) as c, pytest.raises(APIConnectionError) as caught:
        c.health()
    assert caught.value.code == "network_error" and caught.value.status == 0


def test_configuration_from_arguments_and_environment() -> None:
    url = os.environ["UNFURL_API_URL"]
    assert Unfurl().base_url == url.removesuffix("/v1")
    assert Unfurl(url + "/").base_url == url.removesuffix("/v1")
    assert Unfurl(api_key="").api_key is None
    with pytest.raises(ValueError, match="http"):
        Unfurl("ftp://example.com")


def _limited_key() -> str:
    with Unfurl(os.environ["UNFURL_TEST_LIMITED_URL"], "") as anonymous:
        return anonymous.auth.register(unique_email("limited"), "correct horse battery")["apiKey"]


def test_waits_out_retry_after_of_a_real_429() -> None:
    with Unfurl(os.environ["UNFURL_TEST_LIMITED_URL"], _limited_key()) as c:
        c.account.get()
        started = time.monotonic()
        assert c.account.get()["credits"] == 100
        # One request a second: the retry came after the second the server asked for.
        assert time.monotonic() - started >= 0.9


def test_raises_rate_limited_with_the_wait_when_retries_are_off() -> None:
    with Unfurl(os.environ["UNFURL_TEST_LIMITED_URL"], _limited_key(), max_retries=0) as c:
        c.account.get()
        with pytest.raises(RateLimitError) as caught:
            c.account.get()
    assert caught.value.status == 429 and caught.value.retry_after is not None and caught.value.retry_after >= 1


class _Shedding(http.server.BaseHTTPRequestHandler):
    """A server shedding load: 503 with Retry-After twice, then the answer."""

    hits: list[float] = []

    def do_GET(self) -> None:  # noqa: N802 (the handler's name)
        _Shedding.hits.append(time.monotonic())
        if len(_Shedding.hits) <= 2:
            body = b'{"error":"service_unavailable","message":"busy","details":null}'
            self.send_response(503)
            self.send_header("retry-after", "1")
        else:
            body = b'{"status":"ok"}'
            self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def shedding() -> Iterator[str]:
    _Shedding.hits = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Shedding)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_retries_a_503_that_says_when(shedding: str) -> None:
    with Unfurl(shedding, "uf_x") as c:
        assert c.health()["status"] == "ok"
    gaps = [b - a for a, b in zip(_Shedding.hits, _Shedding.hits[1:])]
    assert len(gaps) == 2 and all(gap >= 0.95 for gap in gaps)


def test_a_503_is_raised_when_retries_run_out(shedding: str) -> None:
    with Unfurl(shedding, "uf_x", max_retries=1) as c, pytest.raises(ServiceUnavailableError) as caught:
        c.health()
    assert caught.value.retry_after == 1.0
