"""The asynchronous client: one method per API operation, grouped by resource.

This file is the one source of both clients: scripts/sdk-python.ts writes the blocking client
(_client.py) from it by dropping the asynchronous keywords and names (its rules list them). Write
nothing here that does not read right in both.
"""
from __future__ import annotations

from asyncio import sleep
from time import monotonic
from typing import Any, AsyncIterator, Callable, Mapping, Unpack

import httpx

from . import types
from ._core import (
    ENDED,
    USER_AGENT,
    CreditHeaders,
    File,
    Request,
    build_request,
    credits_of,
    job_error,
    network_error,
    read_answer,
    settings,
    skip_of,
)
from ._routes import PAGED_KINDS, POLL_ROUTE_OF_KIND
from .errors import UnfurlError, make_error

#: Called with every poll answer while waiting (progress displays).
OnPoll = Callable[[dict[str, Any]], None]


class AsyncUnfurl:
    """A client of one Unfurl server.

    ``base_url`` and ``api_key`` left out come from UNFURL_API_URL and UNFURL_API_KEY
    (``api_key=""`` sends no key: public routes). Answers are the API's JSON as dicts, keys as the
    API writes them; keyword arguments are snake_case. 429 answers, and 503s with Retry-After, are
    retried up to ``max_retries`` times, waiting what Retry-After says (else 1 s, 2 s, 4 s…).
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float | None = 60.0,
        max_retries: int = 4,
        headers: Mapping[str, str] | None = None,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._settings = settings(base_url, api_key, timeout, max_retries, headers)
        self._http = http_client if http_client is not None else httpx.AsyncClient()
        self._owns_http = http_client is None
        #: The X-Credits-* headers of the last answer that carried them.
        self.last_credits: CreditHeaders | None = None
        self.auth = AsyncAuth(self)
        self.keys = AsyncKeys(self)
        self.account = AsyncAccount(self)
        self.credits = AsyncCredits(self)
        self.files = AsyncFiles(self)
        self.jobs = AsyncJobs(self)
        self.monitors = AsyncMonitors(self)
        self.vidsite = AsyncVidsite(self)
        self.microblog = AsyncMicroblog(self)
        self.web = AsyncWeb(self)
        self.video = AsyncVideo(self)

    @property
    def base_url(self) -> str:
        return self._settings.base_url

    @property
    def api_key(self) -> str | None:
        """The key or session token sent as bearer; settable (after a login, say)."""
        return self._settings.api_key

    @api_key.setter
    def api_key(self, key: str | None) -> None:
        self._settings.api_key = key or None

    async def __aenter__(self) -> AsyncUnfurl:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Closes the connections (not an ``http_client`` that was passed in)."""
        if self._owns_http:
            await self._http.aclose()

    # ---- transport ----

    async def _send(self, request: Request) -> Any:
        attempt = 0
        while True:
            try:
                return await self._once(request)
            except UnfurlError as error:
                delay = self._settings.retry.delay(error, attempt)
                if delay is None:
                    raise
            await sleep(delay)
            attempt += 1

    async def _once(self, request: Request) -> Any:
        s = self._settings
        headers = {"user-agent": USER_AGENT, **s.headers, **request.headers}
        if s.api_key:
            headers["authorization"] = f"Bearer {s.api_key}"
        try:
            res = await self._http.request(
                request.method,
                s.base_url + request.path,
                params=request.params or None,
                json=request.json,
                headers=headers,
                timeout=s.timeout,
            )
        except httpx.TimeoutException as cause:
            raise network_error(s.base_url, cause, s.timeout, True) from cause
        except httpx.HTTPError as cause:
            raise network_error(s.base_url, cause, s.timeout, False) from cause
        credits = credits_of(res.headers)
        if credits is not None:
            self.last_credits = credits
        return read_answer(request, res.status_code, res.headers, res.content)

    async def _call(
        self,
        route: str,
        path_params: Mapping[str, str] | None = None,
        arguments: Mapping[str, Any] | None = None,
        *,
        idempotency_key: str | None = None,
        read_as: str = "json",
    ) -> Any:
        request = build_request(route, path_params, arguments, idempotency_key=idempotency_key, read_as=read_as)
        return await self._send(request)

    async def _follow(
        self,
        route: str,
        job_id: str,
        items_key: str,
        *,
        skip: int = 0,
        interval: float = 1.0,
        on_poll: OnPoll | None = None,
        deadline: float | None = None,
    ) -> AsyncIterator[Any]:
        """The items of a paged job answer, in order, as the job produces them: follows ``next``
        while more are there, waits while the job runs, ends once it has ended and all were given."""
        while True:
            answer = await self._call(route, {"jobId": job_id}, {"skip": skip})
            if on_poll is not None:
                on_poll(answer)
            items = answer.get(items_key) or []
            for item in items:
                yield item
            asked, skip = skip, skip + len(items)
            more = skip_of(answer.get("next"))
            # More are there already: ask at once (only forward, so a bad `next` cannot loop).
            if more is not None and more > asked:
                skip = more
                continue
            if answer.get("status") in ENDED:
                if answer.get("status") == "failed":
                    raise job_error(job_id, answer) or make_error("job failed", code="job_failed")
                return
            if deadline is not None and monotonic() >= deadline:
                raise make_error(
                    f"Job {job_id} did not end in time ({skip} results so far)", code="job_timeout", job=answer
                )
            await sleep(interval if deadline is None else max(0.0, min(interval, deadline - monotonic())))

    async def _cursor(
        self,
        route: str,
        items_key: str,
        path_params: Mapping[str, str] | None = None,
        first: Mapping[str, Any] | None = None,
        *,
        page_size: int = 100,
    ) -> AsyncIterator[Any]:
        """Every item of a list paged by cursor: each page after the previous one's ``next``, until
        a page has none (or is empty, so a server that keeps answering ``next`` cannot loop)."""
        arguments: dict[str, Any] = {**(first or {}), "limit": page_size}
        while True:
            page = await self._call(route, path_params, arguments)
            items = page.get(items_key) or []
            for item in items:
                yield item
            if not page.get("next") or not items:
                return
            arguments = {**{k: v for k, v in arguments.items() if k != "offset"}, "cursor": page["next"]}

    # ---- operations at the top ----

    async def transcript(self, **params: Unpack[types.TranscriptParams]) -> types.TranscriptResponse:
        """A video's transcript from its URL, on any platform. A dict with ``content`` (200), or
        ``{"jobId": …}`` (202) while speech recognition runs: wait with ``jobs.wait``."""
        return await self._call("transcript", None, params)

    async def transcript_job(self, job_id: str) -> types.TranscriptPollResponse:
        """The poll answer of a transcript job."""
        return await self._call("transcriptPoll", {"jobId": job_id})

    async def metadata(self, url: str) -> types.MetadataResponse:
        """A post's or video's metadata in one shape, on any platform, from its URL."""
        return await self._call("metadata", None, {"url": url})

    async def extract(
        self, *, idempotency_key: str | None = None, **params: Unpack[types.ExtractParams]
    ) -> types.ExtractResponse:
        """Structured data from a video (a job): give a prompt, a JSON schema, or both."""
        return await self._call("extract", None, params, idempotency_key=idempotency_key)

    async def extract_status(self, job_id: str) -> types.ExtractPollResponse:
        return await self._call("extractPoll", {"jobId": job_id})

    async def health(self) -> types.HealthResponse:
        return await self._call("health")

    async def ready(self) -> types.ReadyResponse:
        return await self._call("ready")


