// Confirming a test-mode checkout the way the README shows from the shell: read the confirm token
// from the checkout's own page (as JSON), then post it back. Over inject (a TestApp) or a real socket.
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app.js';

const pathOf = (checkout: string) =>
  checkout.startsWith('chk_') ? `/v1/credits/checkout/${checkout}` : new URL(checkout).pathname;

/** The confirm token of a checkout (id or checkout URL); null when the page offers none. */
export async function confirmToken(t: TestApp, checkout: string): Promise<string | null> {
  const page = await t.call(null, {
    method: 'GET',
    url: pathOf(checkout),
    headers: { accept: 'application/json' },
  });
  if (page.statusCode !== 200) throw new Error(`checkout page: ${page.statusCode} ${page.body}`);
  return page.json().confirmToken;
}

/** Confirms a checkout (id or checkout URL) with its token; answers the JSON confirm answer. */
export async function confirmCheckout(t: TestApp, checkout: string): Promise<LightMyRequestResponse> {
  const token = await confirmToken(t, checkout);
  return t.call(null, {
    method: 'POST',
    url: `${pathOf(checkout)}/confirm`,
    headers: { accept: 'application/json' },
    payload: { token },
  });
}

/** The same against a server on a socket at `base`. */
export async function confirmCheckoutAt(base: string, checkout: string): Promise<Response> {
  const url = `${base}${pathOf(checkout)}`;
  const page = await fetch(url, { headers: { accept: 'application/json' } });
  if (page.status !== 200) throw new Error(`checkout page: ${page.status} ${await page.text()}`);
  const { confirmToken: token } = (await page.json()) as { confirmToken: string | null };
  return fetch(`${url}/confirm`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  });
}
