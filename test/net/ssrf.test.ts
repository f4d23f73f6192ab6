// The SSRF matrix for SafeFetcher with private networks refused (the production setting): every spelling
// of a private address, names that resolve to one, and redirects from a public server to a private one.
//
// A loopback server plays both roles. Where it must be reached as "a public server", a CONNECT proxy
// stands in for the internet (every tunnel ends at the loopback server) and an injected resolver stands
// in for the world's DNS (`public.example` has a public address); the fetcher's own checks are the real
// ones. Where it plays the private target, it counts what it received: nothing, if the guard holds.
import type dns from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { isPublicAddress } from '../../src/net/ip-policy.js';
import { ProxyPool } from '../../src/net/proxies.js';
import { BlockedAddressError, type HostLookup, SafeFetcher } from '../../src/net/safe-fetch.js';
import { type Loopback, type LoopbackProxy, startConnectProxy, startServer } from '../support/loopback.js';

const PUBLIC_V4 = '93.184.215.14';

/** The outside world's DNS, as far as these tests are concerned. */
const worldDns: Record<string, dns.LookupAddress[]> = {
  'public.example': [{ address: PUBLIC_V4, family: 4 }],
  'loopback.example': [{ address: '127.0.0.1', family: 4 }],
  'internal.example': [{ address: '10.0.0.7', family: 4 }],
  'metadata.example': [{ address: '169.254.169.254', family: 4 }],
  'mapped.example': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'nat64.example': [{ address: '64:ff9b::a00:7', family: 6 }],
  // One good address is not enough: a name is refused if any of its addresses is private.
  'mixed.example': [
    { address: PUBLIC_V4, family: 4 },
    { address: '127.0.0.1', family: 4 },
  ],
};
const lookup: HostLookup = async (hostname) => {
  const found = worldDns[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};

let site: Loopback;
/** The paths the loopback server was asked for. */
const seen: string[] = [];
let internet: LoopbackProxy;
let strict: SafeFetcher;
let strictViaInternet: SafeFetcher;
let open: SafeFetcher;

beforeAll(async () => {
  site = await startServer((req, res) => {
    seen.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/redirect') {
      return res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`you reached ${url.pathname}`);
  });
  internet = await startConnectProxy(() => `127.0.0.1:${site.port}`);
  strict = new SafeFetcher({ allowPrivateNetwork: false, lookup, timeoutMs: 5000 });
  strictViaInternet = new SafeFetcher({
    allowPrivateNetwork: false,
    lookup,
    timeoutMs: 5000,
    proxies: new ProxyPool([internet.url]),
  });
  open = new SafeFetcher({ allowPrivateNetwork: true, lookup, timeoutMs: 5000 });
});

afterAll(async () => {
  await Promise.all([strict.close(), strictViaInternet.close(), open.close()]);
  await strictViaInternet.proxies?.close();
  await internet.close();
  await site.close();
});

/** The error a fetch fails with (or a failure of the test if it succeeds). */
async function refusal(fetcher: SafeFetcher, url: string, proxy = false): Promise<Error> {
  const res = await fetcher.fetch(url, { proxy }).then(
    (r) => r,
    (err: Error) => err,
  );
  if (!(res instanceof Error)) throw new Error(`${url} was fetched (${res.status}) but must be refused`);
  return res;
}

