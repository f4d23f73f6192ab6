// PDF text extraction on real PDFs: ones Chromium prints from HTML (as a site would serve them), a
// minimal hand-built one, one locked by a password we do not have, and bytes that are no PDF at all.
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { pdfToText } from '../../../src/sources/web/pdf.js';
import { CHROMIUM_PATH, describeWithChromium } from '../../support/chromium.js';
import { lockedTrailer, textPdf } from '../../support/pdf.js';

describe('pdfToText on hand-built PDFs', () => {
  it('reads a minimal PDF: its lines, its title, one page', async () => {
    const pdf = textPdf(['Hello from a hand-built PDF.', 'A second line of text.'], 'Minimal Test');
    const copy = pdf.slice();
    const out = await pdfToText(pdf);
    expect(out).toEqual({
      text: 'Hello from a hand-built PDF.\nA second line of text.',
      title: 'Minimal Test',
      pages: 1,
      truncated: false,
    });
    expect(pdf).toEqual(copy); // the caller's bytes are left as they were (pdf.js detaches what it gets)
  });

  it('accepts a Node Buffer too', async () => {
    const out = await pdfToText(Buffer.from(textPdf(['Buffered.'], 'B')));
    expect(out.text).toBe('Buffered.');
  });

  it('refuses bytes that are no PDF with invalid_request', async () => {
    const err = await pdfToText(new TextEncoder().encode('<html>not a pdf</html>'.repeat(50))).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('invalid_request');
    expect(err.message).toMatch(/^The URL points to a PDF that could not be read: /);
  });

  it('refuses a cut-off PDF with invalid_request', async () => {
    const pdf = textPdf(['Cut short.'], 'Cut');
    const err = await pdfToText(pdf.subarray(0, 40)).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('invalid_request');
  });

  it('refuses a PDF locked with a user password', async () => {
    // AES-256 (revision 5) Standard security handler whose password hashes we do not know: pdf.js tries
    // the empty password, fails, and asks for one.
    const encrypt = lockedTrailer();
    const err = await pdfToText(textPdf(['Secret.'], 'Locked', encrypt)).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('invalid_request');
    expect(err.message).toContain('password');
  });
});

describeWithChromium('pdfToText on PDFs printed by Chromium', () => {
  let browser: Browser;
  const pages = 5;
  let report: Uint8Array;

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
    });
    const page = await browser.newPage();
    const chapters = Array.from(
      { length: pages },
      (_, i) =>
        `<section style="break-before: page"><h2>Chapter ${i + 1}</h2><p>This is the body of chapter ${i + 1}. It has two sentences.</p></section>`,
    ).join('');
    await page.setContent(
      `<!doctype html><html><head><meta charset="utf-8"><title>Annual Report 2025</title></head><body><h1>Annual Report 2025</h1><p>Revenue grew by 12 percent, and costs fell.</p><p>Café, naïve, façade — accents survive.</p>${chapters}</body></html>`,
    );
    report = new Uint8Array(await page.pdf({ format: 'A4' }));
    await page.close();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('extracts every sentence, the title and the page count', async () => {
    const out = await pdfToText(report);
    expect(out.title).toBe('Annual Report 2025');
    expect(out.pages).toBe(pages + 1); // the title page, then one page per chapter
    expect(out.truncated).toBe(false);
    expect(out.text).toContain('Annual Report 2025');
    expect(out.text).toContain('Revenue grew by 12 percent, and costs fell.');
    expect(out.text).toContain('Café, naïve, façade — accents survive.');
    for (let i = 1; i <= pages; i++) {
      expect(out.text).toContain(`Chapter ${i}\nThis is the body of chapter ${i}. It has two sentences.`);
    }
    // Pages are separated by a blank line, in order.
    const chunks = out.text.split('\n\n');
    expect(chunks).toHaveLength(pages + 1);
    expect(chunks[0]).toMatch(/^Annual Report 2025\n/);
    expect(chunks[3]).toMatch(/^Chapter 3\n/);
  });

  it('stops at maxPages and says it did', async () => {
    const out = await pdfToText(report, { maxPages: 2 });
    expect(out.pages).toBe(pages + 1);
    expect(out.truncated).toBe(true);
    expect(out.text).toContain('Chapter 1');
    expect(out.text).not.toContain('Chapter 2');
  });
});
