import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../domain/errors.ts';
import type { UrlGrant } from '../../domain/ports/url-signer.ts';
import { HmacUrlSigner } from './hmac-url-signer.ts';

const SECRET = 'test-secret-0123456789-abcdefghijklmnop';
const NOW = 1_700_000_000_000;
const EXPIRES_AT = 1_700_000_600;
const JOB_ID = 'job_01HZX4Y7K2M3N4P5Q6R7S8T9VW';

const putGrant: UrlGrant = {
  op: 'put',
  jobId: JOB_ID,
  name: 'upload.csv',
  expiresAt: EXPIRES_AT,
  maxBytes: 1024,
};
const getGrant: UrlGrant = { op: 'get', jobId: JOB_ID, name: 'contacts.csv.gz', expiresAt: EXPIRES_AT };

const signer = new HmacUrlSigner({ secret: SECRET, baseUrl: 'https://lm.example.org/' });

interface VerifyRequest {
  method: string;
  jobId: string;
  name: string;
  /** The request target as a server receives it: raw path and query. */
  url: string;
}

/** The request a server would see for `url`: path segments decoded, the raw target kept. */
function requestFor(url: string, method: string): VerifyRequest {
  const parsed = new URL(url);
  const match = /^\/files\/([^/]+)\/([^/]+)$/.exec(parsed.pathname);
  assert.ok(match, `unexpected path ${parsed.pathname}`);
  return {
    method,
    jobId: decodeURIComponent(match[1]!),
    name: decodeURIComponent(match[2]!),
    url: `${parsed.pathname}${parsed.search}`,
  };
}

const queryOf = (request: VerifyRequest): string => request.url.slice(request.url.indexOf('?') + 1);

/** The same request with query values replaced in place (an array repeats the name, undefined drops it). */
function withQuery(
  request: VerifyRequest,
  changes: Record<string, string | string[] | undefined>,
): VerifyRequest {
  const pairs = queryOf(request)
    .split('&')
    .map((pair) => pair.split('=') as [string, string]);
  const out: string[] = [];
  for (const [name, value] of pairs) {
    if (!(name in changes)) out.push(`${name}=${value}`);
    else for (const next of [changes[name]].flat()) if (next !== undefined) out.push(`${name}=${next}`);
  }
  for (const [name, value] of Object.entries(changes)) {
    if (!pairs.some(([known]) => known === name) && value !== undefined)
      for (const next of [value].flat()) out.push(`${name}=${next}`);
  }
  return { ...request, url: `${request.url.slice(0, request.url.indexOf('?'))}?${out.join('&')}` };
}

/** The same query on another path, as a client would send it to another job or file. */
function withPath(request: VerifyRequest, jobId: string, name: string): VerifyRequest {
  return {
    ...request,
    jobId,
    name,
    url: `/files/${encodeURIComponent(jobId)}/${encodeURIComponent(name)}?${queryOf(request)}`,
  };
}

async function assertUrlInvalid(fn: () => unknown, message: string): Promise<void> {
  await assert.rejects(
    async () => fn(),
    (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'URL_INVALID');
      assert.equal(error.message, message);
      return true;
    },
  );
}

const ALTERED = 'the URL signature does not match; the URL was altered';
const NOT_PRESIGNED = 'this URL is not a valid presigned URL';
const EXPIRED = 'this URL has expired; register the job again for a new one';

describe('HmacUrlSigner.sign', () => {
  it('builds <base>/files/<jobId>/<name>?op&exp&max&sig without a doubled slash', async () => {
    const url = await signer.sign(putGrant);
    assert.match(
      url,
      new RegExp(
        `^https://lm\\.example\\.org/files/${JOB_ID}/upload\\.csv\\?op=put&exp=${EXPIRES_AT}&max=1024&sig=[A-Za-z0-9_-]{43}$`,
      ),
    );
  });

  it('leaves max out of a get URL', async () => {
    const url = new URL(await signer.sign(getGrant));
    assert.equal(url.searchParams.get('op'), 'get');
    assert.equal(url.searchParams.has('max'), false);
  });

  it('is deterministic and differs per grant', async () => {
    assert.equal(await signer.sign(putGrant), await signer.sign({ ...putGrant }));
    assert.notEqual(
      await signer.sign(putGrant),
      await signer.sign({ ...putGrant, expiresAt: EXPIRES_AT + 1 }),
    );
  });

  it('percent-encodes the job id and the name', async () => {
    const url = await signer.sign({ ...getGrant, name: 'my list #1.csv' });
    assert.ok(url.includes('/files/job_01HZX4Y7K2M3N4P5Q6R7S8T9VW/my%20list%20%231.csv?'));
  });
});