describe('SafeFetcher refuses private targets (allowPrivateNetwork: false)', () => {
  it('refuses every spelling of a private, loopback, link-local or CGNAT address, before connecting', async () => {
    const port = () => site.port;
    const urls = [
      `http://127.0.0.1:${port()}/`,
      `http://127.1:${port()}/`, // short form
      `http://2130706433:${port()}/`, // decimal
      `http://0x7f000001:${port()}/`, // hex
      `http://017700000001:${port()}/`, // octal
      `http://0x7f.1:${port()}/`, // mixed
      `http://0.0.0.0:${port()}/`,
      'http://10.0.0.1/',
      'http://172.16.0.1/',
      'http://172.31.255.254/',
      'http://192.168.1.1/',
      'http://169.254.169.254/latest/meta-data/', // cloud metadata
      'http://100.64.0.1/', // carrier-grade NAT
      'http://198.18.0.1/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
      `http://[::1]:${port()}/`,
      `http://[::]:${port()}/`,
      `http://[::ffff:127.0.0.1]:${port()}/`,
      `http://[::ffff:7f00:1]:${port()}/`,
      `http://[0:0:0:0:0:ffff:127.0.0.1]:${port()}/`,
      'http://[::ffff:169.254.169.254]/',
      'http://[64:ff9b::7f00:1]/', // NAT64 of 127.0.0.1
      'http://[2002:7f00:1::]/', // 6to4 of 127.0.0.1
      'http://[fe80::1]/',
      'http://[fc00::1]/',
      'http://[fd00:ec2::254]/', // AWS metadata over IPv6
      `http://localhost:${port()}/`,
      `http://LOCALHOST.:${port()}/`,
      `http://api.localhost:${port()}/`,
      'http://router.internal/',
    ];
    for (const url of urls) {
      const err = await refusal(strict, url);
      expect(err, url).toBeInstanceOf(AppError);
      expect((err as AppError).code, url).toBe('invalid_request');
      expect(err.message, url).toMatch(/private|reserved/);
    }
    expect(seen).toEqual([]);
  });

  it('refuses other schemes and credentials in URLs', async () => {
    for (const [url, reason] of [
      ['ftp://example.com/file.txt', /only http and https/],
      ['file:///etc/passwd', /only http and https/],
      ['gopher://127.0.0.1:70/', /only http and https/],
      ['data:text/plain,hello', /only http and https/],
      [`http://user:secret@127.0.0.1:${site.port}/`, /credentials/],
      ['https://user@example.com/', /credentials/],
      ['not a url', /not a URL/],
    ] as const) {
      const err = await refusal(strict, url);
      expect(err, url).toBeInstanceOf(AppError);
      expect((err as AppError).code, url).toBe('invalid_request');
      expect(err.message, url).toMatch(reason);
    }
    expect(seen).toEqual([]);
  });

  it('refuses a name whose addresses include a private one, at connect time', async () => {
    for (const name of [
      'loopback.example',
      'internal.example',
      'metadata.example',
      'mapped.example',
      'nat64.example',
      'mixed.example',
    ]) {
      const err = await refusal(strict, `http://${name}:${site.port}/secret`);
      expect(err, name).toBeInstanceOf(BlockedAddressError);
      expect(err.message, name).toBe(
        `Invalid parameter 'url': ${name} resolves to a non-public address (only public addresses are fetched; a server run for local tests can allow private ones with UNFURL_ALLOW_PRIVATE_NETWORK=true)`,
      );
      expect(err, name).toMatchObject({ code: 'invalid_request', details: 'url' });
    }
    expect(seen).toEqual([]);
  });

  it('reaches the same name when private networks are allowed (the refusal above is the policy, not DNS)', async () => {
    const res = await open.fetch(`http://loopback.example:${site.port}/hello`);
    expect(res.body.toString()).toBe('you reached /hello');
    expect(seen.splice(0)).toEqual(['/hello']);
  });

  it('checks the address of each connection itself, so a rebinding name cannot pass a check and then move', async () => {
    // Answers a public address once, loopback after: the classic check-then-connect race. There is no
    // separate check to race: the lookup made for the connection is the one that is checked.
    let calls = 0;
    const rebinding = new SafeFetcher({
      allowPrivateNetwork: false,
      timeoutMs: 1500,
      lookup: async () => [{ address: calls++ === 0 ? PUBLIC_V4 : '127.0.0.1', family: 4 }],
    });
    try {
      const first = await refusal(rebinding, `http://rebind.example:${site.port}/secret`);
      expect(first).not.toBeInstanceOf(BlockedAddressError); // went for the public address (unreachable here)
      expect(calls).toBe(1);
      const second = await refusal(rebinding, `http://rebind.example:${site.port}/secret`);
      expect(second).toBeInstanceOf(BlockedAddressError);
      expect(calls).toBe(2);
    } finally {
      await rebinding.close();
    }
    expect(seen).toEqual([]);
  });
});