class _AsyncResource:
    def __init__(self, client: AsyncUnfurl) -> None:
        self._client = client


class AsyncAuth(_AsyncResource):
    async def register(self, email: str, password: str) -> types.RegisterResponse:
        """Creates an account: its first API key (shown only here) and the free credits. No key needed."""
        return await self._client._call("register", None, {"email": email, "password": password})

    async def login(self, email: str, password: str) -> types.LoginResponse:
        """A session token usable as bearer for 24 hours. No key needed."""
        return await self._client._call("login", None, {"email": email, "password": password})

    async def logout(self) -> types.LogoutResponse:
        """Ends the session whose token this client sends (an API key is refused: 403)."""
        return await self._client._call("logout")

    async def sessions(self) -> list[types.ListSessionsResponseSessionsItem]:
        """The account's live sessions, never their tokens."""
        return (await self._client._call("listSessions"))["sessions"]

    async def change_password(
        self, current_password: str, new_password: str, *, revoke_api_keys: bool | None = None
    ) -> types.ChangePasswordResponse:
        """Changes the password; every other login session ends, and every API key too with
        ``revoke_api_keys=True``."""
        arguments: dict[str, Any] = {"current_password": current_password, "new_password": new_password}
        if revoke_api_keys is not None:
            arguments["revoke_api_keys"] = revoke_api_keys
        return await self._client._call("changePassword", None, arguments)

    async def revoke_session(self, session_id: str) -> types.RevokeSessionResponse:
        return await self._client._call("revokeSession", {"session_id": session_id})


