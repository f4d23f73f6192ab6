// A PDF's text layout → Markdown. Pure: positioned runs of text in (as pdf.js reads them from the text
// layer, or as OCR finds them on a rendered page), Markdown out. The structure is inferred from the
// layout the way a reader sees it: headings are set larger than the body (the size most characters
// have), paragraphs are separated by more space than lines are, list items start with a marker, a
// table is text that lines up in columns over several rows, and what repeats at the top or the bottom
// of the pages (running heads, page numbers) is furniture, not content.

/** One run of text on a page, in points from the page's top-left corner. */
export interface LayoutItem {
  text: string;
  /** Left edge. */
  x: number;
  /** Baseline, measured down from the page's top. */
  y: number;
  width: number;
  /** Font size (the run's height). */
  size: number;
  bold: boolean;
  /** Set in a monospaced font (code). */
  mono?: boolean;
}

export interface LayoutPage {
  width: number;
  height: number;
  /** In reading order (the order the PDF draws them, or OCR's). */
  items: readonly LayoutItem[];
}

interface Segment {
  text: string;
  bold: boolean;
}

interface Cell {
  segments: Segment[];
  x0: number;
  x1: number;
}

interface Line {
  cells: Cell[];
  /** Baseline from the page's top. */
  y: number;
  /** The size most of its characters have. */
  size: number;
  x0: number;
  x1: number;
  bold: boolean;
  /** Every character monospaced: a line of code. */
  mono: boolean;
}

/** A space between two runs this wide (in font sizes) or wider separates words. */
const WORD_GAP = 0.15;
/** A space this wide or wider separates cells (a table's columns, a form's fields). */
const CELL_GAP = 1.2;
/** Sizes at least this much larger than the body's are headings. */
const HEADING_RATIO = 1.15;
/** The part of the page (from the top and from the bottom) where running heads and page numbers sit. */
const BAND = 0.1;

const BULLET =
  /^([•◦▪▫●○■□‣⁃∙·►▶✓✔➢➤\uf0b7\uf0a7\uf0a8\uf076\uf0d8\uf0fc\uf06e\uf0e0]|[-–—*](?=\s))\s*(\S.*)?$/u;
const NUMBERED = /^(\d{1,3})[.)](?:\s+(\S.*))?$/u;
const LETTERED = /^(\(?(?:[a-z]|[ivx]{1,4})\)|[a-z]\.)(?:\s+(\S.*))?$/u;
const PAGE_NUMBER =
  /^(?:[-–—]\s*)?(?:(?:page|p\.|seite|página|pagina)\s*)?(\d{1,5}|[ivxlcdm]{1,7})(?:\s*(?:of|\/|von|de|sur)\s*\d{1,5})?(?:\s*[-–—])?$/iu;
const LETTERS = /[\p{L}\p{N}]/u;
const LEADERS = /(?:\.\s?){4,}\s*[\divxlc]+$/u;

/** The Markdown of a document's pages (only those given: the pages read). */
export function layoutToMarkdown(pages: readonly LayoutPage[]): string {
  const lined = pages.map((page) => ({ page, lines: linesOf(page.items) }));
  const kept = dropFurniture(lined, bodySize(lined.flatMap((p) => p.lines)));
  const body = bodySize(kept.flat());
  const spacing = lineSpacing(kept, body);
  const headingSizes = [
    ...new Set(
      kept
        .flat()
        .filter((l) => isHeadingLine(l, body))
        .map((l) => roundSize(l.size)),
    ),
  ].sort((a, b) => b - a);
  let blocks: Block[] = [];
  for (const lines of kept) {
    const pageBlocks = blocksOf(lines, { body, spacing, headingSizes });
    blocks = joinAcrossPages(blocks, pageBlocks);
  }
  return render(blocks);
}

// ---------------------------------------------------------------------------------------------------
// Runs → lines → cells

