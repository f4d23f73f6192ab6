// POST /v1/credits/purchase names its package `package_id` (the spec), and takes `packageId` too: that is
// how its own answer and the SDKs spell it, so a client that echoes the answer's name is not refused.
// Both given and different is a 400 naming the field; neither is a 400 naming `package_id`.
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { useRegisteredApp } from '../support/registered-app.js';

let t: TestApp;
let key: string;
useRegisteredApp((stage) => {
  ({ t, key } = stage);
});

const purchase = (payload: Record<string, unknown>) =>
  t.call(key, { method: 'POST', url: '/v1/credits/purchase', payload });

describe('POST /v1/credits/purchase: package_id or packageId', () => {
  it('takes package_id (the spec)', async () => {
    const res = await purchase({ package_id: 'credits_500' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ packageId: 'credits_500', credits: 500, priceUsd: '5.00' });
  });

  it('takes packageId, as the answer spells it', async () => {
    const res = await purchase({ packageId: 'credits_2000' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ packageId: 'credits_2000', credits: 2000 });
  });

  it('takes both when they agree', async () => {
    const res = await purchase({ package_id: 'credits_500', packageId: 'credits_500' });
    expect(res.statusCode).toBe(200);
    expect(res.json().packageId).toBe('credits_500');
  });

  it('refuses both when they differ: 400 naming packageId', async () => {
    const res = await purchase({ package_id: 'credits_500', packageId: 'credits_2000' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'invalid_request', details: 'packageId' });
    expect(res.json().message).toMatch(/'package_id'.*'packageId'/);
  });

  it('neither: 400 naming package_id', async () => {
    const res = await purchase({});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'invalid_request',
      message: "Missing required body field 'package_id'",
      details: 'package_id',
    });
  });

  it('an unknown package is still a 400, an empty id too, and other fields stay unknown', async () => {
    expect((await purchase({ packageId: 'credits_7' })).statusCode).toBe(400);
    const empty = await purchase({ packageId: '' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().details).toBe('packageId');
    const other = await purchase({ package: 'credits_500' });
    expect(other.statusCode).toBe(400);
    expect(other.json().message).toBe("Unknown body field 'package'");
  });

  it('/openapi.json documents both names', async () => {
    const doc = (await t.call(null, { method: 'GET', url: '/openapi.json' })).json();
    const body = doc.paths['/v1/credits/purchase'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties)).toEqual(['package_id', 'packageId']);
  });
});
