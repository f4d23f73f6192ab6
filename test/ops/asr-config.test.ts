// The speech-recognition settings: which engine, the whisper.cpp model file and its process
// settings, and the caption-block fallback — parsed and checked at start, naming the variable.
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const configError = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    return err;
  }
  throw new Error('expected a ConfigError');
};

describe('speech recognition settings', () => {
  it('default to the provider, no model file, the fallback on', () => {
    const config = loadConfig({});
    expect(config.ai.asrEngine).toBe('provider');
    expect(config.ai.asr.model).toBe('whisper-1');
    expect(config.ai.whisper).toMatchObject({
      modelPath: null,
      threads: os.availableParallelism(),
      processes: 1,
      idleMs: 300_000,
      timeoutFactor: 3,
    });
    expect(config.transcripts.fallbackOnBlock).toBe(true);
  });

  it('UNFURL_ASR_ENGINE=whisper takes UNFURL_ASR_MODEL as a file, made absolute, and its process settings', () => {
    const config = loadConfig({
      UNFURL_ASR_ENGINE: 'Whisper',
      UNFURL_ASR_MODEL: 'models/ggml-base.en.bin',
      UNFURL_ASR_THREADS: '3',
      UNFURL_ASR_PROCESSES: '2',
      UNFURL_ASR_IDLE_SECONDS: '0',
      UNFURL_ASR_TIMEOUT_FACTOR: '0.5',
      UNFURL_TRANSCRIPT_BLOCK_FALLBACK: 'false',
    });
    expect(config.ai.asrEngine).toBe('whisper');
    expect(config.ai.whisper).toEqual({
      modelPath: path.resolve('models/ggml-base.en.bin'),
      threads: 3,
      processes: 2,
      idleMs: 0,
      timeoutFactor: 0.5,
    });
    expect(config.transcripts.fallbackOnBlock).toBe(false);
  });

  it('refuses to start on a wrong engine, a whisper engine without a model, or bad numbers', () => {
    expect(configError({ UNFURL_ASR_ENGINE: 'vosk' })).toMatchObject({ variable: 'UNFURL_ASR_ENGINE' });
    const noModel = configError({ UNFURL_ASR_ENGINE: 'whisper' });
    expect(noModel).toBeInstanceOf(ConfigError);
    expect(noModel).toMatchObject({ variable: 'UNFURL_ASR_MODEL' });
    const model = { UNFURL_ASR_ENGINE: 'whisper', UNFURL_ASR_MODEL: '/m.bin' };
    expect(configError({ ...model, UNFURL_ASR_THREADS: '0' })).toMatchObject({
      variable: 'UNFURL_ASR_THREADS',
    });
    expect(configError({ ...model, UNFURL_ASR_PROCESSES: 'two' })).toMatchObject({
      variable: 'UNFURL_ASR_PROCESSES',
    });
    expect(configError({ ...model, UNFURL_ASR_TIMEOUT_FACTOR: '-1' })).toMatchObject({
      variable: 'UNFURL_ASR_TIMEOUT_FACTOR',
    });
    expect(configError({ UNFURL_TRANSCRIPT_BLOCK_FALLBACK: 'maybe' })).toMatchObject({
      variable: 'UNFURL_TRANSCRIPT_BLOCK_FALLBACK',
    });
  });
});
