"""What both clients share and that does no I/O: configuration, building a request from a route and
keyword arguments, reading an answer into a value or an exception, and when to retry."""

from __future__ import annotations

import email.utils
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any, Mapping
from urllib.parse import parse_qs, quote, urlsplit, urlunsplit

from ._routes import ROUTES
from ._version import __version__
from .errors import UnfurlError, code_for_status, make_error

USER_AGENT = f"unfurl-python/{__version__}"

#: The states in which a job has ended.
ENDED = frozenset({"completed", "failed", "cancelled"})


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of 429 answers, and of 503s that carry Retry-After (a server shedding load): neither
    did any work, so trying again is safe. Retry-After first, else exponential backoff."""

    #: Retries after the first attempt; 0 turns retrying off.
    max_retries: int = 4
    #: First backoff, in seconds, when the answer has no Retry-After (doubled each retry).
    base_delay: float = 1.0
    #: Longest single wait, in seconds: a Retry-After longer than this is raised at once.
    max_delay: float = 60.0

    def delay(self, error: UnfurlError, attempt: int) -> float | None:
        """Seconds to wait before retrying after ``error`` on attempt ``attempt`` (0-based), or None."""
        retryable = error.code == "rate_limited" or (
            error.code == "service_unavailable" and error.retry_after is not None
        )
        if not retryable or attempt >= self.max_retries:
            return None
        if error.retry_after is not None:
            return error.retry_after if error.retry_after <= self.max_delay else None
        return min(self.base_delay * 2**attempt, self.max_delay)


def from_environment(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def api_root(base_url: str) -> str:
    """The server's root without a trailing slash: routes start with their own /v1, so a base URL
    written with /v1 (as the API's docs print it) loses it here."""
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
    path = parts.path.rstrip("/")
    if path.endswith("/v1"):
        path = path[:-3]
    return urlunsplit((parts.scheme, parts.netloc, path.rstrip("/"), "", ""))


@dataclass
class Settings:
    base_url: str
    api_key: str | None
    timeout: float | None
    retry: RetryPolicy
    headers: dict[str, str] = field(default_factory=dict)


def settings(
    base_url: str | None,
    api_key: str | None,
    timeout: float | None,
    max_retries: int,
    headers: Mapping[str, str] | None,
) -> Settings:
    """Arguments left out come from UNFURL_API_URL and UNFURL_API_KEY; ``api_key=""`` sends none."""
    url = base_url or from_environment("UNFURL_API_URL")
    if not url:
        raise ValueError("base_url is required (or set UNFURL_API_URL)")
    key = from_environment("UNFURL_API_KEY") if api_key is None else (api_key or None)
    if max_retries < 0:
        raise ValueError("max_retries must be 0 or more")
    return Settings(api_root(url), key, timeout, RetryPolicy(max_retries=max_retries), dict(headers or {}))


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    params: tuple[tuple[str, str], ...]
    json: Any
    headers: dict[str, str]
    #: "json", "text" (an Atom feed) or "bytes" (a stored file): how a success answer is read.
    read_as: str = "json"


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def build_request(
    route: str,
    path_params: Mapping[str, str] | None = None,
    arguments: Mapping[str, Any] | None = None,
    *,
    idempotency_key: str | None = None,
    read_as: str = "json",
) -> Request:
    """The request for one operation: path parameters filled in (URL-encoded), keyword arguments
    renamed to the API's names and put into the query or the JSON body. None is "not given" in a
    query, and null in a body (where it clears a field, as in a monitor's update)."""
    spec = ROUTES[route]
    path = spec.path
    for name, value in (path_params or {}).items():
        if value is None or value == "":
            raise ValueError(f"{route}: {name} is required")
        path = path.replace("{" + name + "}", quote(str(value), safe=""))
    if "{" in path:
        raise ValueError(f"{route}: missing path parameter in {spec.path}")
    given = {spec.renamed.get(k, k): v for k, v in (arguments or {}).items()}
    headers = {"accept": "application/json" if read_as == "json" else "*/*"}
    if read_as == "text":
        headers["accept"] = "application/atom+xml"
    if idempotency_key:
        headers["idempotency-key"] = idempotency_key
    params: list[tuple[str, str]] = []
    body: Any = None
    if spec.into == "json" and spec.method != "GET":
        body = given
    else:
        for name, value in given.items():
            if value is None:
                continue
            values = value if isinstance(value, (list, tuple)) else [value]
            params.extend((name, _query_value(v)) for v in values)
    return Request(spec.method, path, tuple(params), body, headers, read_as)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After in seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class CreditHeaders:
    """What an answer said about credits (its X-Credits-* headers)."""

    charged: int | None
    held: int | None
    remaining: int | None


@dataclass(frozen=True)
class File:
    """A stored file (a screenshot, a PDF): its bytes and their type."""

    content: bytes
    content_type: str


def _int_header(headers: Mapping[str, str], name: str) -> int | None:
    value = headers.get(name)
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def credits_of(headers: Mapping[str, str]) -> CreditHeaders | None:
    c = CreditHeaders(*(_int_header(headers, f"x-credits-{n}") for n in ("charged", "held", "remaining")))
    return None if c == CreditHeaders(None, None, None) else c


def error_from_answer(status: int, headers: Mapping[str, str], text: str) -> UnfurlError:
    """The exception for an error answer: the API's error body, else one made from the status."""
    try:
        body = json.loads(text) if text else {}
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}

    def string(key: str) -> str | None:
        value = body.get(key)
        return value if isinstance(value, str) else None

    code = string("error") or code_for_status(status)
    message = string("message") or (f"HTTP {status}: {text[:200]}" if text else f"HTTP {status}")
    retry_after = parse_retry_after(headers.get("retry-after")) if status in (429, 503) else None
    return make_error(
        message,
        code=code,
        status=status,
        details=string("details"),
        request_id=headers.get("x-request-id"),
        documentation_url=string("documentationUrl"),
        retry_after=retry_after,
    )


