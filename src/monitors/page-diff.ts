// Page-monitor comparison of two scrapes of one page (Markdown). Pages flicker from fetch to fetch
// (timestamps, tokens in URLs, rotating ads), so equality is decided on a normalised form of each line
// and on "slots": positions in the page learned to change on every fetch. Pure functions, no I/O.
//
// Slot ids. A block's slot id must not depend on its own text (an ad's text differs every fetch), so it is
// derived from where the block sits: sha256 of the normalised text of its anchor (the nearest preceding
// block that is not itself volatile; '' at the top of the page) plus its ordinal after that anchor.
// Volatile blocks never become anchors, so the block after a rotating ad keeps a stable id too. Both
// learnVolatile and comparePages walk the blocks in order with the same rule, so a slot learned from two
// fetches is recognised in any later fetch with the same surroundings. Content that comes and goes (a
// banner present on one fetch only) is learned as a gap id instead: the pair of stable blocks around it.
import { createHash } from 'node:crypto';
import { type ChangeObject, diffArrays } from 'diff';

export interface PageComparison {
  changed: boolean;
  /** Unified diff (`--- before` / `+++ after` headers, @@ hunks, 3 lines of context) of the Markdown, holding only the real changes: lines that differ only by noise, and blocks in volatile slots, do not appear as changes. '' when unchanged. */
  diff: string;
  /** The sections (heading paths; '' for content before the first heading) with a real change, in page order, each with the changed blocks' text before and after. */
  sections: Array<{ section: string; before: string[]; after: string[] }>;
  /** Counts of real changed lines. */
  added: number;
  removed: number;
}

const CONTEXT = 3;
const MAX_DIFF_CHARS = 200_000;
const TRUNCATED = '… (diff truncated)\n';
/** Myers is O((N+M)·D); past this many edits the middle of the page is treated as one replaced region. */
const MAX_EDITS = 2_000;
const SECTION_SEPARATOR = ' › ';

// ---------------------------------------------------------------------------------------------------
// Line normalisation: mask what differs between fetches by its form, not by its meaning.

const MONTH =
  '(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';
const WEEKDAY = '(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*\\.?,?\\s+)?';
const ZONE = '(?:\\s*(?:Z|UTC|GMT|[+-]\\d{2}:?\\d{2}|[A-Z]{1,4}[SD]T)(?![A-Za-z]))?';

