// Reading the platform's captures where they lie (shared/fixtures/youtube, never copied into the
// project) and the hand-built fixtures of layouts no capture shows (test/fixtures-constructed).
// Parsed pages are memoised: the captures are up to 1.6 MB and several tests read the same one.
import fs from 'node:fs';
import path from 'node:path';
import { extractInitialData } from '../../src/sources/youtube/initial-data.js';
import type { JsonRecord } from '../../src/sources/youtube/tree.js';

export const CAPTURES = path.resolve(import.meta.dirname, '../../../shared/fixtures/youtube');
export const CONSTRUCTED = path.resolve(import.meta.dirname, '../fixtures-constructed/youtube');
/** Search answers captured by others and kept in the project (see its PROVENANCE.md). */
export const CAPTURED_SEARCH = path.resolve(import.meta.dirname, '../fixtures-captured/youtube-search');

/** A capture's text, by its path under shared/fixtures/youtube. */
export function capture(file: string): string {
  return fs.readFileSync(path.join(CAPTURES, file), 'utf8');
}

/** A capture that is JSON (player answers, pbj, the browse continuation). */
export function captureJson(file: string): unknown {
  return JSON.parse(capture(file));
}

const pages = new Map<string, JsonRecord>();

/** ytInitialData of an HTML capture; fails the test when the page has none. */
export function captureInitialData(file: string): JsonRecord {
  let data = pages.get(file);
  if (!data) {
    const found = extractInitialData(capture(file));
    if (!found) throw new Error(`no ytInitialData in ${file}`);
    data = found;
    pages.set(file, data);
  }
  return data;
}

/**
 * A captured search answer by its path under fixtures-captured/youtube-search: the ytInitialData of
 * the results page, or the JSON of a continuation (stored under an .html name by its project).
 */
export function capturedSearch(file: string): JsonRecord {
  const text = fs.readFileSync(path.join(CAPTURED_SEARCH, file), 'utf8');
  if (!text.trimStart().startsWith('<')) return JSON.parse(text) as JsonRecord;
  const found = extractInitialData(text);
  if (!found) throw new Error(`no ytInitialData in ${file}`);
  return found;
}

/** A constructed fixture (a fresh copy each call, so a test may change it). */
export function constructed(file: string): JsonRecord {
  return JSON.parse(fs.readFileSync(path.join(CONSTRUCTED, file), 'utf8')) as JsonRecord;
}