function linesOf(items: readonly LayoutItem[]): Line[] {
  const lines: { items: LayoutItem[]; y: number; end: number; size: number }[] = [];
  let current: (typeof lines)[number] | null = null;
  for (const raw of items) {
    const text = raw.text.replace(/\0/g, '');
    if (!text.trim() || !(raw.size > 0) || !Number.isFinite(raw.x) || !Number.isFinite(raw.y)) continue;
    const item = { ...raw, text };
    const tolerance = 0.45 * Math.max(item.size, current?.size ?? 0);
    if (current && Math.abs(item.y - current.y) <= tolerance && item.x >= current.end - 0.5 * item.size) {
      current.items.push(item);
      current.end = Math.max(current.end, item.x + item.width);
      // The line's baseline is its largest run's (a superscript does not move it).
      if (item.size > current.size) {
        current.size = item.size;
        current.y = item.y;
      }
    } else {
      current = { items: [item], y: item.y, end: item.x + item.width, size: item.size };
      lines.push(current);
    }
  }
  return lines.map((l) => lineOf(l.items, l.y));
}

function lineOf(items: LayoutItem[], y: number): Line {
  const cells: Cell[] = [];
  const sizes = new Map<number, number>();
  let boldChars = 0;
  let monoChars = 0;
  let chars = 0;
  let cell: Cell | null = null;
  let end = 0;
  for (const item of items) {
    const n = item.text.replace(/\s/g, '').length;
    sizes.set(roundSize(item.size), (sizes.get(roundSize(item.size)) ?? 0) + n);
    chars += n;
    if (item.bold) boldChars += n;
    if (item.mono) monoChars += n;
    const gap = item.x - end;
    const last = cell?.segments.at(-1)?.text ?? '';
    // A lone list marker keeps its item's text in its cell however far the text is set from it.
    const marker = cell?.segments.length === 1 && last.length <= 8 && isMarkerOnly(last);
    if (!cell || (gap >= CELL_GAP * item.size && !marker)) {
      cell = { segments: [], x0: item.x, x1: item.x + item.width };
      cells.push(cell);
      pushText(cell, item.text.trimStart(), item.bold);
    } else {
      const spaced = /\s/.test(last.slice(-1)) || /^\s/.test(item.text);
      if (!spaced && gap >= WORD_GAP * item.size) pushText(cell, ' ', item.bold);
      pushText(cell, item.text, item.bold);
      cell.x1 = Math.max(cell.x1, item.x + item.width);
    }
    end = Math.max(end, item.x + item.width);
  }
  for (const c of cells) trimCell(c);
  let size = 0;
  let most = -1;
  for (const [s, n] of sizes) {
    if (n > most) {
      most = n;
      size = s;
    }
  }
  return {
    cells,
    y,
    size,
    x0: cells[0]?.x0 ?? 0,
    x1: cells.reduce((x1, c) => Math.max(x1, c.x1), 0),
    bold: chars > 0 && boldChars === chars,
    mono: chars > 0 && monoChars === chars,
  };
}

function pushText(cell: Cell, text: string, bold: boolean): void {
  if (!text) return;
  const last = cell.segments.at(-1);
  // Spaces take the weight of the text around them, so a bold phrase stays one run.
  if (last && (last.bold === bold || !text.trim())) last.text += text;
  else if (last && !last.text.trim()) {
    last.text += text;
    last.bold = bold;
  } else cell.segments.push({ text, bold });
}

function trimCell(cell: Cell): void {
  const first = cell.segments[0];
  if (first) first.text = first.text.trimStart();
  const last = cell.segments.at(-1);
  if (last) last.text = last.text.trimEnd();
  cell.segments = cell.segments.filter((s) => s.text);
}

const cellText = (cell: Cell) => cell.segments.map((s) => s.text).join('');
const lineText = (line: Line) => line.cells.map(cellText).join(' ');
const roundSize = (size: number) => Math.round(size * 2) / 2;

function isMarkerOnly(text: string): boolean {
  const t = text.trim();
  return (
    (BULLET.test(t) && !BULLET.exec(t)?.[2]) ||
    (NUMBERED.test(t) && !NUMBERED.exec(t)?.[2]) ||
    (LETTERED.test(t) && !LETTERED.exec(t)?.[2])
  );
}