/** Link and image targets: the query and fragment are dropped (tokens, utm_, cache-busters live there). */
const LINK_TARGET = /(\]\(\s*<?)([^)\s>?#]*)[?#][^)\s>]*/g;
/** Bare and autolinked URLs, same treatment. */
const BARE_URL = /(\bhttps?:\/\/[^\s)>\]?#]*)[?#][^\s)>\]]*/gi;
const ISO_DATETIME = new RegExp(
  `\\b\\d{4}-\\d{2}-\\d{2}(?:[T ]\\d{2}:\\d{2}(?::\\d{2}(?:[.,]\\d+)?)?${ZONE})?(?![\\d])`,
  'g',
);
const DAY_MONTH_YEAR = new RegExp(
  `\\b${WEEKDAY}\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH}\\.?,?\\s+\\d{4}\\b`,
  'gi',
);
const MONTH_DAY_YEAR = new RegExp(
  `\\b${WEEKDAY}${MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}\\b`,
  'gi',
);
const NUMERIC_DATE = /\b\d{1,2}[/.]\d{1,2}[/.]\d{4}\b/g;
// Case-sensitive so that the zone letters cannot eat a following word ("10:42 first").
const TIME = new RegExp(
  `\\b\\d{1,2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:\\s*[aApP]\\.?[mM]\\b\\.?)?${ZONE}`,
  'g',
);
const RELATIVE =
  /\b(?:(?:\d+|an?|one|a few|few|several)\s+(?:sec(?:ond)?s?|min(?:ute)?s?|hours?|hrs?|days?|weeks?|wks?|months?|years?|yrs?)|\d+\s*[smhdwy])\s+ago\b|\b(?:just now|moments? ago|a moment ago|yesterday|today)\b/gi;
const MONTH_NAME = /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;
const RELATIVE_WORDS = /\b(?:ago|just now|yesterday|today)\b/i;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
/** Runs of 16+ token characters; masked only when they mix letters and digits (hex ids, base64 blobs). */
const TOKEN_RUN = /(?<![A-Za-z0-9+_=])[A-Za-z0-9+_]{16,}={0,2}(?![A-Za-z0-9+_=])/g;

function maskToken(run: string): string {
  return /\d/.test(run) && /[A-Za-z]/.test(run) ? '<token>' : run;
}

/** The form lines are compared in: noise masked, query strings of links dropped, whitespace collapsed. */
export function normalizeLine(line: string): string {
  let out = /[?#]/.test(line) ? line.replace(LINK_TARGET, '$1$2').replace(BARE_URL, '$1') : line;
  // Every mask below but the relative words needs a digit: most prose lines skip them (speed on big pages).
  if (/\d/.test(out)) out = maskNumeric(out);
  else if (RELATIVE_WORDS.test(out)) out = out.replace(RELATIVE, '<ago>');
  return out.replace(/\s+/g, ' ').trim();
}

/** Each mask runs only when a cheap test says it may match: most lines need none of them. */
const as = (placeholder: string) => () => placeholder;
const NUMERIC_MASKS: ReadonlyArray<{ when: RegExp; mask: RegExp; by: (match: string) => string }> = [
  { when: /\d-\d/, mask: ISO_DATETIME, by: as('<date>') },
  { when: MONTH_NAME, mask: DAY_MONTH_YEAR, by: as('<date>') },
  { when: MONTH_NAME, mask: MONTH_DAY_YEAR, by: as('<date>') },
  { when: /\d[/.]\d/, mask: NUMERIC_DATE, by: as('<date>') },
  { when: /\d:\d/, mask: TIME, by: as('<time>') },
  { when: RELATIVE_WORDS, mask: RELATIVE, by: as('<ago>') },
  { when: /[0-9a-f]-[0-9a-f]/i, mask: UUID, by: as('<token>') },
  { when: /[A-Za-z0-9+_]{16}/, mask: TOKEN_RUN, by: maskToken },
];

function maskNumeric(line: string): string {
  let out = line;
  for (const { when, mask, by } of NUMERIC_MASKS) {
    if (!when.test(out)) continue;
    out = out.replace(mask, by);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Blocks

interface Block {
  /** Original lines, as a human reads them. */
  lines: string[];
  /** 0-based index of the first line in the source. */
  start: number;
  /** Normalised text, what equality is decided on. */
  norm: string;
  /** Heading path above the block (a heading's own path includes itself). */
  section: string;
  /** Whether a blank line follows it in the source (list items often have none). */
  blankAfter: boolean;
}

interface SlottedBlock extends Block {
  /** Slot id; '' for a stable block when no volatile slots are known (hashing every block is costly). */
  slot: string;
  volatile: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*$/;
/** Top-level list items only: nested items stay with their parent. */
const LIST_ITEM = /^ ?(?:[-*+]|\d{1,9}[.)])\s+\S/;

function headingText(raw: string | undefined): string {
  return (raw ?? '')
    .replace(/\s+#+\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Splits Markdown into paragraphs, headings, fenced code blocks and top-level list items. */
function splitBlocks(markdown: string, cache: LineCache = new Map()): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  const path: Array<{ level: number; text: string }> = [];
  const sectionName = (): string => path.map((h) => h.text).join(SECTION_SEPARATOR);
  let current: string[] = [];
  let start = 0;
  let fence: string | undefined;

  const flush = (): void => {
    if (current.length === 0) return;
    const blankAfter = (lines[start + current.length] ?? 'end').trim() === '';
    blocks.push({
      lines: current,
      start,
      norm: normalizeBlock(current, cache),
      section: sectionName(),
      blankAfter,
    });
    current = [];
  };
  const open = (i: number, line: string): void => {
    start = i;
    current = [line];
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (fence !== undefined) {
      current.push(line);
      if (isFenceClose(line, fence)) {
        fence = undefined;
        flush();
      }
      continue;
    }
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      flush();
      open(i, line);
      fence = fenceMatch[1] ?? '```';
      continue;
    }
    if (line.trim() === '') {
      flush();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      const level = heading[1]?.length ?? 1;
      while (path.length > 0 && (path[path.length - 1]?.level ?? 0) >= level) path.pop();
      path.push({ level, text: headingText(heading[2]) });
      open(i, line);
      flush();
      continue;
    }
    if (LIST_ITEM.test(line)) flush();
    if (current.length === 0) open(i, line);
    else current.push(line);
  }
  flush();
  return blocks;
}

function isFenceClose(line: string, fence: string): boolean {
  const trimmed = line.trim();
  const char = fence[0] ?? '`';
  return trimmed.length >= fence.length && trimmed === char.repeat(trimmed.length);
}

/** Normalised lines by original line: the two fetches share almost all their lines, so each is masked once. */
type LineCache = Map<string, string>;

function normalizeBlock(lines: readonly string[], cache: LineCache): string {
  return lines.map((line) => cachedNormalize(line, cache)).join('\n');
}

function cachedNormalize(line: string, cache: LineCache): string {
  let norm = cache.get(line);
  if (norm === undefined) {
    norm = normalizeLine(line);
    cache.set(line, norm);
  }
  return norm;
}

function slotId(anchor: string, ordinal: number): string {
  return `${createHash('sha256').update(anchor).digest('hex').slice(0, 16)}.${ordinal}`;
}

/** Assigns slot ids in page order; blocks judged volatile are skipped as anchors (see the header). */
function assignSlots(
  blocks: readonly Block[],
  known: ReadonlySet<string>,
  forced: (index: number) => boolean = () => false,
): SlottedBlock[] {
  let anchor = '';
  let ordinal = 0;
  return blocks.map((block, index) => {
    let slot = known.size > 0 ? slotId(anchor, ordinal) : '';
    const volatile = forced(index) || (slot !== '' && known.has(slot));
    if (volatile) {
      slot ||= slotId(anchor, ordinal);
      ordinal++;
    } else {
      anchor = block.norm;
      ordinal = 0;
    }
    return { ...block, slot, volatile };
  });
}

/** What blocks are aligned on: the slot for volatile blocks (any text in that slot is "the same"). */
function alignKey(block: SlottedBlock): string {
  return block.volatile ? `\u0000slot:${block.slot}` : block.norm;
}

// ---------------------------------------------------------------------------------------------------
// Alignment

/** A stretch where the two sides differ: before[aFrom, aTo) was replaced by after[bFrom, bTo). */
interface Region {
  aFrom: number;
  aTo: number;
  bFrom: number;
  bTo: number;
}

type Step = { kind: 'equal'; a: number; b: number } | { kind: 'change'; region: Region };

/**
 * Aligns two key sequences: common prefix and suffix first (the usual monitor case is a small change in
 * a big page), jsdiff's Myers in the middle, bounded by MAX_EDITS so a rewritten page stays cheap.
 */
function align(a: readonly string[], b: readonly string[]): Step[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const steps: Step[] = [];
  for (let i = 0; i < head; i++) steps.push({ kind: 'equal', a: i, b: i });
  steps.push(...alignMiddle(a.slice(head, a.length - tail), b.slice(head, b.length - tail), head, head));
  for (let i = tail; i > 0; i--) steps.push({ kind: 'equal', a: a.length - i, b: b.length - i });
  return steps;
}

function alignMiddle(a: string[], b: string[], aBase: number, bBase: number): Step[] {
  if (a.length === 0 && b.length === 0) return [];
  const whole: Step[] = [
    {
      kind: 'change',
      region: { aFrom: aBase, aTo: aBase + a.length, bFrom: bBase, bTo: bBase + b.length },
    },
  ];
  if (a.length === 0 || b.length === 0) return whole;
  const changes = diffArrays(a, b, { maxEditLength: MAX_EDITS });
  return changes ? stepsFromChanges(changes, aBase, bBase) : whole;
}

/** Turns jsdiff change objects into equal pairs and merged change regions. */
function stepsFromChanges(changes: readonly ChangeObject<string[]>[], aBase: number, bBase: number): Step[] {
  const steps: Step[] = [];
  let ai = aBase;
  let bi = bBase;
  let open: Region | undefined;
  for (const change of changes) {
    if (!change.added && !change.removed) {
      open = undefined;
      for (let k = 0; k < change.count; k++) steps.push({ kind: 'equal', a: ai++, b: bi++ });
      continue;
    }
    if (!open) {
      open = { aFrom: ai, aTo: ai, bFrom: bi, bTo: bi };
      steps.push({ kind: 'change', region: open });
    }
    if (change.removed) ai += change.count;
    else bi += change.count;
    open.aTo = ai;
    open.bTo = bi;
  }
  return steps;
}

// ---------------------------------------------------------------------------------------------------
// Volatile slots

function toSet(volatile: ReadonlySet<string> | readonly string[] | undefined): ReadonlySet<string> {
  if (volatile === undefined) return new Set();
  return Array.isArray(volatile) ? new Set(volatile) : (volatile as ReadonlySet<string>);
}

/**
 * A gap id: the place between two stable blocks, for content that is sometimes there and sometimes not
 * (a banner inserted between the same two paragraphs). Kept apart from block slots because the block
 * after such a gap would otherwise share the banner's (anchor, ordinal) slot on fetches without it.
 */
function gapId(previous: string, next: string): string {
  const h = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);
  return `gap:${h(previous)}:${h(next)}`;
}

/** Normalised text of the nearest non-volatile block from `index` going in `step` direction ('' if none). */
function nearestStable(blocks: readonly SlottedBlock[], index: number, step: 1 | -1): string {
  for (let k = index; k >= 0 && k < blocks.length; k += step) {
    const block = blocks[k];
    if (block && !block.volatile) return block.norm;
  }
  return '';
}

function regionGap(blocks: readonly SlottedBlock[], from: number, to: number): string {
  return gapId(nearestStable(blocks, from - 1, -1), nearestStable(blocks, to, 1));
}

/**
 * Slots of blocks that differ between consecutive fetches of the same page: a block replaced by another
 * in the same place gives its slot (on both sides); blocks inserted or removed between the same anchors
 * give the gap's id. `known` (optional) are slots already learned: they are skipped as anchors, so the
 * ids found here match the ones comparePages computes with the union.
 */
export function learnVolatile(
  fetches: readonly string[],
  known?: ReadonlySet<string> | readonly string[],
): string[] {
  const knownSet = toSet(known);
  const found = new Set<string>();
  for (let i = 1; i < fetches.length; i++) {
    for (const id of volatileBetween(fetches[i - 1] ?? '', fetches[i] ?? '', knownSet)) found.add(id);
  }
  return [...found];
}

function volatileBetween(before: string, after: string, known: ReadonlySet<string>): string[] {
  const cache: LineCache = new Map();
  const a = splitBlocks(before, cache);
  const b = splitBlocks(after, cache);
  // First pass: align on text (known slots by slot) to see which blocks differ.
  const sa = assignSlots(a, known);
  const sb = assignSlots(b, known);
  const replacedA = new Set<number>();
  const replacedB = new Set<number>();
  const ids: string[] = [];
  for (const step of align(sa.map(alignKey), sb.map(alignKey))) {
    if (step.kind !== 'change') continue;
    const { aFrom, aTo, bFrom, bTo } = step.region;
    if (aFrom === aTo || bFrom === bTo) {
      ids.push(regionGap(sa, aFrom, aTo));
      continue;
    }
    for (let k = aFrom; k < aTo; k++) replacedA.add(k);
    for (let k = bFrom; k < bTo; k++) replacedB.add(k);
  }
  // Second pass: slot ids with the replaced blocks skipped as anchors, as comparePages will do.
  for (const [blocks, replaced] of [
    [a, replacedA],
    [b, replacedB],
  ] as const) {
    const slotted = assignSlots(blocks, known, (index) => replaced.has(index));
    slotted.forEach((block, index) => {
      if (replaced.has(index)) ids.push(block.slot);
    });
  }
  return ids;
}

// ---------------------------------------------------------------------------------------------------
// Comparison

interface LineOp {
  op: ' ' | '-' | '+';
  text: string;
  /** 1-based line numbers in before / after (a run of blank lines between blocks shows as one line). */
  oldNo: number;
  newNo: number;
}

/** A block's lines plus the blank line after it, if any, each with its 1-based line number. */
function numberedLines(block: Block): Array<{ text: string; no: number }> {
  const out = block.lines.map((text, k) => ({ text, no: block.start + k + 1 }));
  if (block.blankAfter) out.push({ text: '', no: block.start + block.lines.length + 1 });
  return out;
}

function contextOps(before: Block, after: Block): LineOp[] {
  const a = numberedLines(before);
  const b = numberedLines(after);
  return a.map((line, k) => ({ op: ' ', text: line.text, oldNo: line.no, newNo: b[k]?.no ?? line.no }));
}

/** Line ops for a changed region: lines equal once normalised are context (shown in their before form). */
function regionOps(
  before: readonly Block[],
  after: readonly Block[],
  oldNo: number,
  newNo: number,
  cache: LineCache,
): LineOp[] {
  const a = before.flatMap(numberedLines);
  const b = after.flatMap(numberedLines);
  const na = a.map((l) => cachedNormalize(l.text, cache));
  const nb = b.map((l) => cachedNormalize(l.text, cache));
  const ops: LineOp[] = [];
  let ai = 0;
  let bi = 0;
  const oldAt = (): number => a[ai]?.no ?? oldNo;
  const newAt = (): number => b[bi]?.no ?? newNo;
  for (const step of align(na, nb)) {
    if (step.kind === 'equal') {
      ops.push({ op: ' ', text: a[step.a]?.text ?? '', oldNo: oldAt(), newNo: newAt() });
      ai++;
      bi++;
      continue;
    }
    for (; ai < step.region.aTo; ai++)
      ops.push({ op: '-', text: a[ai]?.text ?? '', oldNo: oldAt(), newNo: newAt() });
    for (; bi < step.region.bTo; bi++)
      ops.push({ op: '+', text: b[bi]?.text ?? '', oldNo: oldAt(), newNo: newAt() });
  }
  return ops;
}

function isRealChange(op: LineOp): boolean {
  return op.op !== ' ' && op.text.trim() !== '';
}

type SectionEntry = { section: string; before: string[]; after: string[] };

function addToSections(
  sections: Map<string, SectionEntry>,
  before: readonly Block[],
  after: readonly Block[],
): void {
  const entry = (name: string): SectionEntry => {
    let found = sections.get(name);
    if (!found) {
      found = { section: name, before: [], after: [] };
      sections.set(name, found);
    }
    return found;
  };
  // Paired blocks (k-th removed with k-th added) are filed under the after side's section, so a renamed
  // heading is one entry under its new name rather than two.
  const n = Math.max(before.length, after.length);
  for (let k = 0; k < n; k++) {
    const a = before[k];
    const b = after[k];
    const target = entry((b ?? a)?.section ?? '');
    if (a) target.before.push(a.lines.join('\n'));
    if (b) target.after.push(b.lines.join('\n'));
  }
}

/** Compares two scrapes of a page, ignoring noise in lines and blocks in volatile slots. */
export function comparePages(
  before: string,
  after: string,
  volatile: ReadonlySet<string> | readonly string[],
): PageComparison {
  const set = toSet(volatile);
  const cache: LineCache = new Map();
  const a = assignSlots(splitBlocks(before, cache), set);
  const b = assignSlots(splitBlocks(after, cache), set);
  const items: Item[] = [];
  const sections = new Map<string, SectionEntry>();
  let lastOld = 0;
  let lastNew = 0;
  let added = 0;
  let removed = 0;

  for (const step of align(a.map(alignKey), b.map(alignKey))) {
    if (step.kind === 'equal') {
      const x = a[step.a];
      const y = b[step.b];
      if (!x || !y) continue;
      lastOld = x.start + x.lines.length + 1;
      lastNew = y.start + y.lines.length + 1;
      if (!x.volatile) items.push({ kind: 'equal', x, y });
      continue;
    }
    const { aFrom, aTo, bFrom, bTo } = step.region;
    if (set.size > 0 && set.has(regionGap(a, aFrom, aTo))) continue;
    const gone = a.slice(aFrom, aTo).filter((block) => !block.volatile);
    const come = b.slice(bFrom, bTo).filter((block) => !block.volatile);
    if (gone.length === 0 && come.length === 0) continue;
    const ops = regionOps(gone, come, lastOld + 1, lastNew + 1, cache);
    // A region whose lines all match once normalised (or differ only in blank lines) is no change.
    if (!ops.some(isRealChange)) continue;
    addToSections(sections, gone, come);
    added += ops.filter((op) => op.op === '+' && isRealChange(op)).length;
    removed += ops.filter((op) => op.op === '-' && isRealChange(op)).length;
    items.push({ kind: 'region', ops });
  }

  const changed = added + removed > 0;
  return {
    changed,
    diff: changed ? formatUnified(withContext(items)) : '',
    sections: [...sections.values()],
    added,
    removed,
  };
}

/** An unchanged block pair, or the line ops of a real change. */
type Item = { kind: 'equal'; x: Block; y: Block } | { kind: 'region'; ops: LineOp[] };

/**
 * Line ops split into runs: only the unchanged blocks within CONTEXT blocks of a change are expanded
 * (each block has at least one line, so that covers CONTEXT lines); a skipped stretch ends a run. Keeps
 * a big page with one change from building line ops for every line.
 */
function withContext(items: readonly Item[]): LineOp[][] {
  const needed = new Uint8Array(items.length);
  items.forEach((item, index) => {
    if (item.kind !== 'region') return;
    for (let k = Math.max(0, index - CONTEXT); k <= Math.min(items.length - 1, index + CONTEXT); k++)
      needed[k] = 1;
  });
  const runs: LineOp[][] = [];
  let run: LineOp[] = [];
  items.forEach((item, index) => {
    if (!needed[index]) {
      if (run.length > 0) runs.push(run);
      run = [];
      return;
    }
    for (const op of item.kind === 'region' ? item.ops : contextOps(item.x, item.y)) run.push(op);
  });
  if (run.length > 0) runs.push(run);
  return runs;
}

// ---------------------------------------------------------------------------------------------------
// Unified diff output

/** Groups real changes with CONTEXT lines around them, merging hunks whose context would touch. */
function hunkRanges(ops: readonly LineOp[]): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (!op || op.op === ' ') continue;
    const from = Math.max(0, i - CONTEXT);
    const to = Math.min(ops.length, i + CONTEXT + 1);
    const last = ranges[ranges.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else ranges.push([from, to]);
  }
  return ranges;
}

function hunkHeader(ops: readonly LineOp[]): string {
  const oldLines = ops.filter((op) => op.op !== '+');
  const newLines = ops.filter((op) => op.op !== '-');
  const first = ops[0];
  const oldStart = oldLines[0]?.oldNo ?? Math.max(0, (first?.oldNo ?? 1) - 1);
  const newStart = newLines[0]?.newNo ?? Math.max(0, (first?.newNo ?? 1) - 1);
  return `@@ -${oldStart},${oldLines.length} +${newStart},${newLines.length} @@\n`;
}

function formatUnified(runs: readonly (readonly LineOp[])[]): string {
  let out = '--- before\n+++ after\n';
  const hunks = runs.flatMap((ops) => hunkRanges(ops).map(([from, to]) => ops.slice(from, to)));
  for (const hunk of hunks) {
    let text = hunkHeader(hunk);
    for (const op of hunk) text += `${op.op}${op.text}\n`;
    if (out.length + text.length > MAX_DIFF_CHARS) {
      // The last hunk is cut at a line boundary (its header then overstates it; the marker says so).
      const room = Math.max(0, MAX_DIFF_CHARS - out.length);
      const cut = text.lastIndexOf('\n', room);
      return `${out}${cut > 0 ? text.slice(0, cut + 1) : ''}${TRUNCATED}`;
    }
    out += text;
  }
  return out;
}

/** sha256 hex of the page's normalised blocks, leaving out blocks in the given volatile slots. */
export function contentHash(markdown: string, volatile?: ReadonlySet<string> | readonly string[]): string {
  const set = toSet(volatile);
  const blocks = assignSlots(splitBlocks(markdown), set);
  const hash = createHash('sha256');
  let previous = '';
  for (const [index, block] of blocks.entries()) {
    if (block.volatile) continue;
    // A lone block in a gap learned to come and go (a banner) is left out too.
    if (set.size > 0 && set.has(gapId(previous, nearestStable(blocks, index + 1, 1)))) continue;
    previous = block.norm;
    hash.update(block.norm);
    hash.update('\n\n');
  }
  return hash.digest('hex');
}
