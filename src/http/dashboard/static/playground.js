// Playground: any operation of /openapi.json, its parameters as a form, sent with this session, an
// API key or nothing; shows the status, the credit headers and the body.
import { request, session } from './api.js';
import { $, announce, el, fill, wireCopy } from './dom.js';
import { renderMarkdown } from './markdown.js';

// The API's own operations first, account plumbing after.
const TAG_ORDER = ['Web', 'Videos', 'Posts', 'Jobs', 'Credits', 'Accounts', 'System'];
// Operations with a method of their own in @unfurl/sdk (the rest go through transport.request).
const SDK_METHODS = {
  'GET /v1/web/scrape': ['web.scrape', 'query'],
  'GET /v1/web/map': ['web.map', 'query'],
  'POST /v1/web/crawl': ['web.crawlAndWait', 'body'],
  'GET /v1/transcript': ['transcript', 'query'],
  'GET /v1/metadata': ['metadata', 'url'],
  'POST /v1/video/ocr': ['video.ocr', 'body'],
  'POST /v1/video/describe': ['video.describe', 'body'],
  'POST /v1/extract': ['extract', 'body'],
  'GET /v1/account': ['account.get', 'none'],
  'GET /v1/account/usage': ['account.usage', 'query'],
  'GET /v1/credits/packages': ['credits.packages', 'none'],
  'GET /v1/jobs/{jobId}': ['jobs.get', 'jobId'],
};
let lastUser = null;
let lastReq = null;
/** The last answer's whole text (what Copy copies; the page shows at most MAX_SHOWN_CHARS). */
let lastText = null;

const SHOWN_HEADERS = [
  'x-credits-charged',
  'x-credits-remaining',
  'x-credits-held',
  'x-request-id',
  'retry-after',
  'ratelimit',
  'content-type',
];
const MAX_SHOWN_CHARS = 500_000;
let spec = null;
const operations = new Map();

/** Follows a local `$ref` (#/components/schemas/X) one or more times. */
function deref(schema) {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) {
    const path = s.$ref.replace(/^#\//, '').split('/');
    s = path.reduce((node, key) => node?.[key], spec);
  }
  return s ?? {};
}

/** A starting value for a schema: its default or example, else something of the right type. */
function sample(schema, depth = 0) {
  const s = deref(schema);
  if (s.default !== undefined) return s.default;
  if (s.examples?.length) return s.examples[0];
  if (s.example !== undefined) return s.example;
  if (s.enum?.length) return s.enum[0];
  if (s.anyOf?.length) return sample(s.anyOf[0], depth);
  switch (s.type) {
    case 'integer':
    case 'number':
      return s.minimum ?? 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object': {
      const out = {};
      if (depth > 3) return out;
      for (const name of s.required ?? []) out[name] = sample(s.properties?.[name] ?? {}, depth + 1);
      return out;
    }
    default:
      return s.format === 'uri' || /url/i.test(s.description ?? '') ? 'https://example.com/' : '';
  }
}

async function loadSpec() {
  const res = await request('GET', '/openapi.json', { token: null });
  if (!res.ok) throw new Error(`Could not read /openapi.json (HTTP ${res.status})`);
  spec = res.body;
  const byTag = new Map();
  for (const [path, methods] of Object.entries(spec.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const id = `${method.toUpperCase()} ${path}`;
      operations.set(id, { id, method: method.toUpperCase(), path, op });
      const tag = op.tags?.[0] ?? 'Other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push(id);
    }
  }
  const select = $('play-op');
  const rank = (tag) => (TAG_ORDER.includes(tag) ? TAG_ORDER.indexOf(tag) : TAG_ORDER.length);
  fill(
    select,
    [...byTag.entries()]
      .sort(([a], [b]) => rank(a) - rank(b))
      .map(([tag, ids]) =>
        el(
          'optgroup',
          { label: tag },
          ids
            .sort()
            .map((id) =>
              el(
                'option',
                { value: id },
                `${id}${operations.get(id).op.summary ? ` — ${operations.get(id).op.summary}` : ''}`,
              ),
            ),
        ),
      ),
  );
  const preferred = 'GET /v1/web/scrape';
  if (operations.has(preferred)) select.value = preferred;
  renderOperation();
}

