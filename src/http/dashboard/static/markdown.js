// A small Markdown preview built from DOM nodes (never innerHTML, so page text can never become
// markup): headings, paragraphs, lists, quotes, code blocks, and inline code, bold, italics and links.
import { el } from './dom.js';

const SAFE_LINK = /^(https?:|mailto:|\/|#)/i;

/** Inline Markdown of one line or paragraph as nodes. */
function inline(text) {
  const out = [];
  const pattern =
    /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*|_[^_\s][^_]*_)|(!?\[[^\]]*\]\([^)\s]+(?:\s+"[^"]*")?\))/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const [token] = m;
    if (m[1]) out.push(el('code', {}, token.slice(1, -1)));
    else if (m[2]) out.push(el('strong', {}, token.slice(2, -2)));
    else if (m[3]) out.push(el('em', {}, token.slice(1, -1)));
    else {
      const link = /^(!?)\[([^\]]*)\]\(([^)\s]+)/.exec(token);
      const [, bang, label, href] = link;
      if (bang) out.push(`[image: ${label || href}]`);
      else if (SAFE_LINK.test(href))
        out.push(el('a', { href, rel: 'noopener noreferrer', target: '_blank' }, label || href));
      else out.push(label);
    }
    last = m.index + token.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** Markdown text as a <div class="markdown"> of elements. */
export function renderMarkdown(markdown) {
  const root = el('div', { class: 'markdown' });
  const lines = String(markdown ?? '')
    .replace(/\r\n?/g, '\n')
    .split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^\s*$/.test(line)) {
      i++;
      continue;
    }
    const fence = /^(```|~~~)/.exec(line);
    if (fence) {
      const code = [];
      i++;
      while (i < lines.length && !lines[i].startsWith(fence[1])) code.push(lines[i++]);
      i++;
      root.append(el('pre', { class: 'code' }, code.join('\n')));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(6, heading[1].length + 2);
      root.append(el(`h${level}`, {}, inline(heading[2])));
      i++;
      continue;
    }
    if (/^\s*([-*+]|\d+[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const list = el(ordered ? 'ol' : 'ul');
      while (i < lines.length && /^\s*([-*+]|\d+[.)])\s+/.test(lines[i])) {
        list.append(el('li', {}, inline(lines[i].replace(/^\s*([-*+]|\d+[.)])\s+/, ''))));
        i++;
      }
      root.append(list);
      continue;
    }
    if (/^>\s?/.test(line)) {
      const quote = [];
      while (i < lines.length && /^>\s?/.test(lines[i])) quote.push(lines[i++].replace(/^>\s?/, ''));
      root.append(el('blockquote', {}, inline(quote.join(' '))));
      continue;
    }
    if (/^(-{3,}|\*{3,}|_{3,})\s*$/.test(line)) {
      root.append(el('hr'));
      i++;
      continue;
    }
    const paragraph = [lines[i++]];
    while (
      i < lines.length &&
      !/^\s*$/.test(lines[i]) &&
      !/^(#{1,6}\s|```|~~~|>|\s*([-*+]|\d+[.)])\s)/.test(lines[i])
    ) {
      paragraph.push(lines[i++]);
    }
    root.append(el('p', {}, inline(paragraph.join(' '))));
  }
  return root;
}

/** Offers `content` (text, or a Blob) as a file download named `name`. */
export function download(name, content, type) {
  const blob = content instanceof Blob ? content : new Blob([content], { type });
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
