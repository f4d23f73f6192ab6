// Sign-in view: log in (POST /v1/auth/login → session token) or register (POST /v1/auth/register,
// then log in with the same credentials so the dashboard works on a session, not on the first key).
import { call, session } from './api.js';
import { $, announce, showError } from './dom.js';
import { revealKey } from './keys.js';

async function logIn(email, password) {
  const s = await call('POST', '/v1/auth/login', { body: { email, password }, token: null });
  session.set({ token: s.token, email: s.email, accountId: s.accountId, expiresAt: s.expiresAt });
}

function values(form) {
  const data = new FormData(form);
  return { email: String(data.get('email') ?? '').trim(), password: String(data.get('password') ?? '') };
}

function checkForm(form, errorId) {
  const { email, password } = values(form);
  if (!email || !form.elements.email.checkValidity()) return 'Enter a valid e-mail address.';
  if (!password) return 'Enter a password.';
  if (form.id === 'register-form' && password.length < 8) return 'The password needs at least 8 characters.';
  showError(errorId, null);
  return null;
}

async function submit(form, errorId, action, next) {
  const problem = checkForm(form, errorId);
  if (problem) {
    showError(errorId, problem);
    return;
  }
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  try {
    await action(values(form));
    form.reset();
    announce('Signed in.');
    // Signed out on a bookmarked page, the address may already be `next`: route anyway.
    if (window.location.hash === next) window.dispatchEvent(new HashChangeEvent('hashchange'));
    else window.location.hash = next;
  } catch (err) {
    showError(errorId, err);
  } finally {
    button.disabled = false;
  }
}

export const authView = {
  init() {
    $('login-form').addEventListener('submit', (e) => {
      e.preventDefault();
      void submit(
        e.currentTarget,
        'login-error',
        ({ email, password }) => logIn(email, password),
        '#/overview',
      );
    });
    $('register-form').addEventListener('submit', (e) => {
      e.preventDefault();
      void submit(
        e.currentTarget,
        'register-error',
        async ({ email, password }) => {
          const account = await call('POST', '/v1/auth/register', { body: { email, password }, token: null });
          await logIn(email, password);
          // The first API key comes with the registration and is never shown again: show it now.
          revealKey(account.apiKey, 'Your first API key');
        },
        '#/keys',
      );
    });
  },
  async show() {},
  notice(text) {
    $('auth-notice').textContent = text;
  },
};
