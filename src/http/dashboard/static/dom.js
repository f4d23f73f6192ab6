// Small DOM helpers: building elements without innerHTML (so API data is never parsed as markup),
// announcing to screen readers, formatting.

/** el('td', {class: 'num'}, 'text', child…): attributes, `on<event>` handlers, children. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export const $ = (id) => document.getElementById(id);

/** Replaces the children of `node`. */
export function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
}

/** Says `message` through the page's polite live region. */
export function announce(message) {
  const region = $('announcer');
  region.textContent = '';
  // A fresh text node after clearing makes screen readers repeat an identical message.
  setTimeout(() => {
    region.textContent = message;
  }, 30);
}

export function showError(id, err) {
  $(id).textContent = err ? (err.message ?? String(err)) : '';
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const fmtTime = (ms) => (ms === null || ms === undefined ? '—' : dateTime.format(new Date(ms)));
export const fmtInt = (n) => (n === null || n === undefined ? '—' : Number(n).toLocaleString());
export function fmtDuration(ms) {
  if (ms === null || ms === undefined) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/**
 * A button that copies `text()` to the clipboard and says so on itself for a moment (or asks to
 * select and copy where the page may not write the clipboard).
 */
export function copyButton(text, label = 'Copy') {
  const button = el('button', { type: 'button', class: 'secondary small copy', 'aria-label': label }, 'Copy');
  wireCopy(button, text);
  return button;
}

/** Makes an existing button copy `text()` (see copyButton). */
export function wireCopy(button, text) {
  let reset = null;
  button.addEventListener('click', async () => {
    clearTimeout(reset);
    try {
      await navigator.clipboard.writeText(text());
      button.textContent = 'Copied';
      announce('Copied to the clipboard.');
    } catch {
      button.textContent = 'Select and copy';
    }
    reset = setTimeout(() => {
      button.textContent = 'Copy';
    }, 2000);
  });
}

/**
 * A table with a caption (visually hidden unless `showCaption`), headers and rows of cells, in a box
 * that scrolls sideways when the table is wider than the screen.
 */
export function table(caption, headers, rows, { showCaption = false } = {}) {
  return el('div', { class: 'table-wrap' }, tableOnly(caption, headers, rows, showCaption));
}

function tableOnly(caption, headers, rows, showCaption) {
  return el(
    'table',
    {},
    el('caption', { class: showCaption ? '' : 'visually-hidden' }, caption),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        headers.map((h) => el('th', { scope: 'col', class: h.num ? 'num' : undefined }, h.label ?? h)),
      ),
    ),
    el(
      'tbody',
      {},
      rows.map((cells) =>
        el(
          'tr',
          {},
          cells.map((c, i) => el('td', { class: headers[i]?.num ? 'num' : undefined }, c)),
        ),
      ),
    ),
  );
}
