// Valid PDFs built in code, for tests of PDF handling: one page of text, or pages of content
// streams and images.
import { deflateSync } from 'node:zlib';

/** A PDF built object by object (offsets counted as it goes: files of thousands of objects stay fast). */
export function buildPdf(objects: string[], trailerExtra = ''): Uint8Array {
  const parts = ['%PDF-1.7\n'];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(length);
    const part = `${i + 1} 0 obj\n${body}\nendobj\n`;
    parts.push(part);
    length += Buffer.byteLength(part, 'latin1');
  });
  parts.push(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
  for (const o of offsets) parts.push(`${String(o).padStart(10, '0')} 00000 n \n`);
  parts.push(
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra} >>\nstartxref\n${length}\n%%EOF\n`,
  );
  return new Uint8Array(Buffer.from(parts.join(''), 'latin1'));
}

export interface PageSpec {
  /** Content stream operators. */
  ops: string;
  /** A grayscale image drawn over the whole page. */
  image?: { width: number; height: number; gray: Buffer };
  mediaBox?: [number, number];
}

/** A PDF of these pages: Helvetica as /F1, Helvetica-Bold as /F2. */
export function pdfOf(pages: PageSpec[], title = 'Test', trailerExtra = ''): Uint8Array {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '', // the page tree, once the pages' numbers are known
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>',
    `<< /Title (${title}) /Producer (unfurl test) >>`,
  ];
  const kids: number[] = [];
  for (const page of pages) {
    const [w, h] = page.mediaBox ?? [612, 792];
    const pageNo = objects.length + 1;
    kids.push(pageNo);
    const xobject = page.image ? `/XObject << /Im1 ${pageNo + 2} 0 R >>` : '';
    const ops = page.image ? `q ${w} 0 0 ${h} 0 0 cm /Im1 Do Q\n${page.ops}` : page.ops;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Contents ${pageNo + 1} 0 R /Resources << /Font << /F1 3 0 R /F2 4 0 R >> ${xobject} >> >>`,
      `<< /Length ${Buffer.byteLength(ops, 'latin1')} >>\nstream\n${ops}\nendstream`,
    );
    if (page.image) {
      const data = deflateSync(page.image.gray).toString('latin1');
      objects.push(
        `<< /Type /XObject /Subtype /Image /Width ${page.image.width} /Height ${page.image.height} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${Buffer.byteLength(data, 'latin1')} >>\nstream\n${data}\nendstream`,
      );
    }
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  return buildPdf(objects, `/Info 5 0 R ${trailerExtra}`);
}

/** One page of Helvetica text, a line per entry, and an Info dictionary with a title. */
export function textPdf(lines: string[], title: string, trailerExtra = ''): Uint8Array {
  const ops = lines.map((l, i) => `BT /F1 14 Tf 72 ${720 - i * 20} Td (${l}) Tj ET`).join('\n');
  return buildPdf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
      `<< /Length ${ops.length} >>\nstream\n${ops}\nendstream`,
      '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
      `<< /Title (${title}) /Producer (unfurl test) >>`,
    ],
    `/Info 6 0 R ${trailerExtra}`,
  );
}

/**
 * A trailer entry that locks a PDF with AES-256 (Standard security handler, revision 5) under a
 * password whose hashes no one knows: the file cannot be opened.
 */
export function lockedTrailer(): string {
  const hex = (n: number) => Buffer.alloc(n, 0xab).toString('hex');
  return `/Encrypt << /Filter /Standard /V 5 /R 5 /Length 256 /P -4 /O <${hex(48)}> /U <${hex(48)}> /OE <${hex(32)}> /UE <${hex(32)}> /Perms <${hex(16)}> /StmF /StdCF /StrF /StdCF /CF << /StdCF << /CFM /AESV3 /AuthEvent /DocOpen /Length 32 >> >> >> /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]`;
}
