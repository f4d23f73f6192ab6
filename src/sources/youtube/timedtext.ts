// Timedtext bodies → cues in milliseconds. Understands the default XML (<transcript><text start dur>,
// seconds), srv3 (<timedtext><body><p t d>, ms, words in <s>) and json3 (events/segs). Cue text is
// cleaned: XML then HTML entities decoded (the platform escapes twice), markup tags dropped,
// whitespace collapsed; empty cues are skipped. Pure.
import { Parser } from 'htmlparser2';

export interface Cue {
  text: string;
  /** Start, in ms. */
  offset: number;
  /** In ms. */
  duration: number;
}

/** Caption text as HTML → plain text: tags dropped, entities decoded, whitespace collapsed. */
export function cleanCaptionText(raw: string): string {
  if (!/[<&]/.test(raw)) return raw.replace(/\s+/g, ' ').trim();
  let out = '';
  const parser = new Parser(
    {
      ontext(text) {
        out += text;
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(raw);
  parser.end();
  return out.replace(/\s+/g, ' ').trim();
}

const ms = (seconds: string | undefined) => {
  const n = Number(seconds);
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 1000) : null;
};

const msInt = (value: string | number | undefined) => {
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? Math.round(n) : null;
};

function parseXml(body: string): Cue[] {
  const cues: Cue[] = [];
  // The open cue: its timing and the raw (once-decoded) text gathered so far.
  let open: { offset: number; duration: number; text: string } | null = null;
  let depth = 0;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (open) {
          depth++;
          return;
        }
        if (name === 'text') {
          const offset = ms(attrs.start);
          if (offset !== null) open = { offset, duration: ms(attrs.dur) ?? 0, text: '' };
        } else if (name === 'p' && attrs.t !== undefined) {
          const offset = msInt(attrs.t);
          if (offset !== null) open = { offset, duration: msInt(attrs.d) ?? 0, text: '' };
        }
        depth = 0;
      },
      ontext(text) {
        if (open) open.text += text;
      },
      onclosetag() {
        if (!open) return;
        if (depth > 0) {
          depth--;
          return;
        }
        const text = cleanCaptionText(open.text);
        if (text) cues.push({ text, offset: open.offset, duration: open.duration });
        open = null;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(body);
  parser.end();
  return cues;
}

function parseJson3(body: string): Cue[] {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return [];
  }
  const events = (doc as { events?: unknown }).events;
  if (!Array.isArray(events)) return [];
  const cues: Cue[] = [];
  for (const e of events as Array<Record<string, unknown>>) {
    const offset = msInt(e?.tStartMs as number | undefined);
    if (offset === null || !Array.isArray(e.segs)) continue;
    const raw = (e.segs as Array<{ utf8?: unknown }>)
      .map((s) => (typeof s?.utf8 === 'string' ? s.utf8 : ''))
      .join('');
    const text = cleanCaptionText(raw);
    if (text) cues.push({ text, offset, duration: msInt(e.dDurationMs as number | undefined) ?? 0 });
  }
  return cues;
}

/** The cues of a timedtext body, in time order; [] when there are none (or it is not timedtext). */
export function parseTimedtext(body: string): Cue[] {
  const head = body.trimStart();
  const cues = head.startsWith('{') ? parseJson3(head) : head.startsWith('<') ? parseXml(head) : [];
  return cues.sort((a, b) => a.offset - b.offset);
}
