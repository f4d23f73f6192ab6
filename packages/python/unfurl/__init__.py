"""Unfurl's Python client: transcripts, metadata and web pages from one self-hosted API.

    from unfurl import Unfurl

    with Unfurl() as client:  # UNFURL_API_URL and UNFURL_API_KEY from the environment
        print(client.transcript(url="https://youtu.be/dQw4w9WgXcQ", text=True)["content"])

``AsyncUnfurl`` is the same client for asyncio.
"""

from . import types
from ._async_client import AsyncUnfurl
from ._client import Unfurl
from ._core import CreditHeaders, File, RetryPolicy
from ._version import __version__
from .errors import (
    APIConnectionError,
    AuthenticationError,
    ConflictError,
    InsufficientCreditsError,
    InternalServerError,
    InvalidRequestError,
    InvalidResponseError,
    JobCancelledError,
    JobFailedError,
    JobTimeoutError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    TranscriptUnavailableError,
    UnfurlError,
    UpstreamError,
)

__all__ = [
    "APIConnectionError",
    "AsyncUnfurl",
    "AuthenticationError",
    "ConflictError",
    "CreditHeaders",
    "File",
    "InsufficientCreditsError",
    "InternalServerError",
    "InvalidRequestError",
    "InvalidResponseError",
    "JobCancelledError",
    "JobFailedError",
    "JobTimeoutError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "RetryPolicy",
    "ServiceUnavailableError",
    "TranscriptUnavailableError",
    "Unfurl",
    "UnfurlError",
    "UpstreamError",
    "__version__",
    "types",
]
