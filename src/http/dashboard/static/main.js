// The dashboard's entry: hash routes (#/overview, #/keys, #/monitors …), one <section data-view> shown at a
// time, signed-out visitors sent to the sign-in view.
import { activityView } from './activity.js';
import { request, session, whenSessionLost } from './api.js';
import { authView } from './auth.js';
import { creditsView } from './credits.js';
import { $ } from './dom.js';
import { jobsView } from './jobs.js';
import { keysView } from './keys.js';
import { monitorsView } from './monitors.js';
import { overviewView } from './overview.js';
import { playgroundView } from './playground.js';
import { settingsView } from './settings.js';

const views = {
  auth: authView,
  overview: overviewView,
  activity: activityView,
  keys: keysView,
  credits: creditsView,
  jobs: jobsView,
  monitors: monitorsView,
  playground: playgroundView,
  settings: settingsView,
};
const initialised = new Set();
let firstRoute = true;

function show(name) {
  for (const section of document.querySelectorAll('[data-view]'))
    section.hidden = section.dataset.view !== name;
  for (const link of document.querySelectorAll('[data-nav]')) {
    if (link.dataset.nav === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const signedIn = session.get();
  $('nav').hidden = !signedIn;
  $('who').hidden = !signedIn;
  $('who-email').textContent = signedIn ? signedIn.email : '';
  const heading = document.querySelector(`[data-view="${name}"] h1`);
  document.title = `${heading ? heading.textContent : 'Dashboard'} · Unfurl`;
  // Moving focus to the new heading tells screen-reader users the page changed (not on first load).
  if (!firstRoute && heading) heading.focus();
  firstRoute = false;
}

async function route() {
  const wanted = window.location.hash.replace(/^#\/?/, '').split('?')[0] || 'overview';
  const name = !session.get() ? 'auth' : views[wanted] && wanted !== 'auth' ? wanted : 'overview';
  const view = views[name];
  if (!initialised.has(name)) {
    view.init();
    initialised.add(name);
  }
  show(name);
  await view.show();
}

export function go(name) {
  if (window.location.hash === `#/${name}`) void route();
  else window.location.hash = `#/${name}`;
}

whenSessionLost(() => {
  session.clear();
  authView.notice('Your session has ended. Please log in again.');
  go('auth');
});

// Logging out ends the session on the server too, so a copy of the token stops working; the tab
// forgets it whatever the answer (a 401 means the server had already ended it).
$('logout').addEventListener('click', async () => {
  const button = $('logout');
  button.disabled = true;
  const ended = await request('POST', '/v1/auth/logout').then(
    (res) => res.ok || res.status === 401,
    () => false,
  );
  button.disabled = false;
  session.clear();
  authView.notice(
    ended
      ? 'You are logged out.'
      : 'You are logged out in this tab, but the server could not be told: the session ends when it expires.',
  );
  go('auth');
});

window.addEventListener('hashchange', () => void route());
void route();
