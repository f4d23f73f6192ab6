"""Monitors of a page of the loopback website: create, check, events, feed, pause, delete."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from unfurl import NotFoundError, Unfurl


def test_monitor_lifecycle(fresh: Unfurl, site: str) -> None:
    monitor = fresh.monitors.create(kind="page", target=f"{site}/docs/p/7", every="1h")
    monitor_id = monitor["id"]
    assert [m["id"] for m in fresh.monitors.list(page_size=1)] == [monitor_id]
    assert fresh.monitors.page(limit=5)["monitors"][0]["id"] == monitor_id
    check = fresh.monitors.check(monitor_id)
    done = fresh.jobs.wait(check["jobId"], kind="monitor_check", interval=0.05)
    assert done["status"] == "completed"
    assert fresh.monitors.get(monitor_id)["id"] == monitor_id
    paused = fresh.monitors.pause(monitor_id)
    assert (paused["status"], paused["pausedReason"]) == ("paused", "user")
    assert fresh.monitors.resume(monitor_id)["status"] == "active"
    kinds = [e["type"] for e in fresh.monitors.events(monitor_id, page_size=1)]
    assert kinds[:2] == ["monitor.resumed", "monitor.paused"]
    assert fresh.monitors.events_page(monitor_id, limit=1)["events"][0]["type"] == "monitor.resumed"
    feed_url = fresh.monitors.rotate_feed_token(monitor_id)["feedUrl"]
    token = parse_qs(urlsplit(feed_url).query)["token"][0]
    assert fresh.monitors.feed(monitor_id, token).startswith("<?xml")
    assert fresh.monitors.update(monitor_id, name="docs page 7")["name"] == "docs page 7"
    # None clears a field.
    assert fresh.monitors.update(monitor_id, name=None)["name"] is None
    assert fresh.monitors.delete(monitor_id)["deleted"] is True
    with pytest.raises(NotFoundError):
        fresh.monitors.get(monitor_id)
