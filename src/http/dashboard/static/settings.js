// Settings: the webhook signing secret (shown on demand, rotated), and the password (changed with
// the current one; every other session ends). Sessions themselves are listed on the API keys page.
import { call } from './api.js';
import { $, announce, showError } from './dom.js';

async function loadSecret() {
  const account = await call('GET', '/v1/account');
  $('webhook-secret').value = account.webhookSecret;
}

function toggleSecret() {
  const input = $('webhook-secret');
  const shown = input.type === 'text';
  input.type = shown ? 'password' : 'text';
  $('webhook-secret-show').textContent = shown ? 'Show' : 'Hide';
  $('webhook-secret-show').setAttribute('aria-pressed', String(!shown));
}

async function rotate() {
  if (
    !window.confirm(
      'Rotate the webhook secret? Webhooks are signed with the new one at once: update your receivers.',
    )
  )
    return;
  showError('webhook-error', null);
  try {
    const { webhookSecret } = await call('POST', '/v1/account/webhook-secret/rotate');
    $('webhook-secret').value = webhookSecret;
    $('webhook-status').textContent = 'A new secret signs every webhook from now on.';
    announce('Webhook secret rotated.');
  } catch (err) {
    showError('webhook-error', err);
  }
}

async function changePassword(event) {
  event.preventDefault();
  showError('password-error', null);
  $('password-status').textContent = '';
  const current = $('password-current').value;
  const next = $('password-new').value;
  if (next !== $('password-repeat').value) {
    showError('password-error', 'The new password and its repetition differ.');
    $('password-repeat').focus();
    return;
  }
  // Read now: currentTarget is gone once the handler has awaited.
  const form = event.currentTarget;
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    const { sessionsEnded } = await call('POST', '/v1/auth/password', {
      body: { currentPassword: current, newPassword: next },
    });
    form.reset();
    const ended =
      sessionsEnded === 0
        ? 'No other session was open'
        : sessionsEnded === 1
          ? '1 other session was ended'
          : `${sessionsEnded} other sessions were ended`;
    $('password-status').textContent = `Password changed. ${ended}; your API keys keep working.`;
    announce('Password changed.');
  } catch (err) {
    showError('password-error', err);
  } finally {
    button.disabled = false;
  }
}

export const settingsView = {
  init() {
    $('webhook-secret-show').addEventListener('click', toggleSecret);
    $('webhook-secret-rotate').addEventListener('click', () => void rotate());
    $('password-form').addEventListener('submit', (e) => void changePassword(e));
  },
  async show() {
    showError('webhook-error', null);
    $('webhook-status').textContent = '';
    try {
      await loadSecret();
    } catch (err) {
      showError('webhook-error', err);
    }
  },
};
