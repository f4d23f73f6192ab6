// multipart/form-data bodies for the transcription upload (fields and one file), built in memory:
// the parts are bounded by the provider's upload limit.
import { randomBytes } from 'node:crypto';

export type MultipartPart =
  | { name: string; value: string }
  | { name: string; filename: string; contentType: string; data: Buffer };

const quoted = (s: string) => s.replace(/["\r\n\\]/g, '_');

export function encodeMultipart(parts: readonly MultipartPart[]): { body: Buffer; contentType: string } {
  const boundary = `----unfurl${randomBytes(12).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(part.name)}"`;
    if ('data' in part) {
      head += `; filename="${quoted(part.filename)}"\r\nContent-Type: ${part.contentType}\r\n\r\n`;
      chunks.push(Buffer.from(head), part.data, Buffer.from('\r\n'));
    } else {
      chunks.push(Buffer.from(`${head}\r\n\r\n${part.value}\r\n`));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