class AsyncKeys(_AsyncResource):
    async def create(self, name: str) -> types.CreateKeyResponse:
        """A new API key; its secret is shown only in this answer."""
        return await self._client._call("createKey", None, {"name": name})

    async def list(self) -> list[types.ListKeysResponseKeysItem]:
        return (await self._client._call("listKeys"))["keys"]

    async def revoke(self, key_id: str) -> types.RevokeKeyResponse:
        return await self._client._call("revokeKey", {"key_id": key_id})


class AsyncAccount(_AsyncResource):
    async def get(self) -> types.AccountResponse:
        return await self._client._call("account")

    async def usage(self, **params: Unpack[types.UsageParams]) -> types.UsageResponse:
        """One page of credit transactions, newest first."""
        return await self._client._call("usage", None, params)

    def iter_usage(
        self, *, type: str | None = None, page_size: int = 100
    ) -> AsyncIterator[types.UsageResponseTransactionsItem]:
        """Every credit transaction, newest first, a page at a time as the loop goes on."""
        return self._client._cursor("usage", "transactions", None, {"type": type}, page_size=page_size)

    async def usage_summary(self, **params: Unpack[types.UsageSummaryParams]) -> types.UsageSummaryResponse:
        """Credits spent, bought and granted per hour or day and per operation."""
        return await self._client._call("usageSummary", None, params)

    async def rotate_webhook_secret(self) -> types.RotateWebhookSecretResponse:
        """A new webhook signing secret; the old one stops signing at once."""
        return await self._client._call("rotateWebhookSecret")

    async def me(self) -> types.MeResponse:
        """The hosted service's account shape: credits used this month and the most there are."""
        return await self._client._call("me")


class AsyncCredits(_AsyncResource):
    async def packages(self) -> list[types.PackagesResponsePackagesItem]:
        """Packages on sale. No key needed."""
        return (await self._client._call("packages"))["packages"]

    async def purchase(self, package_id: str) -> types.PurchaseResponse:
        """Starts buying a package: open the answer's ``checkoutUrl``."""
        return await self._client._call("purchase", None, {"package_id": package_id})


class AsyncFiles(_AsyncResource):
    async def get(self, file_id: str) -> File:
        """A file one of your requests made (a screenshot), by its id: the last part of its URL."""
        return await self._client._call("file", {"fileId": file_id}, read_as="bytes")


