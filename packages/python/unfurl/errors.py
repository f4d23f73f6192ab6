"""One exception family for everything that can go wrong.

``UnfurlError`` carries the API's error body (``code``, ``message``, ``details``…); a subclass per
kind of failure lets callers catch what they handle (``except RateLimitError``). The client's own
failures (the network, a job that failed or ran out of time) use codes the API never sends.
"""

from __future__ import annotations

from typing import Any


class UnfurlError(Exception):
    """An error answer of the API, or a failure of the client itself."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        status: int = 0,
        details: str | None = None,
        request_id: str | None = None,
        documentation_url: str | None = None,
        retry_after: float | None = None,
        job: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        #: The API's snake_case error code (``invalid_request``, ``rate_limited``…) or the client's own.
        self.code = code
        #: HTTP status; 0 where there was no answer (network, timeouts, failed jobs).
        self.status = status
        #: Which parameter or state the error is about, when the API says.
        self.details = details
        #: The answer's X-Request-Id: quote it when reporting a problem.
        self.request_id = request_id
        self.documentation_url = documentation_url
        #: Seconds the server asked to wait (429 and 503 with Retry-After).
        self.retry_after = retry_after
        #: The failed, cancelled or unfinished job's last poll answer (job errors).
        self.job = job

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status}, message={self.message!r})"


class InvalidRequestError(UnfurlError):
    """400: a parameter is missing or wrong; ``details`` names it."""


class AuthenticationError(UnfurlError):
    """401: no key, or a key that is unknown or revoked."""


class InsufficientCreditsError(UnfurlError):
    """402: the balance cannot pay for the request."""


class PermissionDeniedError(UnfurlError):
    """403: the key may not do this."""


class NotFoundError(UnfurlError):
    """404: no such resource (or not this account's)."""


class TranscriptUnavailableError(NotFoundError):
    """404 ``transcript_unavailable``: the video has no transcript to give."""


class ConflictError(UnfurlError):
    """409: the resource's state does not allow it (cancelling a job that has ended)."""


class PayloadTooLargeError(UnfurlError):
    """413: the request or what it fetched is too big."""


class RateLimitError(UnfurlError):
    """429, after the retries; ``retry_after`` says how long the server asked to wait."""


class InternalServerError(UnfurlError):
    """500: the server failed."""


class UpstreamError(UnfurlError):
    """502: the platform or site behind the request failed."""


class ServiceUnavailableError(UnfurlError):
    """503: the server is shedding load, or a provider it needs is not configured."""


class APIConnectionError(UnfurlError):
    """``network_error``: the server could not be reached, or did not answer in time."""


class InvalidResponseError(UnfurlError):
    """``invalid_response``: the answer was not the API's JSON (a proxy's page, say)."""


class JobFailedError(UnfurlError):
    """``job_failed``: the job ended in ``failed``; ``job`` is its last answer."""


class JobCancelledError(UnfurlError):
    """``job_cancelled``: the job was cancelled; ``job`` is its last answer."""


class JobTimeoutError(UnfurlError):
    """``job_timeout``: waiting ran out of time; the job goes on. ``job`` is its last answer."""


_BY_CODE: dict[str, type[UnfurlError]] = {
    "invalid_request": InvalidRequestError,
    "unauthorized": AuthenticationError,
    "insufficient_credits": InsufficientCreditsError,
    "forbidden": PermissionDeniedError,
    "not_found": NotFoundError,
    "transcript_unavailable": TranscriptUnavailableError,
    "conflict": ConflictError,
    "payload_too_large": PayloadTooLargeError,
    "rate_limited": RateLimitError,
    "internal_error": InternalServerError,
    "upstream_error": UpstreamError,
    "provider_unavailable": ServiceUnavailableError,
    "service_unavailable": ServiceUnavailableError,
    "network_error": APIConnectionError,
    "invalid_response": InvalidResponseError,
    "job_failed": JobFailedError,
    "job_cancelled": JobCancelledError,
    "job_timeout": JobTimeoutError,
}

_CODE_OF_STATUS = {
    400: "invalid_request",
    401: "unauthorized",
    402: "insufficient_credits",
    403: "forbidden",
    404: "not_found",
    409: "conflict",
    413: "payload_too_large",
    429: "rate_limited",
    502: "upstream_error",
    503: "service_unavailable",
}


def code_for_status(status: int) -> str:
    """The code of a status whose body was not the API's error JSON."""
    return _CODE_OF_STATUS.get(status, "internal_error" if status >= 500 else "invalid_request")


def error_class(code: str, status: int = 0) -> type[UnfurlError]:
    """The exception class of a code; a code added to the API later falls back on its status."""
    known = _BY_CODE.get(code)
    if known is not None:
        return known
    return _BY_CODE.get(code_for_status(status), UnfurlError) if status else UnfurlError


def make_error(message: str, *, code: str, status: int = 0, **fields: Any) -> UnfurlError:
    return error_class(code, status)(message, code=code, status=status, **fields)