function paramInput(p) {
  const s = deref(p.schema ?? {});
  const id = `param-${p.in}-${p.name}`;
  const hintId = `${id}-hint`;
  // A parameter with a default is filled in by the server when left empty.
  const required = p.required && s.default === undefined;
  const common = {
    id,
    name: p.name,
    'data-in': p.in,
    'aria-describedby': hintId,
    required: required || undefined,
  };
  let input;
  const values = s.enum ?? (s.type === 'boolean' ? ['true', 'false'] : null);
  if (values) {
    input = el(
      'select',
      common,
      el('option', { value: '' }, required ? 'Choose…' : '(not set)'),
      values.map((v) => el('option', { value: String(v) }, String(v))),
    );
  } else if (s.type === 'integer' || s.type === 'number') {
    input = el('input', {
      ...common,
      type: 'number',
      min: s.minimum,
      max: s.maximum,
      step: s.type === 'integer' ? 1 : 'any',
      placeholder: s.default,
    });
  } else {
    input = el('input', {
      ...common,
      type: 'text',
      spellcheck: 'false',
      placeholder: s.default ?? (s.format === 'uri' ? 'https://…' : undefined),
    });
  }
  const range = [
    s.minimum !== undefined ? `min ${s.minimum}` : '',
    s.maximum !== undefined ? `max ${s.maximum}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const hint = [
    p.in === 'path' ? 'in the path' : `in the ${p.in}`,
    s.type,
    range,
    s.default !== undefined ? `default ${s.default}` : '',
    p.description ?? s.description ?? '',
  ]
    .filter(Boolean)
    .join(' · ');
  return el(
    'div',
    { class: 'param' },
    el('label', { for: id }, p.name, required ? ' (required)' : ''),
    input,
    el('span', { id: hintId, class: 'hint' }, hint),
  );
}

/** Forgets the last answer: it belonged to another operation or another user. */
/** The Copy buttons show only beside something to copy. */
function syncCopyButtons() {
  $('play-response-copy').hidden = !$('play-response').textContent;
  $('play-snippet-copy').hidden = !$('play-curl').textContent;
}

function clearAnswer() {
  $('play-status').textContent = 'No request sent yet.';
  fill($('play-headers'));
  $('play-response').textContent = '';
  lastText = null;
  fill($('play-links'));
  fill($('play-preview'));
  $('play-preview-box').hidden = true;
  $('play-curl').textContent = '';
  lastReq = null;
  renderSnippet();
}

function renderOperation() {
  clearAnswer();
  const entry = operations.get($('play-op').value);
  if (!entry) return;
  const { op } = entry;
  $('play-summary').textContent = [op.summary, op.description].filter(Boolean).join(' — ');
  const params = (op.parameters ?? []).filter((p) => p.in === 'path' || p.in === 'query');
  fill($('play-params'), params.map(paramInput));
  $('play-params-set').hidden = params.length === 0;
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  $('play-body-row').hidden = !bodySchema;
  $('play-body').value = bodySchema ? JSON.stringify(sample(bodySchema), null, 2) : '';
  const isPublic = Array.isArray(op.security) && op.security.length === 0;
  document.querySelector(`input[name="play-auth"][value="${isPublic ? 'none' : 'session'}"]`).checked = true;
  $('play-key-row').hidden = true;
}

function buildRequest(entry) {
  let path = entry.path;
  const query = {};
  for (const input of $('play-params').querySelectorAll('[data-in]')) {
    const value = input.value.trim();
    if (input.dataset.in === 'path') {
      if (!value) throw new Error(`Fill in the path parameter ${input.name}.`);
      path = path.replace(`{${input.name}}`, encodeURIComponent(value));
    } else if (value !== '') {
      query[input.name] = value;
    } else if (input.required) {
      throw new Error(`Fill in the required parameter ${input.name}.`);
    }
  }
  let body;
  if (!$('play-body-row').hidden && $('play-body').value.trim()) {
    try {
      body = JSON.parse($('play-body').value);
    } catch (err) {
      throw new Error(`The JSON body is not valid JSON: ${err.message}`);
    }
  }
  const auth = document.querySelector('input[name="play-auth"]:checked').value;
  const token = auth === 'session' ? undefined : auth === 'key' ? $('play-key').value.trim() || null : null;
  return { path, query, body, token, auth };
}

function curlFor(entry, req) {
  const url = new URL(req.path, window.location.origin);
  for (const [k, v] of Object.entries(req.query)) url.searchParams.set(k, v);
  const quote = (s) => `'${String(s).replace(/'/g, "'\\''")}'`;
  const parts = [`curl -sS -X ${entry.method} ${quote(url)}`];
  if (req.auth !== 'none') parts.push(`-H 'Authorization: Bearer '"$UNFURL_API_KEY"`);
  if (req.body !== undefined)
    parts.push(`-H 'Content-Type: application/json'`, `-d ${quote(JSON.stringify(req.body))}`);
  return parts.join(' \\\n  ');
}