class AsyncJobs(_AsyncResource):
    async def page(self, **params: Unpack[types.ListJobsParams]) -> types.ListJobsResponse:
        """One page of /v1/jobs, newest first."""
        return await self._client._call("listJobs", None, params)

    def list(
        self, *, status: str | None = None, offset: int | None = None, page_size: int = 100
    ) -> AsyncIterator[types.ListJobsResponseJobsItem]:
        """Every job, newest first, a page at a time as the loop goes on (by cursor after the first)."""
        first = {"status": status, "offset": offset}
        return self._client._cursor("listJobs", "jobs", None, first, page_size=page_size)

    async def get(self, job_id: str) -> types.GetJobResponse:
        """A job's summary and its result."""
        return await self._client._call("getJob", {"jobId": job_id})

    async def cancel(self, job_id: str) -> types.CancelJobResponse:
        """Cancels a queued or running job: it stops within a second or two. A crawl keeps, and is
        billed for, the pages it had; the rest of the hold comes back. A job that has ended raises
        ConflictError."""
        return await self._client._call("cancelJob", {"jobId": job_id})

    async def wait(
        self,
        job_id: str,
        *,
        kind: str | None = None,
        timeout: float = 600.0,
        interval: float = 1.0,
        on_poll: OnPoll | None = None,
        raise_on_failure: bool = True,
    ) -> dict[str, Any]:
        """Polls the route of the job's kind until the job ends and answers its last poll answer.

        ``kind`` (its ``queue``) saves one request when known. Raises JobTimeoutError after
        ``timeout`` seconds (the job goes on), JobFailedError or JobCancelledError when it ended so
        (unless ``raise_on_failure=False``). ``on_poll`` gets every poll answer. A paged kind (crawl,
        batches) answers its first page of results: use the ``iter_*`` methods for all of them.
        """
        deadline = monotonic() + timeout
        known = None
        if kind is None:
            known = await self.get(job_id)
            kind = known["queue"]
        poll_route = POLL_ROUTE_OF_KIND.get(kind, "getJob")
        # Paged answers carry up to 100 results each: while the job runs, its summary is the cheap check.
        watch_route = "getJob" if kind in PAGED_KINDS else poll_route
        answer: Any = known if watch_route == "getJob" else None
        while True:
            if answer is None:
                answer = await self._client._call(watch_route, {"jobId": job_id})
            if on_poll is not None:
                on_poll(answer)
            if answer.get("status") in ENDED:
                break
            left = deadline - monotonic()
            if left <= 0:
                raise make_error(
                    f"Job {job_id} did not end within {timeout} s (last status: {answer.get('status')})",
                    code="job_timeout",
                    job=answer,
                )
            await sleep(min(interval, left))
            answer = None
        if watch_route != poll_route:
            answer = await self._client._call(poll_route, {"jobId": job_id})
        error = job_error(job_id, answer)
        if error is not None and raise_on_failure:
            raise error
        return answer


class AsyncMonitors(_AsyncResource):
    async def create(self, **params: Unpack[types.CreateMonitorParams]) -> types.CreateMonitorResponse:
        """Starts watching a channel or playlist (new videos), a page or a site (changes). The first
        check runs at once and sets the baseline; later ones record events."""
        return await self._client._call("createMonitor", None, params)

    def list(self, *, page_size: int = 100) -> AsyncIterator[types.ListMonitorsResponseMonitorsItem]:
        """Every monitor, newest first, a page at a time as the loop goes on."""
        return self._client._cursor("listMonitors", "monitors", page_size=page_size)

    async def page(self, **params: Unpack[types.ListMonitorsParams]) -> types.ListMonitorsResponse:
        return await self._client._call("listMonitors", None, params)

    async def get(self, monitor_id: str) -> types.GetMonitorResponse:
        """A monitor with its last checks."""
        return await self._client._call("getMonitor", {"id": monitor_id})

    async def update(
        self, monitor_id: str, **changes: Unpack[types.UpdateMonitorParams]
    ) -> types.UpdateMonitorResponse:
        """Changes the fields given (None clears one that may be empty); answers the monitor as it is now."""
        return await self._client._call("updateMonitor", {"id": monitor_id}, changes)

    async def pause(self, monitor_id: str) -> types.UpdateMonitorResponse:
        return await self.update(monitor_id, paused=True)

    async def resume(self, monitor_id: str) -> types.UpdateMonitorResponse:
        return await self.update(monitor_id, paused=False)

    async def rotate_feed_token(self, monitor_id: str) -> types.UpdateMonitorResponse:
        """A new feed URL in the answer's ``feedUrl``; the old one stops working at once."""
        return await self.update(monitor_id, rotate_feed_token=True)

    async def delete(self, monitor_id: str) -> types.DeleteMonitorResponse:
        """Ends a monitor; its events are deleted with it."""
        return await self._client._call("deleteMonitor", {"id": monitor_id})

    async def check(self, monitor_id: str) -> types.CheckMonitorResponse:
        """Checks now: a ``monitor_check`` job (wait with ``jobs.wait(job_id, kind="monitor_check")``)."""
        return await self._client._call("checkMonitor", {"id": monitor_id})

    def events(
        self, monitor_id: str, *, page_size: int = 100
    ) -> AsyncIterator[types.MonitorEventsResponseEventsItem]:
        """Every event of a monitor, newest first, a page at a time as the loop goes on."""
        return self._client._cursor("monitorEvents", "events", {"id": monitor_id}, page_size=page_size)

    async def events_page(
        self, monitor_id: str, **params: Unpack[types.MonitorEventsParams]
    ) -> types.MonitorEventsResponse:
        return await self._client._call("monitorEvents", {"id": monitor_id}, params)

    async def feed(self, monitor_id: str, token: str) -> str:
        """The monitor's Atom feed as XML text; ``token`` is the ``token`` of its ``feedUrl``."""
        return await self._client._call("monitorFeed", {"id": monitor_id}, {"token": token}, read_as="text")


