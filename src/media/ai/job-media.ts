// What the AI job kinds (transcript, describe, extract) need from the rest of the service, and the
// first step they share: the media of a URL located, downloaded into the job's scratch dir, probed.

import type { Config } from '../../config.js';
import { permanent } from '../../errors.js';
import type { JobRegistry } from '../../jobs/registry.js';
import type { PerAccountLimit } from '../../jobs/types.js';
import type { MediaLocation, MediaRef, NativeTranscriptRequest } from '../../sources/platform.js';
import type { NativeTranscript } from '../../sources/transcript.js';
import { type ProbeResult, probe } from '../ffmpeg.js';
import type { Scratch } from '../scratch.js';
import type { AiProviders } from './providers.js';

/** The platforms registry, as these jobs use it. */
export interface MediaSources {
  locate(url: string, signal?: AbortSignal): Promise<{ ref: MediaRef; location: MediaLocation }>;
  /** The platform's own captions; AppError transcript_unavailable when it has none. */
  nativeTranscript(ref: MediaRef, request: NativeTranscriptRequest): Promise<NativeTranscript>;
}

export interface MediaFetcher {
  download(
    location: MediaLocation,
    dir: string,
    options: { signal?: AbortSignal },
  ): Promise<{ path: string; bytes: number; contentType: string | null }>;
}

export interface AiJobSettings {
  /** Longest media one job takes. */
  maxMediaSeconds: number;
  /** All provider calls of one attempt. */
  jobBudgetMs: number;
}

export interface AiJobDeps {
  registry: JobRegistry;
  sources: MediaSources;
  downloader: MediaFetcher;
  scratch: Scratch;
  ai: AiProviders;
  settings: AiJobSettings;
}

export interface FetchedMedia {
  ref: MediaRef;
  location: MediaLocation;
  file: string;
  probed: ProbeResult;
}

export async function fetchMedia(
  deps: Pick<AiJobDeps, 'sources' | 'downloader'>,
  url: string,
  dir: string,
  signal: AbortSignal,
  /** Longer media is refused (413) — before downloading when the platform tells the length. */
  maxSeconds?: number,
): Promise<FetchedMedia> {
  const { ref, location } = await deps.sources.locate(url, signal);
  const tooLong = (seconds: number | null) => {
    if (maxSeconds !== undefined && seconds !== null && seconds > maxSeconds) {
      throw permanent(
        `The media lasts ${Math.ceil(seconds / 60)} minutes; this server takes at most ${Math.floor(maxSeconds / 60)}`,
        'payload_too_large',
      );
    }
  };
  tooLong(location.durationSec);
  const media = await deps.downloader.download(location, dir, { signal });
  const probed = await probe(media.path, { signal });
  tooLong(probed.durationSec);
  return { ref, location, file: media.path, probed };
}

/** Per-attempt time limit of an AI job: its provider budget plus room for downloading and ffmpeg. */
export const aiJobTimeoutMs = (settings: AiJobSettings) => settings.jobBudgetMs + 10 * 60_000;

/**
 * The live-job limit the media kinds (speech transcripts, OCR, describe, extract) count against
 * together: UNFURL_ACCOUNT_MAX_MEDIA_JOBS.
 */
export const MEDIA_JOBS_LIMIT = {
  key: 'mediaJobs',
  name: 'media jobs (speech, OCR, describe, extract)',
} as const satisfies PerAccountLimit<keyof Config['accountJobLimits']>;
