// PDF → plain text with pdf.js (the legacy build, meant for Node). Pure: bytes in, text out; nothing
// is rendered, no fonts are loaded into anything, nothing is fetched, and no worker thread is started
// (in Node pdf.js runs its "worker" in this thread, loading it from the path set below).
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { AppError } from '../../errors.js';

export interface PdfText {
  /** Lines as the PDF lays them out, a blank line between pages. */
  text: string;
  title: string | null;
  /** Pages in the document (not only those read). */
  pages: number;
  /** True when pages beyond maxPages were left out. */
  truncated: boolean;
}

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

const require = createRequire(import.meta.url);
const pdfjsDir = path.dirname(require.resolve('pdfjs-dist/package.json'));
let loading: Promise<PdfJs> | null = null;

/** pdf.js is large: loaded on the first PDF, not when the service starts. */
function loadPdfJs(): Promise<PdfJs> {
  loading ??= import('pdfjs-dist/legacy/build/pdf.mjs').then((pdfjs) => {
    // An explicit file URL, so the in-thread worker is found however this module is loaded or bundled.
    pdfjs.GlobalWorkerOptions.workerSrc = pathToFileURL(
      path.join(pdfjsDir, 'legacy/build/pdf.worker.mjs'),
    ).href;
    return pdfjs;
  });
  return loading;
}

export async function pdfToText(data: Uint8Array, opts: { maxPages?: number } = {}): Promise<PdfText> {
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({
    // A copy: pdf.js transfers (detaches) the buffer it is given, and it refuses Node Buffers.
    data: new Uint8Array(data),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    // Text of CJK documents whose fonts use predefined CMaps needs these (read from disk).
    cMapUrl: `${pdfjsDir}/cmaps/`,
    cMapPacked: true,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    const doc = await task.promise;
    const pages = doc.numPages;
    const read = Math.min(pages, Math.max(0, opts.maxPages ?? 500));
    const texts: string[] = [];
    for (let n = 1; n <= read; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue; // marked-content boundaries carry no text
        text += item.str;
        if (item.hasEOL) text += '\n';
      }
      page.cleanup();
      texts.push(tidy(text));
    }
    return {
      text: texts.filter(Boolean).join('\n\n'),
      title: await titleOf(doc),
      pages,
      truncated: read < pages,
    };
  } catch (err) {
    throw new AppError(
      'invalid_request',
      `The URL points to a PDF that could not be read: ${describe(err)}`,
      'url',
    );
  } finally {
    await task.destroy();
  }
}

/** The document's own title: the Info dictionary's, else the XMP metadata's. */
async function titleOf(doc: Awaited<ReturnType<PdfJs['getDocument']>['promise']>): Promise<string | null> {
  const { info, metadata } = await doc.getMetadata().catch(() => ({ info: null, metadata: null }));
  const fromInfo = (info as { Title?: unknown } | null)?.Title;
  const title = typeof fromInfo === 'string' && fromInfo.trim() ? fromInfo : metadata?.get('dc:title');
  return typeof title === 'string' && title.trim() ? title.trim() : null;
}

/** Trailing spaces off each line, NULs (glyphs without a Unicode mapping) out, runs of blank lines cut. */
function tidy(text: string): string {
  return text
    .replace(/\0/g, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function describe(err: unknown): string {
  const name = (err as { name?: string }).name;
  if (name === 'PasswordException') return 'it is protected by a password';
  if (name === 'InvalidPDFException') return 'it is not a valid PDF';
  return err instanceof Error ? err.message : String(err);
}