// ---------------------------------------------------------------------------------------------------
// Page furniture: running heads and feet, page numbers

const furnitureKey = (text: string) => text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();

function dropFurniture(pages: { page: LayoutPage; lines: Line[] }[], body: number): Line[][] {
  // The lines a page starts and ends with (two each), when they sit near its top or its bottom.
  const banded = pages.map(({ page, lines }) => {
    const byY = [...lines].sort((a, b) => a.y - b.y);
    const edge = new Set([...byY.slice(0, 2), ...byY.slice(-2)]);
    return new Set(
      [...edge].filter((l) => l.y - l.size < page.height * BAND || l.y > page.height * (1 - BAND)),
    );
  });
  const seen = new Map<string, number>();
  for (const lines of banded) {
    // Headings are content even when every page starts with one ("Chapter 1", "Chapter 2").
    const keys = [...lines]
      .filter((l) => l.size < body * HEADING_RATIO)
      .map((l) => furnitureKey(lineText(l)));
    for (const key of new Set(keys)) seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  // Twice is enough: running heads change with the chapter, and only a page's first and last two lines,
  // near its edge, are looked at.
  const repeatedFrom = 2;
  return pages.map(({ lines }, i) =>
    lines.filter((line) => {
      if (!banded[i]!.has(line)) return true;
      const text = lineText(line);
      if (PAGE_NUMBER.test(text.trim())) return false;
      return line.size >= body * HEADING_RATIO || (seen.get(furnitureKey(text)) ?? 0) < repeatedFrom;
    }),
  );
}

// ---------------------------------------------------------------------------------------------------
// The body's measures

function bodySize(lines: Line[]): number {
  const chars = new Map<number, number>();
  for (const line of lines) {
    const n = lineText(line).replace(/\s/g, '').length;
    chars.set(line.size, (chars.get(line.size) ?? 0) + n);
  }
  let body = 0;
  let most = -1;
  for (const [size, n] of chars) {
    if (n > most || (n === most && size < body)) {
      most = n;
      body = size;
    }
  }
  return body || 12;
}

/** The usual distance between the baselines of consecutive body lines. */
function lineSpacing(pages: Line[][], body: number): number {
  const counts = new Map<number, number>();
  for (const lines of pages) {
    for (let i = 1; i < lines.length; i++) {
      const a = lines[i - 1]!;
      const b = lines[i]!;
      if (a.size !== body || b.size !== body) continue;
      const d = Math.round((b.y - a.y) * 2) / 2;
      if (d > 0.8 * body && d < 3 * body) counts.set(d, (counts.get(d) ?? 0) + 1);
    }
  }
  let spacing = 1.2 * body;
  let most = 0;
  for (const [d, n] of counts) {
    if (n > most || (n === most && d < spacing)) {
      most = n;
      spacing = d;
    }
  }
  return spacing;
}

function isHeadingLine(line: Line, body: number): boolean {
  const text = lineText(line);
  return !line.mono && line.size >= body * HEADING_RATIO && LETTERS.test(text) && text.length <= 200;
}

// ---------------------------------------------------------------------------------------------------
// Lines → blocks

type Block =
  | { kind: 'heading'; level: number; size: number; text: string; last: Line }
  | { kind: 'paragraph'; text: string; bold: boolean; last: Line; first: Line; x0: number; x1: number }
  | { kind: 'item'; marker: string; level: number; text: string; x: number; last: Line }
  | { kind: 'table'; rows: string[][] }
  | { kind: 'code'; lines: Line[]; last: Line };

interface Measures {
  body: number;
  spacing: number;
  headingSizes: number[];
}

function blocksOf(lines: Line[], m: Measures): Block[] {
  const blocks: Block[] = [];
  const tables = findTables(lines);
  let right = 0;
  for (const l of lines) if (l.size === m.body && l.x1 > right) right = l.x1;
  /** Marker positions of the list being read, outermost first. */
  let indents: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const table = tables.get(i);
    if (table) {
      blocks.push({ kind: 'table', rows: table.rows });
      i = table.end - 1;
      indents = [];
      continue;
    }
    const line = lines[i]!;
    const text = lineText(line);
    const prev = blocks.at(-1);
    const gap = prev && prev.kind !== 'table' ? line.y - prev.last.y : Number.POSITIVE_INFINITY;
    const usual = m.spacing * (line.size / m.body);
    const close = gap > 0 && gap <= usual * 1.35;
    if (line.mono) {
      if (prev?.kind === 'code' && gap > 0 && gap <= usual * 4) {
        prev.lines.push(line);
        prev.last = line;
      } else blocks.push({ kind: 'code', lines: [line], last: line });
      indents = [];
      continue;
    }
    if (isHeadingLine(line, m.body)) {
      if (
        prev?.kind === 'heading' &&
        prev.size === roundSize(line.size) &&
        gap > 0 &&
        gap <= 1.6 * line.size
      ) {
        prev.text = joinLines(prev.text, text);
        prev.last = line;
      } else {
        const level = Math.min(6, m.headingSizes.indexOf(roundSize(line.size)) + 1 || 6);
        blocks.push({ kind: 'heading', level, size: roundSize(line.size), text, last: line });
      }
      indents = [];
      continue;
    }
    const item = listItem(line);
    if (item) {
      const x = line.x0;
      while (indents.length > 0 && x < indents.at(-1)! - 0.5 * line.size) indents.pop();
      if (indents.length === 0 || x > indents.at(-1)! + 0.5 * line.size) indents.push(x);
      blocks.push({
        kind: 'item',
        marker: item.marker,
        level: indents.length - 1,
        text: item.text,
        x,
        last: line,
      });
      continue;
    }
    const sameSize =
      prev &&
      prev.kind !== 'table' &&
      prev.kind !== 'code' &&
      Math.abs(prev.last.size - line.size) < 0.1 * line.size;
    if (prev?.kind === 'item' && close && sameSize && line.x0 > prev.x + 0.3 * line.size) {
      prev.text = joinLines(prev.text, renderLine(line));
      prev.last = line;
      continue;
    }
    indents = [];
    if (prev?.kind === 'paragraph' && close && sameSize && prev.bold === line.bold) {
      // A first line set in from the paragraph's left edge after a short line starts a new paragraph.
      const indented = line.x0 > prev.first.x0 + 0.8 * line.size && prev.last.x1 < right - 2 * line.size;
      // A line that stops far short of the column's width ends where its author broke it.
      const x0 = Math.min(prev.x0, line.x0);
      const x1 = Math.max(prev.x1, line.x1);
      // So does a line of a table of contents ("Introduction . . . . 1").
      const broken = prev.last.x1 - x0 < 0.6 * (x1 - x0) || LEADERS.test(prev.text.slice(-40));
      if (!indented && !broken) {
        prev.text = joinLines(prev.text, renderLine(line, prev.bold));
        prev.last = line;
        prev.x0 = x0;
        prev.x1 = x1;
        continue;
      }
    }
    blocks.push({
      kind: 'paragraph',
      text: renderLine(line, line.bold),
      bold: line.bold,
      last: line,
      first: line,
      x0: line.x0,
      x1: line.x1,
    });
  }
  return blocks;
}

