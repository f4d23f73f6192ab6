// Minimal valid PDFs built in code, for tests of PDF handling.

/** A valid PDF built object by object, with a correct cross-reference table. */
export function buildPdf(objects: string[], trailerExtra = ''): Uint8Array {
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${trailerExtra} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
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
