// Registers the AI job kinds (transcript by speech recognition, describe, extract) with what they
// use: the platforms registry, the downloader, scratch dirs, the providers and the OCR engine.
import path from 'node:path';
import type { Config } from '../config.js';
import type { JobRegistry } from '../jobs/registry.js';
import type { Platforms } from '../sources/platforms.js';
import type { MediaFetcher, MediaSources } from './ai/job-media.js';
import type { AiProviders } from './ai/providers.js';
import { registerDescribe } from './describe-job.js';
import { registerExtract } from './extract-job.js';
import { recogniseBatch } from './ocr/tesseract.js';
import type { Scratch } from './scratch.js';
import { registerSpeechTranscripts } from './transcript-job.js';

/** What the AI job kinds take from the process's services (a narrow view, not the whole bag). */
export interface AiJobServices {
  readonly config: Config;
  readonly platforms: Pick<Platforms, 'locate' | 'get'>;
  readonly jobs: { readonly registry: JobRegistry };
  readonly downloader: MediaFetcher;
  readonly scratch: Scratch;
  /** The process's AI providers (services.ts makes them, and closes them). */
  readonly ai: AiProviders;
}

export function registerAiJobs(services: AiJobServices): void {
  const { platforms, ai } = services;
  const sources: MediaSources = {
    locate: (url, signal) => platforms.locate(url, signal),
    nativeTranscript: (ref, request) => platforms.get(ref.platform).nativeTranscript(ref, request),
  };
  const deps = {
    registry: services.jobs.registry,
    sources,
    downloader: services.downloader,
    scratch: services.scratch,
    ai,
    settings: {
      maxMediaSeconds: services.config.ai.maxMediaSeconds,
      jobBudgetMs: services.config.ai.jobBudgetMs,
    },
  };
  registerSpeechTranscripts(deps);
  registerExtract(deps);
  registerDescribe({
    ...deps,
    // mode=ocr: the text Tesseract reads on each key frame, its lines top to bottom.
    readText: async (frames, signal) => {
      if (frames.length === 0) return [];
      const list = path.join(path.dirname(frames[0]!.path), 'ocr-frames.txt');
      const lines = await recogniseBatch(
        frames.map((f) => f.path),
        list,
        { signal },
      );
      return lines.map((l) => l.map((line) => line.text).join('\n'));
    },
  });
}