describe('HmacUrlSigner.verify round trip', () => {
  it('returns the put grant for a PUT to a put URL', async () => {
    assert.deepEqual(signer.verify(requestFor(await signer.sign(putGrant), 'PUT'), NOW), putGrant);
  });

  it('returns the get grant (without maxBytes) for a GET to a get URL', async () => {
    assert.deepEqual(signer.verify(requestFor(await signer.sign(getGrant), 'GET'), NOW), getGrant);
  });

  it('allows HEAD on a get URL', async () => {
    assert.deepEqual(signer.verify(requestFor(await signer.sign(getGrant), 'HEAD'), NOW), getGrant);
  });

  it('accepts the method in any letter case', async () => {
    assert.deepEqual(signer.verify(requestFor(await signer.sign(putGrant), 'put'), NOW), putGrant);
  });

  it('round-trips names that need percent-encoding', async () => {
    const grant = { ...getGrant, name: 'my list #1.csv' };
    assert.deepEqual(signer.verify(requestFor(await signer.sign(grant), 'GET'), NOW), grant);
  });

  it('accepts a URL from a signer built with the same secret as a Buffer', async () => {
    const other = new HmacUrlSigner({ secret: Buffer.from(SECRET), baseUrl: 'http://elsewhere:8080' });
    assert.deepEqual(other.verify(requestFor(await signer.sign(putGrant), 'PUT'), NOW), putGrant);
  });

  it('is valid up to the last millisecond before expiry', async () => {
    assert.deepEqual(
      signer.verify(requestFor(await signer.sign(putGrant), 'PUT'), EXPIRES_AT * 1000 - 1),
      putGrant,
    );
  });
});

describe('HmacUrlSigner.verify tampering', async () => {
  const put = requestFor(await signer.sign(putGrant), 'PUT');
  const get = requestFor(await signer.sign(getGrant), 'GET');

  it('refuses a changed signature', async () => {
    const sig = new URLSearchParams(queryOf(put)).get('sig')!;
    const flipped = `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`;
    await assertUrlInvalid(() => signer.verify(withQuery(put, { sig: flipped }), NOW), ALTERED);
  });

  it('refuses a truncated signature', async () => {
    const sig = new URLSearchParams(queryOf(put)).get('sig')!;
    await assertUrlInvalid(() => signer.verify(withQuery(put, { sig: sig.slice(0, 20) }), NOW), ALTERED);
  });

  it('refuses a changed exp', async () => {
    await assertUrlInvalid(
      () => signer.verify(withQuery(put, { exp: String(EXPIRES_AT + 3600) }), NOW),
      ALTERED,
    );
  });

  it('refuses a changed max', async () => {
    await assertUrlInvalid(() => signer.verify(withQuery(put, { max: '1073741824' }), NOW), ALTERED);
  });

  it('refuses a removed max', async () => {
    await assertUrlInvalid(() => signer.verify(withQuery(put, { max: undefined }), NOW), ALTERED);
  });

  it('refuses a max added to a get URL', async () => {
    await assertUrlInvalid(() => signer.verify(withQuery(get, { max: '10' }), NOW), ALTERED);
  });

  it('refuses another jobId', async () => {
    await assertUrlInvalid(
      () => signer.verify(withPath(put, 'job_01HZX4Y7K2M3N4P5Q6R7S8T9VX', put.name), NOW),
      ALTERED,
    );
  });

  it('refuses another name', async () => {
    await assertUrlInvalid(() => signer.verify(withPath(get, get.jobId, 'other.csv.gz'), NOW), ALTERED);
  });

  it('refuses op switched from put to get', async () => {
    await assertUrlInvalid(
      () => signer.verify({ ...withQuery(put, { op: 'get' }), method: 'GET' }, NOW),
      ALTERED,
    );
  });

  it('refuses a URL signed with another secret', async () => {
    const other = new HmacUrlSigner({ secret: `${SECRET}-other`, baseUrl: 'https://lm.example.org' });
    await assertUrlInvalid(() => other.verify(put, NOW), ALTERED);
    await assertUrlInvalid(
      async () => signer.verify(requestFor(await other.sign(putGrant), 'PUT'), NOW),
      ALTERED,
    );
  });
});

