"""Transcripts, metadata and batches of the video-sharing platform (the replay server)."""

from __future__ import annotations

import os

import pytest

from unfurl import NotFoundError, Unfurl

VIDEO = "GJLlxj_dtq8"
PLAYLIST = "PLzMcBGfZo4-mP7qA9cagf68V06sko5otr"


def test_transcripts(client: Unfurl) -> None:
    chunks = client.transcript(url=f"https://www.youtube.com/watch?v={VIDEO}", mode="native")
    assert isinstance(chunks["content"], list) and chunks["availableLangs"]
    text = client.vidsite.transcript(video_id=VIDEO, text=True, mode="native", chunk_size=500)
    assert isinstance(text["content"], str) and text["content"]
    translated = client.vidsite.translate(video_id=VIDEO, lang="nl")
    assert translated["lang"] == "nl"


def test_metadata_of_videos_channels_and_playlists(client: Unfurl) -> None:
    assert client.vidsite.video(VIDEO)["id"] == VIDEO
    channel = os.environ["UNFURL_TEST_CHANNEL"]
    assert client.vidsite.channel(channel)["id"] == channel
    assert client.vidsite.playlist(PLAYLIST)["id"] == PLAYLIST
    meta = client.metadata(f"https://www.youtube.com/watch?v={VIDEO}")
    assert (meta["platform"], meta["type"], meta["id"]) == ("youtube", "video", VIDEO)
    found = client.vidsite.search(query="test", features=["hd"])
    assert found["query"] == "test" and found["results"]
    assert isinstance(client.vidsite.channel_videos(id=channel, limit=5)["videoIds"], list)
    assert isinstance(client.vidsite.playlist_videos(id=PLAYLIST, limit=5)["videoIds"], list)
    assert isinstance(client.vidsite.comments(id=VIDEO, limit=5), list)


def test_a_video_that_is_not_there(client: Unfurl) -> None:
    with pytest.raises(NotFoundError) as caught:
        client.transcript(url="https://www.youtube.com/watch?v=nosuchvid01", mode="native")
    assert caught.value.status == 404 and caught.value.details == "nosuchvid01"


def test_video_and_transcript_batches(client: Unfurl) -> None:
    job_id = client.vidsite.video_batch(video_ids=[VIDEO, "nosuchvid01"])["jobId"]
    results = list(client.vidsite.iter_batch(job_id, interval=0.1))
    assert [r["videoId"] for r in results] == [VIDEO, "nosuchvid01"]
    done = client.jobs.wait(job_id, interval=0.1)
    assert done["stats"]["total"] == 2 and done == client.vidsite.batch(job_id)
    job_id = client.vidsite.transcript_batch(video_ids=[VIDEO], text=True)["jobId"]
    (only,) = list(client.vidsite.iter_batch(job_id, interval=0.1))
    assert only["videoId"] == VIDEO


def test_a_microblog_post_and_its_metadata(client: Unfurl) -> None:
    url = "https://twitter.com/SpaceX/status/1848831595014459513"
    post = client.microblog.post(url)
    assert post["id"] == "1848831595014459513" and post["author"]
    assert client.metadata(url)["platform"] == "twitter"


def test_describe_and_ocr_run_as_jobs(client: Unfurl) -> None:
    video = f"https://www.youtube.com/watch?v={VIDEO}"
    for start, status in ((client.video.describe, client.video.describe_status), (client.video.ocr, client.video.ocr_status)):
        accepted = start(url=video)
        ended = client.jobs.wait(accepted["jobId"], interval=0.1, raise_on_failure=False)
        assert ended["status"] in ("completed", "failed")
        assert status(accepted["jobId"])["status"] == ended["status"]