describe('SafeFetcher re-checks every redirect hop (allowPrivateNetwork: false)', () => {
  const redirect = (to: string) => `http://public.example/redirect?to=${encodeURIComponent(to)}`;

  it('reaches a public server (through the stand-in internet)', async () => {
    const res = await strictViaInternet.fetch('http://public.example/page', { proxy: true });
    expect(res.body.toString()).toBe('you reached /page');
    expect(internet.connects.at(-1)).toBe('public.example:80');
    expect(seen.splice(0)).toEqual(['/page']);
  });

  it('follows a public server redirecting to another public URL', async () => {
    const res = await strictViaInternet.fetch(redirect('http://public.example/landing'), { proxy: true });
    expect(res.url).toBe('http://public.example/landing');
    expect(res.redirects).toHaveLength(1);
    seen.splice(0);
  });

  it('refuses the second hop when a public server redirects to a private address', async () => {
    const targets: Array<[string, new (...args: never[]) => Error]> = [
      [`http://127.0.0.1:${site.port}/secret`, AppError],
      [`http://2130706433:${site.port}/secret`, AppError],
      [`http://[::ffff:7f00:1]:${site.port}/secret`, AppError],
      [`http://localhost:${site.port}/secret`, AppError],
      ['http://169.254.169.254/latest/meta-data/', AppError],
      ['file:///etc/passwd', AppError],
      ['http://internal.example/secret', BlockedAddressError], // a name: refused by its address
      ['http://metadata.example/latest/meta-data/', BlockedAddressError],
    ];
    for (const [target, type] of targets) {
      const err = await refusal(strictViaInternet, redirect(target), true);
      expect(err, target).toBeInstanceOf(type);
      // The first hop was fetched; the second never left the process.
      expect(seen.splice(0), target).toEqual([`/redirect?to=${encodeURIComponent(target)}`]);
      // The streaming path (media downloads) walks redirects the same way.
      const streamed = await strictViaInternet.stream(redirect(target), { proxy: true }).then(
        () => new Error(`${target} was streamed but must be refused`),
        (e: Error) => e,
      );
      expect(streamed, target).toBeInstanceOf(type);
      expect(seen.splice(0), target).toEqual([`/redirect?to=${encodeURIComponent(target)}`]);
    }
    expect(new Set(internet.connects)).toEqual(new Set(['public.example:80']));
  });

  it('follows the same private redirect when private networks are allowed (the test would notice a leak)', async () => {
    const res = await open.fetch(
      `http://loopback.example:${site.port}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${site.port}/secret`)}`,
    );
    expect(res.body.toString()).toBe('you reached /secret');
    expect(seen.splice(0)).toHaveLength(2);
  });
});

describe('isPublicAddress', () => {
  it('refuses every non-public IPv4 range', () => {
    for (const a of [
      '0.0.0.0',
      '0.1.2.3',
      '10.0.0.1',
      '10.255.255.255',
      '100.64.0.1',
      '100.127.255.254',
      '127.0.0.1',
      '127.255.255.254',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.255',
      '192.0.0.170',
      '192.0.2.1',
      '192.88.99.1',
      '192.168.1.1',
      '198.18.0.1',
      '198.51.100.1',
      '203.0.113.1',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '255.255.255.255',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });

  it('refuses every non-public IPv6 range, and IPv6 forms that embed a private IPv4', () => {
    for (const a of [
      '::',
      '::1',
      '[::1]',
      '::ffff:127.0.0.1', // IPv4-mapped, dotted
      '::ffff:7f00:1', // IPv4-mapped, hex
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe', // 169.254.169.254
      '::127.0.0.1', // IPv4-compatible (deprecated)
      '::7f00:1',
      '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
      '64:ff9b::a00:1', // NAT64 of 10.0.0.1
      '64:ff9b::169.254.169.254',
      '64:ff9b:1::a00:1', // local-use NAT64
      '2002:7f00:1::', // 6to4 of 127.0.0.1
      '2002:a00:1::1', // 6to4 of 10.0.0.1
      '2002:c0a8:101::1', // 6to4 of 192.168.1.1
      '2001::1', // Teredo
      '2001:db8::1',
      '100::1',
      'fc00::1',
      'fd00:ec2::254',
      'fe80::1',
      'fe80::1%eth0',
      'febf::1',
      'fec0::1',
      'ff02::1',
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });

  // The IANA IPv6 special-purpose registry, one row per range: its first address, one inside, and the
  // forms that embed an IPv4 address (judged by that address, or refused outright).
  it.each([
    ['::', '::/128 unspecified'],
    ['::1', '::1/128 loopback'],
    ['0:0:0:0:0:0:0:1', '::1/128 loopback, uncompressed'],
    ['::8.8.8.8', '::/96 IPv4-compatible (deprecated), even of a public IPv4'],
    ['::ffff:0:0', '::ffff:0:0/96 IPv4-mapped 0.0.0.0'],
    ['0:0:0:0:0:ffff:7f00:1', '::ffff:0:0/96 mapped 127.0.0.1, uncompressed'],
    ['0::ffff:127.0.0.1', '::ffff:0:0/96 mapped 127.0.0.1, odd compression'],
    ['::ffff:c0a8:101', '::ffff:0:0/96 mapped 192.168.1.1'],
    ['::ffff:0:7f00:1', '::ffff:0:0:0/96 IPv4-translated (SIIT)'],
    ['64:ff9b::', '64:ff9b::/96 NAT64'],
    ['64:ff9b::808:808', '64:ff9b::/96 NAT64, even of a public IPv4'],
    ['64:ff9b:1:ffff::1', '64:ff9b:1::/48 local NAT64'],
    ['100::', '100::/64 discard'],
    ['100::ffff:ffff:ffff:ffff', '100::/64 discard, last'],
    ['2001::', '2001::/32 Teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::/32 Teredo, a real-looking one'],
    ['2001:2::1', '2001::/23 benchmarking (2001:2::/48)'],
    ['2001:10::1', '2001::/23 ORCHID'],
    ['2001:1ff:ffff::1', '2001::/23, last'],
    ['2001:db8::', '2001:db8::/32 documentation'],
    ['2001:db8:ffff::1', '2001:db8::/32 documentation'],
    ['2002::', '2002::/16 6to4'],
    ['2002:808:808::1', '2002::/16 6to4, even of a public IPv4'],
    ['3fff::', '3fff::/20 documentation'],
    ['3fff:fff::1', '3fff::/20 documentation, last'],
    ['5f00::1', '5f00::/16 SRv6 SIDs'],
    ['fc00::', 'fc00::/7 unique local'],
    ['fdff:ffff::1', 'fc00::/7 unique local, last'],
    ['fe80::', 'fe80::/10 link-local'],
    ['febf:ffff::1', 'fe80::/10 link-local, last'],
    ['fec0::1', 'fec0::/10 site-local'],
    ['feff::1', 'fec0::/10 site-local, last'],
    ['ff00::', 'ff00::/8 multicast'],
    ['ff0e::1', 'ff00::/8 multicast, global scope'],
    ['4000::1', 'outside 2000::/3: not allocated for unicast'],
    ['1fff:ffff::1', 'just below 2000::/3'],
  ])('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '2000::1', // first of 2000::/3
    '2001:200::1', // just past 2001::/23
    '2001:db7:ffff::1', // just below documentation
    '2001:db9::1', // just past documentation
    '2003::1', // just past 6to4
    '3ffe::1',
    '3fff:1000::1', // just past 3fff::/20
    '::ffff:1.1.1.1', // mapped public IPv4
    '0:0:0:0:0:ffff:808:808',
  ])('accepts global unicast %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('accepts public unicast addresses, including IPv4-mapped public ones', () => {
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      PUBLIC_V4,
      '172.32.0.1', // just outside 172.16/12
      '100.128.0.1', // just outside 100.64/10
      '2606:4700:4700::1111',
      '2001:4860:4860::8888',
      '::ffff:8.8.8.8',
      '::ffff:808:808',
    ]) {
      expect(isPublicAddress(a), a).toBe(true);
    }
  });

  it('is false for anything that is not an IP literal', () => {
    for (const a of ['', 'localhost', 'example.com', '127.0.0.1.nip.io', '1.2.3', '::g']) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });
});
