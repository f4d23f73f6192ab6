// A .zip of text files, built in the page (stored, not compressed: Markdown is small and this keeps the
// writer a few lines). Enough of the format for every unzip tool: local headers, a central directory,
// CRC-32 of each file, UTF-8 names.

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** [{name, text}] → a Blob of a zip archive holding them. */
export function zipFiles(files) {
  const encoder = new TextEncoder();
  const parts = [];
  const central = [];
  let offset = 0;
  for (const file of files) {
    const name = encoder.encode(file.name);
    const data = encoder.encode(file.text);
    const crc = crc32(data);
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true); // version needed
    local.setUint16(6, 0x0800, true); // UTF-8 names
    local.setUint16(8, 0, true); // stored
    local.setUint32(14, crc, true);
    local.setUint32(18, data.length, true);
    local.setUint32(22, data.length, true);
    local.setUint16(26, name.length, true);
    parts.push(local, name, data);
    const entry = new DataView(new ArrayBuffer(46));
    entry.setUint32(0, 0x02014b50, true);
    entry.setUint16(4, 20, true);
    entry.setUint16(6, 20, true);
    entry.setUint16(8, 0x0800, true);
    entry.setUint32(16, crc, true);
    entry.setUint32(20, data.length, true);
    entry.setUint32(24, data.length, true);
    entry.setUint16(28, name.length, true);
    entry.setUint32(42, offset, true);
    central.push(entry, name);
    offset += 30 + name.length + data.length;
  }
  const size = central.reduce((n, p) => n + p.byteLength, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, files.length, true);
  end.setUint16(10, files.length, true);
  end.setUint32(12, size, true);
  end.setUint32(16, offset, true);
  return new Blob([...parts, ...central, end], { type: 'application/zip' });
}

/** A file name for a page: its path as folders, `index.md` for a folder, other hosts under their name. */
export function pageFileName(pageUrl, startHost) {
  let url;
  try {
    url = new URL(pageUrl);
  } catch {
    return 'page.md';
  }
  const segments = url.pathname
    .split('/')
    .filter(Boolean)
    .map(
      (s) =>
        decodeURIComponent(s)
          .replace(/[^\p{L}\p{N}._-]+/gu, '-')
          .replace(/^\.+/, '_') || '_',
    );
  const path = segments.length === 0 || url.pathname.endsWith('/') ? [...segments, 'index'] : segments;
  const host = url.host === startHost ? [] : [url.host.replace(/[^A-Za-z0-9.-]/g, '-')];
  return `${[...host, ...path].join('/').replace(/\.(html?|php|aspx?)$/i, '')}.md`;
}
