// API keys: create (the secret is shown once, with a copy button), list, revoke; and the account's
// signed-in sessions, which can be ended the same way.
import { call } from './api.js';
import { $, announce, el, fill, fmtTime, showError, table } from './dom.js';

/** Shows a secret in the one-time panel (after creating a key, or the first key at registration). */
export function revealKey(secret, title = 'Your new key') {
  $('new-key-title').textContent = title;
  $('new-key-value').value = secret;
  $('copy-status').textContent = '';
  $('new-key').hidden = false;
}

async function copySecret() {
  const input = $('new-key-value');
  let copied = false;
  try {
    await navigator.clipboard.writeText(input.value);
    copied = true;
  } catch {
    // No clipboard permission (or not a secure context): select it so Ctrl+C works.
    input.focus();
    input.select();
    copied = document.execCommand?.('copy') ?? false;
  }
  $('copy-status').textContent = copied ? 'Copied to the clipboard.' : 'Selected: press Ctrl+C (⌘C) to copy.';
}

async function load() {
  const { keys } = await call('GET', '/v1/keys');
  if (!keys.length) {
    fill($('key-table'), el('p', { class: 'hint' }, 'No keys yet.'));
    return;
  }
  const rows = keys.map((k) => [
    k.name,
    el('code', {}, `${k.prefix}…`),
    fmtTime(k.createdAt),
    fmtTime(k.lastUsedAt),
    k.revokedAt
      ? el('span', { class: 'badge revoked' }, `revoked ${fmtTime(k.revokedAt)}`)
      : el('span', { class: 'badge active-key' }, 'active'),
    k.revokedAt
      ? ''
      : el(
          'button',
          {
            type: 'button',
            class: 'danger small',
            'aria-label': `Revoke key ${k.name}`,
            onclick: () => revoke(k),
          },
          'Revoke',
        ),
  ]);
  fill(
    $('key-table'),
    table('API keys of this account', ['Name', 'Prefix', 'Created', 'Last used', 'Status', 'Action'], rows),
  );
}

async function loadSessions() {
  const { sessions } = await call('GET', '/v1/auth/sessions');
  const rows = sessions.map((s) => [
    el('code', {}, `${s.prefix}…`),
    fmtTime(s.createdAt),
    fmtTime(s.lastUsedAt),
    fmtTime(s.expiresAt),
    s.current
      ? el('span', { class: 'badge active-key' }, 'this browser')
      : el(
          'button',
          {
            type: 'button',
            class: 'danger small',
            'aria-label': `End session ${s.prefix}`,
            onclick: () => endSession(s),
          },
          'End',
        ),
  ]);
  fill(
    $('session-table'),
    table(
      'Signed-in sessions of this account',
      ['Prefix', 'Created', 'Last used', 'Expires', 'Action'],
      rows,
    ),
  );
}

async function endSession(s) {
  if (!window.confirm(`End the session ${s.prefix}…? It will be refused at once.`)) return;
  try {
    await call('DELETE', `/v1/auth/sessions/${encodeURIComponent(s.id)}`);
    announce(`Session ${s.prefix} ended.`);
    await loadSessions();
  } catch (err) {
    showError('session-error', err);
  }
}

async function revoke(key) {
  if (!window.confirm(`Revoke the key "${key.name}"? Requests with it will be refused at once.`)) return;
  try {
    await call('DELETE', `/v1/keys/${encodeURIComponent(key.id)}`);
    announce(`Key ${key.name} revoked.`);
    await load();
  } catch (err) {
    showError('key-error', err);
  }
}

export const keysView = {
  init() {
    $('key-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const name = $('key-name').value.trim();
      if (!name) {
        showError('key-error', 'Give the key a name.');
        $('key-name').focus();
        return;
      }
      showError('key-error', null);
      const button = e.currentTarget.querySelector('button[type="submit"]');
      button.disabled = true;
      try {
        const created = await call('POST', '/v1/keys/create', { body: { name } });
        $('key-name').value = '';
        revealKey(created.key, `Your new key “${created.name}”`);
        $('new-key-value').focus();
        announce(`Key ${created.name} created. Copy it now: it is shown only once.`);
        await load();
      } catch (err) {
        showError('key-error', err);
      } finally {
        button.disabled = false;
      }
    });
    $('copy-key').addEventListener('click', () => void copySecret());
    $('dismiss-key').addEventListener('click', () => {
      $('new-key-value').value = '';
      $('new-key').hidden = true;
      $('key-name').focus();
    });
  },
  async show() {
    try {
      await load();
    } catch (err) {
      showError('key-error', err);
    }
    try {
      await loadSessions();
    } catch (err) {
      showError('session-error', err);
    }
  },
};