function listItem(line: Line): { marker: string; text: string } | null {
  const first = line.cells[0];
  if (!first) return null;
  const text = renderLine(line);
  const plain = lineText(line);
  const bullet = BULLET.exec(plain);
  if (bullet?.[2]) return { marker: '-', text: stripLead(text, bullet[1]!) };
  const numbered = NUMBERED.exec(plain);
  if (numbered?.[2]) return { marker: `${Number(numbered[1])}.`, text: stripLead(text, `${numbered[1]}`, 1) };
  const lettered = LETTERED.exec(plain);
  if (lettered?.[2]) return { marker: `- ${lettered[1]}`, text: stripLead(text, lettered[1]!) };
  return null;
}

/** The rendered text without its leading marker (`extra` more characters: the marker's "." or ")"). */
function stripLead(rendered: string, marker: string, extra = 0): string {
  const bold = rendered.startsWith('**');
  const body = bold ? rendered.slice(2) : rendered;
  const rest = body.slice(marker.length + extra).trimStart();
  // A bold marker ends its run at once ("**•** text"): its closing stars go with it.
  if (bold && rest.startsWith('**')) return rest.slice(2).trimStart();
  return bold ? `**${rest}` : rest;
}

/** Text of a line, bold runs marked (unless the whole block is bold: then the block is). */
function renderLine(line: Line, blockBold = false): string {
  return line.cells
    .map((cell) =>
      cell.segments
        .map((s) => {
          if (!s.bold || blockBold || !s.text.trim()) return s.text;
          const lead = s.text.match(/^\s*/)![0];
          const tail = s.text.match(/\s*$/)![0];
          return `${lead}**${s.text.trim()}**${tail}`;
        })
        .join('')
        .replace(/\*\*\*\*/g, ''),
    )
    .join(' ');
}

