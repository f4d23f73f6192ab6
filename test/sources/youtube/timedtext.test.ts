// Timedtext parsing: the recorded XML capture (escaped <i> tag, empty cue), and the srv3 and json3
// layouts the platform also serves (built by hand here: no capture of them exists).
import { describe, expect, it } from 'vitest';
import { cleanCaptionText, parseTimedtext } from '../../../src/sources/youtube/timedtext.js';
import { CAPTURES, youtubeText } from '../../support/youtube-replay.js';

describe('parseTimedtext', () => {
  it('reads the recorded XML: seconds to ms, markup dropped, empty cues skipped', () => {
    expect(parseTimedtext(youtubeText(CAPTURES.transcriptXml))).toEqual([
      { text: 'Hey, this is just a test', offset: 0, duration: 1540 },
      { text: 'this is not the original transcript', offset: 1540, duration: 4160 },
      { text: 'just something shorter, I made up for testing', offset: 5700, duration: 3239 },
    ]);
  });

  it('decodes entities escaped twice, line breaks and a missing dur', () => {
    const xml = `<?xml version="1.0" encoding="utf-8" ?><transcript>
<text start="1.5" dur="2">It&amp;#39;s &amp;quot;fine&amp;quot; &amp;amp; good</text>
<text start="3.5">Tom &amp; Jerry
run &lt;b&gt;fast&lt;/b&gt;</text>
<text start="0.25" dur="0.5">[Music]</text>
</transcript>`;
    expect(parseTimedtext(xml)).toEqual([
      { text: '[Music]', offset: 250, duration: 500 },
      { text: 'It\'s "fine" & good', offset: 1500, duration: 2000 },
      { text: 'Tom & Jerry run fast', offset: 3500, duration: 0 },
    ]);
  });

  it('reads srv3 (<p t d> in ms, words in <s>)', () => {
    const srv3 = `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><head><ws id="0"/></head><body>
<p t="120" d="2880" w="1"><s ac="0">hello</s><s t="480" ac="0"> world</s></p>
<p t="3000" d="1500">second line</p>
<p t="4600" d="10"></p>
</body></timedtext>`;
    expect(parseTimedtext(srv3)).toEqual([
      { text: 'hello world', offset: 120, duration: 2880 },
      { text: 'second line', offset: 3000, duration: 1500 },
    ]);
  });

  it('reads json3 events', () => {
    const json3 = JSON.stringify({
      wireMagic: 'pb3',
      events: [
        { tStartMs: 0, dDurationMs: 5000, id: 1, wpWinPosId: 1 },
        { tStartMs: 80, dDurationMs: 3000, segs: [{ utf8: 'so' }, { utf8: ' today', tOffsetMs: 400 }] },
        { tStartMs: 3100, aAppend: 1, segs: [{ utf8: '\n' }] },
        { tStartMs: 3200, dDurationMs: 1000, segs: [{ utf8: 'we &amp; you' }] },
      ],
    });
    expect(parseTimedtext(json3)).toEqual([
      { text: 'so today', offset: 80, duration: 3000 },
      { text: 'we & you', offset: 3200, duration: 1000 },
    ]);
  });

  it('answers [] for empty bodies, captcha pages and junk', () => {
    for (const body of [
      '',
      '   ',
      '<transcript></transcript>',
      youtubeText(CAPTURES.recaptchaPage),
      'nope',
      '{"x":1}',
      '{bad',
    ]) {
      expect(parseTimedtext(body)).toEqual([]);
    }
  });
});

describe('cleanCaptionText', () => {
  it('leaves plain text alone apart from whitespace', () => {
    expect(cleanCaptionText('  a\n b\t c ')).toBe('a b c');
    expect(cleanCaptionText('1 < 2 and 3 > 2')).toBe('1 < 2 and 3 > 2');
    expect(cleanCaptionText('<font color="#E5E5E5">grey</font> text&nbsp;here')).toBe('grey text here');
  });
});
