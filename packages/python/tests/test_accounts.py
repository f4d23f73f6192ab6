"""Accounts, sessions, keys, credits and usage."""

from __future__ import annotations

import time

import pytest
from conftest import unique_email

from unfurl import AuthenticationError, PermissionDeniedError, Unfurl


def test_register_login_and_keys() -> None:
    email = unique_email("accounts")
    with Unfurl(api_key="") as anonymous:
        registration = anonymous.auth.register(email, "correct horse battery")
        assert registration["apiKey"].startswith("uf_")
        session = anonymous.auth.login(email, "correct horse battery")
    with Unfurl(api_key=session["token"]) as c:
        assert c.account.get()["credits"] == 100
        assert [s["current"] for s in c.auth.sessions()] == [True]
        created = c.keys.create("ci")
        names = [k["name"] for k in c.keys.list()]
        assert "ci" in names
        assert c.keys.revoke(created["id"])["revoked"] is True
        with Unfurl(api_key=created["key"]) as revoked, pytest.raises(AuthenticationError):
            revoked.account.get()
        # An API key cannot log out; the session token can, once.
        with Unfurl(api_key=registration["apiKey"]) as by_key, pytest.raises(PermissionDeniedError):
            by_key.auth.logout()
        c.auth.logout()
        with pytest.raises(AuthenticationError):
            c.account.get()


def test_password_change_ends_other_sessions() -> None:
    email = unique_email("password")
    with Unfurl(api_key="") as anonymous:
        anonymous.auth.register(email, "correct horse battery")
        first = anonymous.auth.login(email, "correct horse battery")
        second = anonymous.auth.login(email, "correct horse battery")
    with Unfurl(api_key=second["token"]) as c:
        other = [s for s in c.auth.sessions() if not s["current"]][0]
        assert c.auth.revoke_session(other["id"])["revoked"] is True
        changed = c.auth.change_password("correct horse battery", "a new and better one", revoke_api_keys=True)
        assert changed["changed"] is True and changed["apiKeysRevoked"] == 1
    with Unfurl(api_key=first["token"]) as ended, pytest.raises(AuthenticationError):
        ended.account.get()


def test_credits_usage_and_summary(fresh: Unfurl) -> None:
    with Unfurl(api_key="") as anonymous:
        assert "credits_500" in [p["id"] for p in anonymous.credits.packages()]
    checkout = fresh.credits.purchase("credits_500")
    assert checkout["packageId"] == "credits_500" and checkout["checkoutUrl"].startswith("http")
    page = fresh.account.usage(limit=5, type="grant")
    assert page["total"] == 1 and page["transactions"][0]["amount"] == 100
    assert [t["type"] for t in fresh.account.iter_usage(page_size=1)] == ["grant"]
    summary = fresh.account.usage_summary(bucket="hour", from_=int(time.time() * 1000) - 3_600_000)
    assert summary["totals"]["granted"] == 100
    me = fresh.account.me()
    assert me["plan"] == "self-hosted" and me["usedCredits"] == 0
    assert fresh.account.rotate_webhook_secret()["webhookSecret"].startswith("whsec_")
    assert fresh.last_credits is None or fresh.last_credits.remaining is not None


def test_health_and_ready(client: Unfurl) -> None:
    assert client.health()["status"] == "ok"
    assert client.ready()["status"] == "ready"
