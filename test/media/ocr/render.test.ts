// The OCR formats: srt and vtt a player loads, one line per segment for text, the segments for json.
import { describe, expect, it } from 'vitest';
import { renderSegments, toSrt, toText, toVtt } from '../../../src/media/ocr/render.js';

const segments = [
  { text: 'Hello world', startMs: 1000, endMs: 3500 },
  { text: 'Price <49.99> & more --> now', startMs: 3_723_004, endMs: 3_725_000 },
];

describe('OCR renderers', () => {
  it('srt: numbered cues with comma milliseconds and hours', () => {
    expect(toSrt(segments)).toBe(
      '1\n00:00:01,000 --> 00:00:03,500\nHello world\n\n' +
        '2\n01:02:03,004 --> 01:02:05,000\nPrice <49.99> & more -> now\n',
    );
  });

  it('vtt: header, dot milliseconds, markup escaped, no arrow inside a cue', () => {
    expect(toVtt(segments)).toBe(
      'WEBVTT\n\n00:00:01.000 --> 00:00:03.500\nHello world\n\n' +
        '01:02:03.004 --> 01:02:05.000\nPrice &lt;49.99&gt; &amp; more -&gt; now\n',
    );
  });

  it('text: one line per segment; json: the segments', () => {
    expect(toText(segments)).toBe('Hello world\nPrice <49.99> & more --> now'.replace('-->', '->'));
    expect(JSON.parse(renderSegments(segments, 'json'))).toEqual(segments);
    expect(renderSegments([], 'vtt')).toBe('WEBVTT\n');
    expect(renderSegments([], 'srt')).toBe('');
    expect(renderSegments(segments, 'text')).toBe(toText(segments));
  });
});
