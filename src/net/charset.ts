// Bytes → text the way browsers do it: a byte-order mark wins, then the Content-Type charset, then a
// <meta charset> / http-equiv declaration (or an XML declaration) in the first bytes, else UTF-8.
import { TextDecoder } from 'node:util';

const SNIFF_BYTES = 4096;

function bomCharset(body: Buffer): { charset: string; skip: number } | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return { charset: 'utf-8', skip: 3 };
  if (body[0] === 0xff && body[1] === 0xfe) return { charset: 'utf-16le', skip: 2 };
  if (body[0] === 0xfe && body[1] === 0xff) return { charset: 'utf-16be', skip: 2 };
  return null;
}

/** The `charset` parameter of a Content-Type value, lower-cased. */
export function headerCharset(contentType: string | undefined | null): string | null {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return m ? m[1]!.toLowerCase() : null;
}

/** The charset an HTML or XML document declares in its first few kilobytes. */
export function declaredCharset(head: string): string | null {
  const meta = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  if (meta) return meta[1]!.toLowerCase();
  const xml = /^\s*<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head);
  return xml ? xml[1]!.toLowerCase() : null;
}

function decoderFor(label: string | null): TextDecoder | null {
  if (!label) return null;
  try {
    return new TextDecoder(label);
  } catch {
    return null; // an unknown label: fall through to the next source
  }
}

export function decodeBody(
  body: Buffer,
  contentType?: string | null,
  options: { sniffMeta?: boolean } = {},
): { text: string; charset: string } {
  const bom = bomCharset(body);
  if (bom)
    return { text: new TextDecoder(bom.charset).decode(body.subarray(bom.skip)), charset: bom.charset };
  let decoder = decoderFor(headerCharset(contentType));
  if (!decoder && (options.sniffMeta ?? true)) {
    let declared = declaredCharset(body.subarray(0, SNIFF_BYTES).toString('latin1'));
    // A document that reached us as bytes cannot really be UTF-16 without a BOM (HTML spec rule).
    if (declared?.startsWith('utf-16')) declared = 'utf-8';
    decoder = decoderFor(declared);
  }
  decoder ??= new TextDecoder('utf-8');
  return { text: decoder.decode(body), charset: decoder.encoding };
}