const pyValue = (v) =>
  JSON.stringify(v, null, 4)
    .replace(/\btrue\b/g, 'True')
    .replace(/\bfalse\b/g, 'False')
    .replace(/\bnull\b/g, 'None');

function jsFor(entry, req) {
  const base = window.location.origin;
  const [name, takes] = SDK_METHODS[`${entry.method} ${entry.path}`] ?? [];
  let call;
  if (name) {
    const arg =
      takes === 'query'
        ? JSON.stringify(req.query, null, 2)
        : takes === 'body'
          ? JSON.stringify(req.body ?? {}, null, 2)
          : takes === 'url'
            ? JSON.stringify(req.query.url ?? '')
            : takes === 'jobId'
              ? JSON.stringify(req.path.split('/').pop())
              : '';
    call = `await unfurl.${name}(${arg})`;
  } else {
    const spec = { method: entry.method, path: req.path };
    if (Object.keys(req.query).length) spec.query = req.query;
    if (req.body !== undefined) spec.body = req.body;
    call = `(await unfurl.transport.request(${JSON.stringify(spec, null, 2)})).body`;
  }
  return `import { Unfurl } from '@unfurl/sdk';

// The key comes from UNFURL_API_KEY.
const unfurl = new Unfurl({ baseUrl: '${base}' });
const answer = ${call};
console.log(answer);`;
}

function pythonFor(entry, req) {
  const lines = [
    'import os',
    'import requests',
    '',
    'answer = requests.request(',
    `    ${JSON.stringify(entry.method)},`,
    `    ${JSON.stringify(new URL(req.path, window.location.origin).toString())},`,
  ];
  if (req.auth !== 'none')
    lines.push(`    headers={"Authorization": "Bearer " + os.environ["UNFURL_API_KEY"]},`);
  if (Object.keys(req.query).length) lines.push(`    params=${pyValue(req.query)},`);
  if (req.body !== undefined) lines.push(`    json=${pyValue(req.body)},`);
  lines.push(')', 'print(answer.status_code, answer.json())');
  return lines.join('\n');
}

/** The call as code in the chosen language (curl, JavaScript with our SDK, Python). */
function renderSnippet() {
  const entry = operations.get($('play-op').value);
  const lang = document.querySelector('#play-snippet-tabs [aria-pressed="true"]')?.dataset.lang ?? 'curl';
  let req = lastReq;
  if (!req && entry) {
    try {
      req = buildRequest(entry);
    } catch {
      req = null;
    }
  }
  if (!entry || !req) {
    $('play-curl').textContent = '';
    syncCopyButtons();
    return;
  }
  $('play-curl').textContent =
    lang === 'js' ? jsFor(entry, req) : lang === 'python' ? pythonFor(entry, req) : curlFor(entry, req);
  syncCopyButtons();
}

