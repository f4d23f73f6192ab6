// Credits: the balance, the packages on sale, and buying one: POST /v1/credits/purchase, then the
// checkout page (Stripe, or the server's test-mode page) in a new tab while this page watches the
// balance until the purchase lands.
import { purchasedPackage } from './activity.js';
import { call } from './api.js';
import { $, announce, el, fill, fmtInt, fmtTime, showError, table } from './dom.js';

const WATCH_EVERY_MS = 2000;
const WATCH_FOR_MS = 15 * 60_000;
let watching = null;

async function refreshBalance() {
  const account = await call('GET', '/v1/account');
  $('credits-balance').textContent = fmtInt(account.credits);
  return account.credits;
}

function status(...children) {
  const box = $('checkout-status');
  box.classList.remove('ok');
  fill(box, ...children);
  box.hidden = children.length === 0;
}

/** Polls the balance until it has grown by the package's credits (or gives up). */
function watchBalance(startBalance, credits) {
  if (watching) clearInterval(watching);
  const until = Date.now() + WATCH_FOR_MS;
  watching = setInterval(async () => {
    if (Date.now() > until) {
      clearInterval(watching);
      watching = null;
      return;
    }
    try {
      const balance = await refreshBalance();
      if (balance >= startBalance + credits) {
        clearInterval(watching);
        watching = null;
        status(el('strong', {}, `✓ Purchase complete: ${fmtInt(credits)} credits added.`));
        void loadPurchases(true).catch(() => {});
        $('checkout-status').classList.add('ok');
        announce(`Purchase complete. Your balance is ${fmtInt(balance)} credits.`);
      }
    } catch {
      // a missed poll is retried on the next tick
    }
  }, WATCH_EVERY_MS);
}

async function buy(pkg, button) {
  showError('credits-error', null);
  // Opened now, inside the click, so that pop-up blockers allow it; pointed at the checkout below.
  const tab = window.open('', '_blank');
  button.disabled = true;
  try {
    const startBalance = await refreshBalance();
    const checkout = await call('POST', '/v1/credits/purchase', { body: { package_id: pkg.id } });
    const link = el(
      'a',
      { href: checkout.checkoutUrl, target: '_blank', rel: 'noopener' },
      'Open the checkout page',
    );
    if (tab) {
      tab.opener = null;
      tab.location.href = checkout.checkoutUrl;
    }
    status(
      el(
        'p',
        {},
        `Checkout for ${fmtInt(checkout.credits)} credits ($${checkout.priceUsd}) opened in a new tab. `,
        link,
        '.',
      ),
      el('p', { class: 'hint' }, 'Your balance updates here as soon as the purchase is complete.'),
    );
    announce('Checkout opened in a new tab.');
    watchBalance(startBalance, checkout.credits);
  } catch (err) {
    tab?.close();
    showError('credits-error', err);
  } finally {
    button.disabled = false;
  }
}

// Purchase history: the ledger's purchase entries, newest first, paged by cursor.
const PURCHASES_PAGE = 20;
let purchases = [];
let purchasesNext = null;
let onSale = [];

function renderPurchases() {
  fill(
    $('purchases'),
    purchases.length
      ? table(
          'Purchases of this account, newest first',
          ['When', { label: 'Credits', num: true }, { label: 'Price', num: true }, 'Checkout'],
          purchases.map((t) => {
            const pkg = purchasedPackage(t.description, onSale);
            return [
              fmtTime(t.created_at),
              fmtInt(t.amount),
              pkg ? `$${pkg.priceUsd}` : '—',
              t.job_id ? el('code', {}, t.job_id) : '—',
            ];
          }),
        )
      : el('p', { class: 'hint' }, 'No purchases yet.'),
  );
  $('purchases-more').hidden = !purchasesNext;
}

async function loadPurchases(first) {
  const page = await call('GET', '/v1/account/usage', {
    query: { type: 'purchase', limit: PURCHASES_PAGE, cursor: first ? undefined : purchasesNext },
  });
  if (first) purchases = [];
  purchases.push(...page.transactions);
  purchasesNext = page.next;
  renderPurchases();
}

async function loadPackages() {
  const { packages, checkout } = await call('GET', '/v1/credits/packages', { token: null });
  onSale = packages;
  const banner = $('credits-mode');
  banner.hidden = checkout !== 'test' && checkout !== 'off';
  banner.textContent =
    checkout === 'test'
      ? 'Test mode: this server takes no payment. Buying opens a test checkout page whose "Confirm test purchase" adds the credits for free.'
      : checkout === 'off'
        ? 'Purchases are turned off on this server.'
        : '';
  fill(
    $('packages'),
    packages.map((pkg) => {
      const button = el(
        'button',
        { type: 'button', 'aria-label': `Buy ${fmtInt(pkg.credits)} credits for $${pkg.priceUsd}` },
        'Buy',
      );
      button.addEventListener('click', () => void buy(pkg, button));
      return el(
        'div',
        { class: 'card package', 'data-package': pkg.id },
        el('span', { class: 'credits' }, `${fmtInt(pkg.credits)} credits`),
        el('span', { class: 'price' }, `$${pkg.priceUsd}`),
        button,
      );
    }),
  );
}

export const creditsView = {
  init() {
    $('purchases-more').addEventListener('click', async () => {
      try {
        await loadPurchases(false);
      } catch (err) {
        showError('credits-error', err);
      }
    });
    $('refresh-balance').addEventListener('click', async () => {
      try {
        const balance = await refreshBalance();
        announce(`Balance: ${fmtInt(balance)} credits.`);
      } catch (err) {
        showError('credits-error', err);
      }
    });
  },
  async show() {
    showError('credits-error', null);
    try {
      await Promise.all([refreshBalance(), loadPackages()]);
      await loadPurchases(true);
    } catch (err) {
      showError('credits-error', err);
    }
  },
};