describe('HmacUrlSigner.verify expiry and method', () => {
  it('refuses an expired URL', async () => {
    await assertUrlInvalid(
      async () => signer.verify(requestFor(await signer.sign(putGrant), 'PUT'), (EXPIRES_AT + 1) * 1000),
      EXPIRED,
    );
  });

  it('refuses GET on a put URL', async () => {
    await assertUrlInvalid(
      async () => signer.verify(requestFor(await signer.sign(putGrant), 'GET'), NOW),
      'this URL is for uploading with PUT, not for downloading',
    );
  });

  it('refuses HEAD on a put URL', async () => {
    await assertUrlInvalid(
      async () => signer.verify(requestFor(await signer.sign(putGrant), 'HEAD'), NOW),
      'this URL is for uploading with PUT, not for downloading',
    );
  });

  it('refuses PUT on a get URL', async () => {
    await assertUrlInvalid(
      async () => signer.verify(requestFor(await signer.sign(getGrant), 'PUT'), NOW),
      'this URL is for downloading with GET, not for uploading',
    );
  });
});

describe('HmacUrlSigner.verify malformed query', async () => {
  const put = requestFor(await signer.sign(putGrant), 'PUT');

  for (const name of ['op', 'exp', 'sig']) {
    it(`refuses a URL without ${name}`, async () => {
      await assertUrlInvalid(() => signer.verify(withQuery(put, { [name]: undefined }), NOW), NOT_PRESIGNED);
    });
  }

  it('refuses an empty query', async () => {
    await assertUrlInvalid(
      () => signer.verify({ ...put, url: put.url.slice(0, put.url.indexOf('?')) }, NOW),
      NOT_PRESIGNED,
    );
    await assertUrlInvalid(
      () => signer.verify({ ...put, url: `${put.url.slice(0, put.url.indexOf('?'))}?` }, NOW),
      NOT_PRESIGNED,
    );
  });

  it('refuses an unknown op', async () => {
    await assertUrlInvalid(() => signer.verify(withQuery(put, { op: 'delete' }), NOW), NOT_PRESIGNED);
  });

  it('refuses a non-numeric max', async () => {
    await assertUrlInvalid(() => signer.verify(withQuery(put, { max: '12a' }), NOW), NOT_PRESIGNED);
    await assertUrlInvalid(() => signer.verify(withQuery(put, { max: '-1' }), NOW), NOT_PRESIGNED);
  });

  it('refuses repeated parameters (arrays)', async () => {
    await assertUrlInvalid(
      () => signer.verify(withQuery(put, { sig: [new URLSearchParams(queryOf(put)).get('sig')!, 'x'] }), NOW),
      NOT_PRESIGNED,
    );
    await assertUrlInvalid(
      () => signer.verify(withQuery(put, { max: ['1024', '1024'] }), NOW),
      NOT_PRESIGNED,
    );
  });
});

describe('HmacUrlSigner.verify accepts only the canonical URL (one grant, one URL)', async () => {
  const put = requestFor(await signer.sign(putGrant), 'PUT');

  it('still verifies the URL exactly as signed, whatever the order of its parameters', () => {
    assert.deepEqual(signer.verify(put, NOW), putGrant);
    const sig = new URLSearchParams(queryOf(put)).get('sig')!;
    const reordered = {
      ...put,
      url: `${put.url.slice(0, put.url.indexOf('?'))}?sig=${sig}&max=1024&exp=${EXPIRES_AT}&op=put`,
    };
    assert.deepEqual(signer.verify(reordered, NOW), putGrant);
  });

  for (const [what, changes] of [
    ['a leading zero on exp', { exp: `0${EXPIRES_AT}` }],
    ['a decimal exp', { exp: `${EXPIRES_AT}.0` }],
    ['a hexadecimal exp', { exp: `0x${EXPIRES_AT.toString(16)}` }],
    ['an exponent exp', { exp: `${EXPIRES_AT / 100}e2` }],
    ['a percent-encoded exp', { exp: [...String(EXPIRES_AT)].map((d) => `%3${d}`).join('') }],
    ['a plus sign on exp', { exp: `+${EXPIRES_AT}` }],
    ['leading zeros on max', { max: '0001024' }],
    ['an unknown extra parameter', { foo: 'bar' }],
    ['an empty extra parameter', { '': '' }],
    ['a parameter without a value', { op: undefined, 'op&put': undefined }],
    ['a percent-encoded op', { op: '%70ut' }],
  ] as const) {
    it(`refuses ${what}`, async () => {
      await assertUrlInvalid(() => signer.verify(withQuery(put, changes), NOW), NOT_PRESIGNED);
    });
  }

  it('refuses a path spelled another way (encoded characters, a trailing slash)', async () => {
    const query = queryOf(put);
    for (const path of [
      `/files/${JOB_ID}/upload%2Ecsv`,
      `/files/${JOB_ID}/upload.csv/`,
      `/files/${JOB_ID.replace('job_', 'job%5F')}/upload.csv`,
    ]) {
      await assertUrlInvalid(() => signer.verify({ ...put, url: `${path}?${query}` }, NOW), NOT_PRESIGNED);
    }
  });
});