class AsyncVidsite(_AsyncResource):
    """The video-sharing platform."""

    async def transcript(self, **params: Unpack[types.VidsiteTranscriptParams]) -> types.VidsiteTranscriptResponse:
        """The platform twin of ``transcript()``: by ``url``, ``video_id`` or ``id``."""
        return await self._client._call("vidsiteTranscript", None, params)

    async def translate(self, **params: Unpack[types.TranslateParams]) -> types.TranslateResponse:
        """The transcript translated into ``lang``."""
        return await self._client._call("translate", None, params)

    async def video(self, id: str) -> types.VideoResponse:
        return await self._client._call("video", None, {"id": id})

    async def channel(self, id: str) -> types.ChannelResponse:
        """A channel by id (UC…), @handle or URL."""
        return await self._client._call("channel", None, {"id": id})

    async def playlist(self, id: str) -> types.PlaylistResponse:
        """A playlist's details (its id or a URL with list=)."""
        return await self._client._call("playlist", None, {"id": id})

    async def search(self, **params: Unpack[types.SearchParams]) -> types.SearchResponse:
        """Videos, channels and playlists; 1 credit per page of results fetched."""
        return await self._client._call("search", None, params)

    async def comments(self, **params: Unpack[types.CommentsParams]) -> list[types.CommentsCommentsItem]:
        return (await self._client._call("comments", None, params))["comments"]

    async def channel_videos(self, **params: Unpack[types.ChannelVideosParams]) -> types.ChannelVideosResponse:
        return await self._client._call("channelVideos", None, params)

    async def playlist_videos(self, **params: Unpack[types.PlaylistVideosParams]) -> types.PlaylistVideosResponse:
        return await self._client._call("playlistVideos", None, params)

    async def transcript_batch(
        self, *, idempotency_key: str | None = None, **params: Unpack[types.TranscriptBatchParams]
    ) -> types.TranscriptBatchResponse:
        """Transcripts of many videos (a job): follow it with ``iter_batch``."""
        return await self._client._call("transcriptBatch", None, params, idempotency_key=idempotency_key)

    async def video_batch(
        self, *, idempotency_key: str | None = None, **params: Unpack[types.VideoBatchParams]
    ) -> types.VideoBatchResponse:
        """Metadata of many videos (a job): follow it with ``iter_batch``."""
        return await self._client._call("videoBatch", None, params, idempotency_key=idempotency_key)

    async def batch(self, job_id: str, *, skip: int | None = None) -> types.BatchPollResponse:
        """One poll answer of a batch job: results from ``skip``, and ``next`` while more remain."""
        return await self._client._call("batchPoll", {"jobId": job_id}, {"skip": skip})

    def iter_batch(
        self, job_id: str, *, interval: float = 1.0, on_poll: OnPoll | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Every result of a batch job as it arrives; ends when the job has ended."""
        return self._client._follow("batchPoll", job_id, "results", interval=interval, on_poll=on_poll)


class AsyncMicroblog(_AsyncResource):
    async def post(self, url: str) -> types.MicroblogPostResponse:
        """A post's metadata from its URL (either hostname of the platform)."""
        return await self._client._call("microblogPost", None, {"url": url})


class AsyncWeb(_AsyncResource):
    async def scrape(self, **params: Unpack[types.ScrapeParams]) -> types.ScrapeResponse:
        """A page as Markdown, with its links."""
        return await self._client._call("scrape", None, params)

    async def scrape_document(self, **params: Unpack[types.ScrapeDocumentParams]) -> types.ScrapeDocumentResponse:
        """A page in the formats asked for (markdown, html, links, images, screenshot, json, summary…)."""
        return await self._client._call("scrapeDocument", None, params)

    async def map(self, **params: Unpack[types.MapParams]) -> types.MapResponse:
        """A site's URLs, from its sitemaps and links."""
        return await self._client._call("map", None, params)

    async def search(self, **params: Unpack[types.WebSearchParams]) -> types.WebSearchResponse:
        """A web search through the server's SearXNG, 1 credit."""
        return await self._client._call("webSearch", None, params)

    async def batch_scrape(
        self, *, idempotency_key: str | None = None, **params: Unpack[types.BatchScrapeParams]
    ) -> types.BatchScrapeResponse:
        """Scrapes up to 1,000 pages with the same options (a job): follow it with ``iter_batch_scrape``."""
        return await self._client._call("batchScrape", None, params, idempotency_key=idempotency_key)

    async def batch_scrape_status(self, job_id: str, *, skip: int | None = None) -> types.BatchScrapePollResponse:
        return await self._client._call("batchScrapePoll", {"jobId": job_id}, {"skip": skip})

    def iter_batch_scrape(
        self, job_id: str, *, interval: float = 1.0, on_poll: OnPoll | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Every result of a batch scrape as it arrives; ends when the job has ended."""
        return self._client._follow("batchScrapePoll", job_id, "results", interval=interval, on_poll=on_poll)

    async def crawl(
        self, *, idempotency_key: str | None = None, **params: Unpack[types.CrawlParams]
    ) -> types.CrawlResponse:
        """Starts a crawl (a job): follow it with ``iter_crawl``, or use ``crawl_and_wait``."""
        return await self._client._call("crawl", None, params, idempotency_key=idempotency_key)

    async def crawl_status(self, job_id: str, *, skip: int | None = None) -> types.CrawlPollResponse:
        """One poll answer of a crawl: pages from ``skip``, and ``next`` while more remain."""
        return await self._client._call("crawlPoll", {"jobId": job_id}, {"skip": skip})

    def iter_crawl(
        self, job_id: str, *, skip: int = 0, interval: float = 1.0, on_poll: OnPoll | None = None
    ) -> AsyncIterator[dict[str, Any]]:
        """Every page of a crawl, in order, as the crawl produces them; ends when it has ended. A
        failed crawl raises JobFailedError after the pages it did scrape."""
        return self._client._follow("crawlPoll", job_id, "pages", skip=skip, interval=interval, on_poll=on_poll)

    async def crawl_and_wait(
        self,
        *,
        timeout: float = 600.0,
        interval: float = 1.0,
        on_page: Callable[[dict[str, Any]], None] | None = None,
        on_poll: OnPoll | None = None,
        idempotency_key: str | None = None,
        **params: Unpack[types.CrawlParams],
    ) -> dict[str, Any]:
        """Starts a crawl and waits for it to end: its last poll answer with every page (not paged)
        and ``jobId``. Raises JobTimeoutError after ``timeout`` seconds (the crawl goes on)."""
        accepted = await self.crawl(idempotency_key=idempotency_key, **params)
        job_id = accepted["jobId"]
        last: dict[str, Any] = {}

        def polled(answer: dict[str, Any]) -> None:
            last.update(answer)
            if on_poll is not None:
                on_poll(answer)

        pages = []
        follow = self._client._follow(
            "crawlPoll", job_id, "pages", interval=interval, on_poll=polled, deadline=monotonic() + timeout
        )
        async for page in follow:
            pages.append(page)
            if on_page is not None:
                on_page(page)
        last.pop("next", None)
        return {**last, "pages": pages, "jobId": job_id}


class AsyncVideo(_AsyncResource):
    """On-screen text and descriptions of videos (jobs)."""

    async def ocr(
        self, *, idempotency_key: str | None = None, **params: Unpack[types.OcrParams]
    ) -> types.OcrResponse:
        return await self._client._call("ocr", None, params, idempotency_key=idempotency_key)

    async def ocr_status(self, job_id: str) -> types.OcrPollResponse:
        return await self._client._call("ocrPoll", {"jobId": job_id})

    async def describe(
        self, *, idempotency_key: str | None = None, **params: Unpack[types.DescribeParams]
    ) -> types.DescribeResponse:
        return await self._client._call("describe", None, params, idempotency_key=idempotency_key)

    async def describe_status(self, job_id: str) -> types.DescribePollResponse:
        return await self._client._call("describePoll", {"jobId": job_id})