/** Joins a line to the text before it: a word hyphenated at the line's end is made whole again. */
export function joinLines(before: string, after: string): string {
  if (!before) return after;
  // Only the end matters (and a regular expression anchored at the end would scan all of it).
  const end = before.slice(-4);
  if (/\u00ad$/.test(end)) return before.slice(0, -1) + after;
  if (/\p{Ll}-$/u.test(end) && /^\p{Ll}/u.test(after)) return before.slice(0, -1) + after;
  if (/[-/–—]$/.test(end) && !/\s[-–—]$/.test(end)) return before + after;
  return `${before} ${after}`;
}

// ---------------------------------------------------------------------------------------------------
// Tables

interface Table {
  end: number;
  rows: string[][];
}

/** Runs of lines whose cells line up in the same columns: by the index of their first line. */
function findTables(lines: Line[]): Map<number, Table> {
  const tables = new Map<number, Table>();
  let i = 0;
  while (i < lines.length) {
    const start = lines[i]!;
    if (start.cells.length < 2 || start.mono || listItem(start)) {
      i++;
      continue;
    }
    let columns = start.cells.map((c) => ({ x0: c.x0, x1: c.x1 }));
    const rows: Line[] = [start];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j]!;
      const last = rows.at(-1)!;
      if (
        line.cells.length < 2 ||
        line.mono ||
        line.y - last.y <= 0 ||
        line.y - last.y > 3 * Math.max(line.size, last.size)
      )
        break;
      const next = fitRow(columns, line.cells);
      if (!next) break;
      columns = next;
      rows.push(line);
    }
    const full = rows.every((r) => r.cells.length === columns.length);
    if (rows.length >= 3 || (rows.length === 2 && full)) {
      const table = rows.map((row) => {
        const cells = columns.map(() => '');
        for (const cell of row.cells) {
          const at = columns.findIndex((c) => overlaps(c, cell));
          cells[at] = joinLines(cells[at]!, cellText(cell));
        }
        return cells;
      });
      tables.set(i, { end: j, rows: table });
      i = j;
    } else i++;
  }
  return tables;
}

type Span = { x0: number; x1: number };
const overlaps = (a: Span, b: Span) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) > -1;

/** The columns widened to take a row's cells, or null when a cell falls across two columns. */
function fitRow(columns: Span[], cells: Cell[]): Span[] | null {
  const next = columns.map((c) => ({ ...c }));
  for (const cell of cells) {
    const hits = next.filter((c) => overlaps(c, cell));
    if (hits.length > 1) return null;
    const hit = hits[0];
    if (!hit) next.push({ x0: cell.x0, x1: cell.x1 });
    else {
      hit.x0 = Math.min(hit.x0, cell.x0);
      hit.x1 = Math.max(hit.x1, cell.x1);
    }
  }
  next.sort((a, b) => a.x0 - b.x0);
  for (let k = 1; k < next.length; k++) if (overlaps(next[k - 1]!, next[k]!)) return null;
  // Each cell in a column of its own.
  const at = cells.map((cell) => next.findIndex((c) => overlaps(c, cell)));
  return new Set(at).size === cells.length ? next : null;
}