def read_answer(request: Request, status: int, headers: Mapping[str, str], content: bytes) -> Any:
    """A success answer's value (JSON, text or bytes), or the exception its status calls for."""
    if status >= 400:
        raise error_from_answer(status, headers, content.decode("utf-8", "replace"))
    if request.read_as == "bytes":
        return File(content=content, content_type=headers.get("content-type") or "application/octet-stream")
    text = content.decode("utf-8", "replace")
    if request.read_as == "text":
        return text
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        raise make_error(
            f"Expected JSON from {request.method} {request.path}, got {headers.get('content-type') or 'no content type'}",
            code="invalid_response",
            status=status,
            details=text[:200],
            request_id=headers.get("x-request-id"),
        ) from None


def skip_of(next_url: str | None) -> int | None:
    """The ``skip`` of a ``next`` URL (which names the server's public address, not ours)."""
    if not next_url:
        return None
    values = parse_qs(urlsplit(next_url).query).get("skip", [])
    return int(values[0]) if values and values[0].isdigit() else None


def job_error(job_id: str, answer: Mapping[str, Any]) -> UnfurlError | None:
    """The exception for a job that ended failed or cancelled; None for a completed one."""
    status = answer.get("status")
    if status == "cancelled":
        return make_error(f"Job {job_id} was cancelled", code="job_cancelled", job=answer)
    if status != "failed":
        return None
    error = answer.get("error")
    if isinstance(error, dict):
        message = error.get("message") or error.get("error") or "job failed"
        details = error.get("error")
    else:
        message, details = (error if isinstance(error, str) and error else "job failed"), None
    return make_error(f"Job {job_id} failed: {message}", code="job_failed", details=details, job=answer)


def network_error(base_url: str, cause: BaseException, timeout: float | None, timed_out: bool) -> UnfurlError:
    message = (
        f"No answer from {base_url} within {timeout} s"
        if timed_out
        else f"Cannot reach {base_url}: {cause}"
    )
    error = make_error(message, code="network_error")
    error.__cause__ = cause
    return error