function showLinks(body) {
  const jobId = body && typeof body === 'object' && typeof body.jobId === 'string' ? body.jobId : null;
  fill(
    $('play-links'),
    jobId
      ? el(
          'p',
          {},
          'A job was started: ',
          el('a', { href: `#/jobs?id=${encodeURIComponent(jobId)}` }, `open ${jobId} in Jobs`),
          '.',
        )
      : null,
  );
  const markdown = body && typeof body === 'object' && typeof body.content === 'string' ? body.content : null;
  $('play-preview-box').hidden = !markdown;
  fill($('play-preview'), markdown ? renderMarkdown(markdown) : null);
}

async function send() {
  const entry = operations.get($('play-op').value);
  if (!entry) return;
  let req;
  try {
    req = buildRequest(entry);
  } catch (err) {
    $('play-status').textContent = err.message;
    return;
  }
  const button = $('play-send');
  button.disabled = true;
  $('play-result').setAttribute('aria-busy', 'true');
  $('play-status').textContent = `Sending ${entry.method} ${req.path}…`;
  fill($('play-links'));
  lastReq = req;
  renderSnippet();
  try {
    const res = await request(entry.method, req.path, { query: req.query, body: req.body, token: req.token });
    const headers = SHOWN_HEADERS.filter((h) => res.headers.get(h) !== null);
    fill(
      $('play-headers'),
      headers.flatMap((h) => [el('dt', {}, h), el('dd', { 'data-header': h }, res.headers.get(h))]),
    );
    const text =
      typeof res.body === 'object' && res.body !== null ? JSON.stringify(res.body, null, 2) : res.text;
    lastText = text;
    $('play-response').textContent =
      text.length > MAX_SHOWN_CHARS
        ? `${text.slice(0, MAX_SHOWN_CHARS)}\n… (${text.length - MAX_SHOWN_CHARS} more characters)`
        : text;
    showLinks(res.body);
    syncCopyButtons();
    const charged = res.headers.get('x-credits-charged');
    $('play-status').textContent =
      `HTTP ${res.status} ${res.statusText} · ${Math.round(res.ms)} ms${charged !== null ? ` · ${charged} credit${charged === '1' ? '' : 's'} charged` : ''}`;
  } catch (err) {
    $('play-status').textContent = `The request failed: ${err.message}`;
    announce('The request failed.');
  } finally {
    button.disabled = false;
    $('play-result').setAttribute('aria-busy', 'false');
  }
}

export const playgroundView = {
  init() {
    // The whole answer, not the shortened one on screen, when it was cut.
    wireCopy($('play-response-copy'), () => lastText ?? $('play-response').textContent);
    wireCopy($('play-snippet-copy'), () => $('play-curl').textContent);
    $('play-op').addEventListener('change', renderOperation);
    for (const radio of document.querySelectorAll('input[name="play-auth"]')) {
      radio.addEventListener('change', () => {
        $('play-key-row').hidden = radio.value !== 'key' || !radio.checked;
      });
    }
    for (const tab of document.querySelectorAll('#play-snippet-tabs button')) {
      tab.addEventListener('click', () => {
        for (const t of document.querySelectorAll('#play-snippet-tabs button'))
          t.setAttribute('aria-pressed', String(t === tab));
        renderSnippet();
      });
    }
    $('play-form').addEventListener('input', () => {
      if (!lastReq) renderSnippet();
    });
    $('play-form').addEventListener('submit', (e) => {
      e.preventDefault();
      void send();
    });
  },
  async show() {
    // Another user signed in since: the last answer was theirs.
    const user = session.get()?.accountId ?? null;
    if (lastUser !== null && user !== lastUser) clearAnswer();
    lastUser = user;
    if (spec) return;
    try {
      await loadSpec();
    } catch (err) {
      $('play-status').textContent = err.message;
    }
  },
};
