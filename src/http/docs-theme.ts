// /docs in Unfurl's own clothes: our title, mark and colours over Swagger UI's stock page, and a
// line of links back to the dashboard and the reference (errors, prices) at the top.
import fs from 'node:fs';
import { dashboardDir } from './dashboard/plugin.js';

const NAVY = '#10233f';

/** The top bar's mark: the dashboard's icon and the product's name, white on navy. */
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="168" height="32" viewBox="0 0 168 32"><title>Unfurl API</title>
<rect width="32" height="32" rx="6" fill="#fff"/><path d="M8 9h4v9a4 4 0 0 0 8 0V9h4v9a8 8 0 0 1-16 0z" fill="${NAVY}"/>
<text x="42" y="23" font-family="system-ui,-apple-system,Segoe UI,sans-serif" font-size="19" font-weight="600" fill="#fff">Unfurl API</text></svg>`;

const CSS = `
.swagger-ui .topbar{background:${NAVY};padding:8px 0}
.swagger-ui .topbar .download-url-wrapper{display:none}
.swagger-ui .topbar-wrapper img{height:32px;width:auto}
.swagger-ui .info .title small{background:${NAVY}}
.swagger-ui .info .title small.version-stamp{background:#1d4ed8}
.swagger-ui .btn.authorize{color:#1d4ed8;border-color:#1d4ed8}
.swagger-ui .btn.authorize svg{fill:#1d4ed8}
.swagger-ui .opblock-tag{font-family:system-ui,-apple-system,Segoe UI,sans-serif}
`;

function favicon(): Buffer {
  const dir = dashboardDir();
  return dir ? fs.readFileSync(`${dir}/favicon.svg`) : Buffer.from(LOGO);
}

/** @fastify/swagger-ui's `logo` and `theme` options. */
export function docsTheme() {
  return {
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO), href: '/docs', target: '_self' as const },
    theme: {
      title: 'Unfurl API · docs',
      css: [{ filename: 'unfurl.css', content: CSS }],
      favicon: [
        { filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: favicon() },
      ],
    },
  };
}
