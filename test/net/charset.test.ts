import { describe, expect, it } from 'vitest';
import { declaredCharset, decodeBody, headerCharset } from '../../src/net/charset.js';

// "Привет" in windows-1251 and "日本語" in Shift_JIS, written out as bytes.
const cp1251 = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]);
const sjis = Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]);

describe('decodeBody', () => {
  it('takes the charset from the Content-Type header', () => {
    expect(decodeBody(cp1251, 'text/html; charset=windows-1251').text).toBe('Привет');
    expect(decodeBody(sjis, 'text/plain;charset="Shift_JIS"').text).toBe('日本語');
  });

  it('takes it from <meta charset> or http-equiv when the header has none', () => {
    const page = (meta: string, body: Buffer) =>
      Buffer.concat([Buffer.from(`<html><head>${meta}</head><body>`), body, Buffer.from('</body></html>')]);
    expect(decodeBody(page('<meta charset="windows-1251">', cp1251), 'text/html').text).toContain('Привет');
    const equiv = '<meta http-equiv="Content-Type" content="text/html; charset=shift_jis">';
    expect(decodeBody(page(equiv, sjis), undefined).text).toContain('日本語');
  });

  it('lets a byte-order mark win over the header, and strips it', () => {
    const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo')]);
    expect(decodeBody(utf8, 'text/plain; charset=windows-1251')).toEqual({ text: 'héllo', charset: 'utf-8' });
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hi', 'utf16le')]);
    expect(decodeBody(utf16, 'text/plain').text).toBe('hi');
  });

  it('falls back to UTF-8 for unknown labels and no declaration', () => {
    expect(decodeBody(Buffer.from('café'), 'text/html; charset=x-bogus')).toEqual({
      text: 'café',
      charset: 'utf-8',
    });
    expect(decodeBody(Buffer.from('café'), null).charset).toBe('utf-8');
  });

  it('reads XML declarations (sitemaps, feeds)', () => {
    expect(declaredCharset('<?xml version="1.0" encoding="ISO-8859-1"?><urlset/>')).toBe('iso-8859-1');
    expect(headerCharset('application/xml')).toBeNull();
  });
});