// ---------------------------------------------------------------------------------------------------
// Pages joined, Markdown out

/** A paragraph cut by the page break goes on: the next page's first paragraph starts in lower case. */
function joinAcrossPages(before: Block[], page: Block[]): Block[] {
  const last = before.at(-1);
  const first = page[0];
  if (last?.kind === 'code' && first?.kind === 'code') {
    // Code cut by the page break: one block, its lines in order (their y starts again on the new page).
    last.lines.push(...first.lines.map((l) => ({ ...l, y: Number.NaN })));
    for (const block of page.slice(1)) before.push(block);
    return before;
  }
  if (
    last?.kind === 'paragraph' &&
    first?.kind === 'paragraph' &&
    last.bold === first.bold &&
    !/[.!?:;]["”’)]?$/u.test(last.text) &&
    /^\p{Ll}/u.test(first.text)
  ) {
    last.text = joinLines(last.text, first.text);
    for (const block of page.slice(1)) before.push(block);
    return before;
  }
  for (const block of page) before.push(block);
  return before;
}

function render(blocks: Block[]): string {
  const out: string[] = [];
  let previous: Block | null = null;
  for (const block of blocks) {
    const text = blockText(block);
    if (!text) continue;
    // List items follow each other on consecutive lines; every other block stands apart.
    const sep = previous ? (previous.kind === 'item' && block.kind === 'item' ? '\n' : '\n\n') : '';
    out.push(sep, text);
    previous = block;
  }
  return out.join('').trim();
}

function blockText(block: Block): string {
  switch (block.kind) {
    case 'heading':
      return `${'#'.repeat(block.level)} ${block.text.replace(/\*\*/g, '').trim()}`;
    case 'paragraph': {
      const text = escapeLead(block.text.trim());
      return block.bold ? `**${text}**` : text;
    }
    case 'item':
      return `${'    '.repeat(block.level)}${block.marker} ${block.text.trim()}`;
    case 'code':
      return codeText(block.lines);
    case 'table': {
      const row = (cells: string[]) =>
        `| ${cells.map((c) => c.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').trim()).join(' | ')} |`;
      const [head, ...rest] = block.rows;
      return [row(head!), row(head!.map(() => '---')), ...rest.map(row)].join('\n');
    }
  }
}

/** A paragraph that would read as other Markdown (a heading, a quote) starts with its mark escaped. */
function escapeLead(text: string): string {
  const numbered = /^(\d{1,9})([.)]\s)/.exec(text);
  if (numbered) return `${numbered[1]}\\${text.slice(numbered[1]!.length)}`;
  return /^(#{1,6}\s|>|[-+*]\s)/.test(text) ? `\\${text}` : text;
}

/** Lines of code as a fenced block, their indentation and inner spacing kept (a character per space). */
function codeText(lines: Line[]): string {
  const left = lines.reduce((x, l) => Math.min(x, l.x0), Number.POSITIVE_INFINITY);
  const out: string[] = [];
  let previous: Line | null = null;
  for (const line of lines) {
    const char = 0.6 * line.size;
    // A wider gap than a line's: an empty line in the code.
    if (previous && line.y - previous.y > 1.8 * line.size) out.push('');
    let text = ' '.repeat(Math.min(80, Math.max(0, Math.round((line.x0 - left) / char))));
    let end = line.x0;
    for (const cell of line.cells) {
      if (cell !== line.cells[0])
        text += ' '.repeat(Math.min(80, Math.max(1, Math.round((cell.x0 - end) / char))));
      text += cellText(cell);
      end = cell.x1;
    }
    out.push(text.trimEnd());
    previous = line;
  }
  const fence = out.some((l) => l.includes('```')) ? '~~~~' : '```';
  return `${fence}\n${out.join('\n')}\n${fence}`;
}
