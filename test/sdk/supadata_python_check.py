"""Every public method of Supadata's Python SDK (1.6.0, unchanged) against a running Unfurl.

Run by test/sdk/supadata-python.test.ts: reads a JSON plan from argv[1] (base URL, key, ids, URLs),
calls each method and prints one JSON object: per method either {"ok": …values…} or {"error": "…"}.
"""

import dataclasses
import datetime
import json
import os
import sys
import time
import traceback
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "vendor", "supadata-py")))

from supadata import Supadata, SupadataError  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)
plan = json.loads(sys.argv[1])
client = Supadata(api_key=plan["key"], base_url=plan["base"])


def plain(value):
    """Dataclasses, datetimes and lists as JSON values."""
    if dataclasses.is_dataclass(value):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime.datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def wait_batch(job_id):
    deadline = time.time() + 30
    while True:
        res = client.youtube.batch.get_batch_results(job_id)
        if res.status in ("completed", "failed") or time.time() > deadline:
            return res
        time.sleep(0.1)


video_url = "https://www.youtube.com/watch?v=" + plan["video"]
CALLS = {
    "transcript": lambda: client.transcript(url=video_url, mode="native"),
    "transcript_text": lambda: client.transcript(url=video_url, text=True, mode="native"),
    "metadata_video": lambda: client.metadata(video_url),
    "metadata_tiktok": lambda: client.metadata(plan["tiktok"]),
    "metadata_instagram": lambda: client.metadata(plan["instagram"]),
    "metadata_twitter": lambda: client.metadata(plan["twitter"]),
    "extract": lambda: client.extract(url=video_url, prompt="The topics"),
    "youtube.video": lambda: client.youtube.video(plan["video"]),
    "youtube.channel": lambda: client.youtube.channel(plan["channel"]),
    "youtube.channel.videos": lambda: client.youtube.channel.videos(plan["channel"], limit=5),
    "youtube.playlist": lambda: client.youtube.playlist(plan["playlist"]),
    "youtube.playlist.videos": lambda: client.youtube.playlist.videos(plan["playlist"], limit=5),
    "youtube.transcript": lambda: client.youtube.transcript(plan["video"], text=True),
    "youtube.transcript.translate": lambda: client.youtube.transcript.translate(plan["video"], "nl"),
    "youtube.translate": lambda: client.youtube.translate(plan["video"], "nl"),
    "youtube.search": lambda: client.youtube.search(plan["query"]),
    "youtube.video.batch": lambda: wait_batch(
        client.youtube.video.batch(video_ids=[plan["video"], "nosuchvid01"]).job_id
    ),
    "youtube.transcript.batch": lambda: wait_batch(
        client.youtube.transcript.batch(video_ids=[plan["video"]], text=True).job_id
    ),
    "web.scrape": lambda: client.web.scrape(plan["site"] + "/docs/p/1"),
    "web.map": lambda: client.web.map(plan["site"] + "/docs"),
    "web.crawl": lambda: client.web.get_crawl_results(
        client.web.crawl(plan["site"] + "/docs", limit=plan["crawlLimit"]).job_id
    ),
}

out = {}
for name, call in CALLS.items():
    try:
        out[name] = {"ok": plain(call())}
    except SupadataError as e:
        out[name] = {"supadataError": plain(e)}
    except Exception:
        out[name] = {"error": traceback.format_exc(limit=3)}

# extract.get_results on the job started above.
try:
    job = out["extract"]["ok"]["job_id"]
    out["extract.get_results"] = {"ok": plain(client.extract.get_results(job))}
except Exception:
    out["extract.get_results"] = {"error": traceback.format_exc(limit=3)}

# An error answer reaches the caller as SupadataError, in the hosted casing.
try:
    client.metadata("https://www.youtube.com/watch?v=nosuchvid01")
    out["error"] = {"error": "no error raised"}
except SupadataError as e:
    out["error"] = {"supadataError": plain(e)}
except Exception:
    out["error"] = {"error": traceback.format_exc(limit=3)}

print(json.dumps(out))
