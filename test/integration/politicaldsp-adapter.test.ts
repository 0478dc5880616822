import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import { politicalDsp } from '../../src/adapters/platforms/file-drop-profiles.ts';
import { HttpFileDropAudiences, tokenSource } from '../../src/adapters/platforms/http-file-drop-audiences.ts';
import { isPlatformError, type PlatformError } from '../../src/domain/ports/platform-error.ts';
import { generatedStaged, sha256, stagedFromRows, stagedFromText } from '../support/audience-files.ts';
import { PoliticalDspServer } from '../support/politicaldsp-server.ts';

const TOKEN = 'pdsp_live_4f7a9c2e1b8d6035';
const profile = politicalDsp.profile;
let server: PoliticalDspServer;
let dsp: HttpFileDropAudiences;
/** Every PlatformError a test saw, to check none carries the token. */
const seen: PlatformError[] = [];

const adapter = (overrides: Partial<ConstructorParameters<typeof HttpFileDropAudiences>[0]> = {}) =>
  new HttpFileDropAudiences({
    platform: politicalDsp,
    baseUrl: server.url,
    token: tokenSource({ token: TOKEN }),
    timeoutMs: 2000,
    ...overrides,
  });

/** Runs `call`, expects a PlatformError, records it and returns it. */
async function platformError(call: () => Promise<unknown>): Promise<PlatformError> {
  try {
    await call();
  } catch (error) {
    assert.ok(isPlatformError(error), `expected a PlatformError, got ${String(error)}`);
    seen.push(error);
    return error;
  }
  assert.fail('the call succeeded');
}

const people = [
  { EMAIL: sha256('mary@example.com'), PHONE: sha256('16505551212'), FN: sha256('mary') },
  { EMAIL: sha256('john_smith@gmail.com'), PHONE: '', FN: sha256('john') },
];

before(async () => {
  server = new PoliticalDspServer({ token: TOKEN });
  await server.start();
});
after(() => server.stop());
beforeEach(() => {
  dsp = adapter();
});

describe('politicaldsp: create-segment → presigned PUT → awaiting external notification', () => {
  it('creates the segment, uploads the file with the platform’s columns, and waits for the e-mail', async () => {
    const created = await dsp.createAudience({ name: 'Happy Path 1', description: 'from job_1' });
    assert.match(created.audienceId, /^seg_/);
    assert.equal(created.upload.kind, 'presigned-put');
    const file = await stagedFromRows(profile, ['EMAIL', 'PHONE', 'FN'], people);
    assert.deepEqual(await dsp.upload(created.audienceId, file, created.upload), { rowsReceived: null });

    const segment = server.segments.get(created.audienceId)!;
    assert.deepEqual(segment.header, ['email_sha256', 'phone_sha256', 'first_name_sha256']);
    assert.equal(segment.rowCount, 2);
    assert.deepEqual(segment.rows[1], [sha256('john_smith@gmail.com'), '', sha256('john')]);
    assert.equal(segment.description, 'from job_1');
    // No status endpoint: the adapter says so without asking.
    const calls = server.requests.length;
    assert.deepEqual(await dsp.status(created.audienceId), { state: 'awaiting_external_notification' });
    assert.equal(server.requests.length, calls);
    // The platform's only word is its e-mail.
    await waitFor(() => server.emails.some((e) => e.segmentId === created.audienceId));
    assert.equal(segment.state, 'ready');
    // The bearer token went to the API, never to storage.
    const put = server.requests.find((r) => r.method === 'PUT')!;
    assert.ok(!put.headerNames.includes('authorization'));
    assert.ok(
      server.requests
        .filter((r) => r.path.startsWith('/v1/'))
        .every((r) => r.headerNames.includes('authorization')),
    );
  });

  it('asks for a fresh URL when none is at hand, and replaces an expired or used one once', async () => {
    const created = await dsp.createAudience({ name: 'Fresh URL' });
    const file = await stagedFromRows(profile, ['EMAIL'], people);
    // No target (a retried job): a fresh URL is requested first.
    await dsp.upload(created.audienceId, file);
    // The create answer's URL was never used; now it is spent by a second use of the same target.
    await dsp.upload(created.audienceId, file, created.upload);
    const before = server.requests.length;
    await dsp.upload(created.audienceId, file, created.upload);
    const after = server.requests
      .slice(before)
      .map((r) => `${r.method} ${r.path.split('/').slice(0, 2).join('/')}`);
    assert.deepEqual(
      after,
      ['PUT /upload', 'POST /v1', 'PUT /upload'],
      'used URL refused (403), fresh one fetched',
    );

    // An expired URL the adapter believed valid (its clock behind): refused by storage, replaced.
    server.setUrlTtl(30);
    const late = adapter({ now: () => Date.now() - 10 * 60_000 });
    const second = await late.createAudience({ name: 'Expired URL' });
    await sleep(60);
    server.setUrlTtl(15 * 60_000);
    await late.upload(second.audienceId, file, second.upload);
    assert.equal(server.segments.get(second.audienceId)!.rowCount, 2);
  });

  it('a target close to expiry is not used at all', async () => {
    server.setUrlTtl(30_000);
    const created = await dsp.createAudience({ name: 'Near expiry' });
    server.setUrlTtl(15 * 60_000);
    const before = server.requests.length;
    await dsp.upload(created.audienceId, await stagedFromRows(profile, ['EMAIL'], people), created.upload);
    assert.deepEqual(
      server.requests.slice(before).map((r) => r.method),
      ['POST', 'PUT'],
      'a fresh URL first: 30 s is inside the 60 s margin',
    );
  });

  it('finds a segment by its name and description, and says whether it holds a file', async () => {
    const request = { name: 'Findable 1', description: 'listmatch job_find' };
    assert.equal(await dsp.findAudience(request), null);
    const created = await dsp.createAudience(request);
    assert.deepEqual(await dsp.findAudience(request), { audienceId: created.audienceId, hasFile: false });
    assert.equal(await dsp.findAudience({ ...request, description: 'listmatch job_other' }), null);
    await dsp.upload(created.audienceId, await stagedFromRows(profile, ['EMAIL'], people), created.upload);
    assert.deepEqual(await dsp.findAudience(request), { audienceId: created.audienceId, hasFile: true });
  });

  it('a mixed file is stored, then fails in processing with the platform’s reason by e-mail', async () => {
    const created = await dsp.createAudience({ name: 'Mixed file' });
    // Bypasses the staging check on purpose: this is what the platform does with such a file.
    const file = stagedFromText(
      `email_sha256\n${sha256('a@example.com')}\nplain@example.com\n`,
      ['EMAIL'],
      2,
    );
    await dsp.upload(created.audienceId, file, created.upload);
    await waitFor(() => server.emails.some((e) => e.segmentId === created.audienceId));
    const email = server.emails.find((e) => e.segmentId === created.audienceId)!;
    assert.match(email.reason!, /Row 2: column email_sha256 mixes hashed and plain values/);
    assert.equal(server.segments.get(created.audienceId)!.state, 'failed');
  });

  it('a profile with a wrong column name is caught by the platform, not agreed with', async () => {
    const wrong = adapter({
      platform: {
        ...politicalDsp,
        profile: { ...profile, columns: { ...profile.columns, EMAIL: 'email_hash' } },
      },
    });
    const created = await wrong.createAudience({ name: 'Wrong column' });
    await wrong.upload(created.audienceId, await stagedFromRows(wrong.profile, ['EMAIL'], people));
    await waitFor(() => server.segments.get(created.audienceId)!.state === 'failed');
    assert.match(server.segments.get(created.audienceId)!.failureReason!, /Unknown column "email_hash"/);
  });

  it('streams a 200,000-row file without holding it whole', async () => {
    let maxAhead = 0;
    const file = await generatedStaged(
      profile,
      ['EMAIL', 'PHONE'],
      200_000,
      (i) => ({ EMAIL: sha256(`person${i}@example.com`), PHONE: sha256(`1650555${i}`) }),
      (produced) => {
        maxAhead = Math.max(maxAhead, produced - server.receivedBytes);
      },
    );
    assert.ok(file.bytes > 25_000_000, `${file.bytes} bytes`);
    const created = await dsp.createAudience({ name: 'Large' });
    await dsp.upload(created.audienceId, file, created.upload);
    const segment = server.segments.get(created.audienceId)!;
    assert.equal(segment.rowCount, 200_000);
    assert.equal(segment.bytes, file.bytes);
    // Only socket and stream buffers (a few MB on loopback) lie between producing and receiving;
    // an adapter that buffered the file would run all of it ahead before the first byte went out.
    assert.ok(
      maxAhead < file.bytes / 2,
      `produced ran ${maxAhead} of ${file.bytes} bytes ahead of the server`,
    );
  });
});

describe('politicaldsp: errors and their classification', () => {
  it('429 is throttle with the platform’s Retry-After', async () => {
    server.inject({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: { message: 'Slow down' } },
    });
    const error = await platformError(() => dsp.createAudience({ name: 'Throttled' }));
    assert.equal(error.kind, 'throttle');
    assert.equal(error.waitMs, 7000);
    assert.match(error.message, /rate limiting us \(HTTP 429\): Slow down/);
  });

  it('5xx is retry, then the call works', async () => {
    server.inject({ status: 503, body: '<html>upstream down</html>', times: 1 });
    const error = await platformError(() => dsp.createAudience({ name: 'Five hundred' }));
    assert.equal(error.kind, 'retry');
    assert.equal(error.httpStatus, 503);
    assert.equal(error.waitMs, undefined);
    server.inject({
      status: 503,
      headers: { 'retry-after': '5' },
      body: { error: { message: 'Maintenance' } },
    });
    const maintenance = await platformError(() => dsp.createAudience({ name: 'Five hundred' }));
    assert.equal(maintenance.kind, 'retry');
    assert.equal(maintenance.waitMs, 5000, 'a 503 that says how long is heeded too');
    await dsp.createAudience({ name: 'Five hundred' });
  });

  it('a 5xx from storage during the PUT is retry', async () => {
    const created = await dsp.createAudience({ name: 'Storage 500' });
    server.inject({
      status: 500,
      body: '<Error><Code>InternalError</Code><Message>We encountered an internal error</Message></Error>',
      match: (method) => method === 'PUT',
    });
    const error = await platformError(async () =>
      dsp.upload(created.audienceId, await stagedFromRows(profile, ['EMAIL'], people), created.upload),
    );
    assert.equal(error.kind, 'retry');
    assert.match(error.message, /We encountered an internal error/);
  });

  it('a refused token (401) is fatal with a client-readable reason, and the token appears nowhere', async () => {
    const bad = adapter({ token: tokenSource({ token: 'pdsp_live_revoked_0000' }) });
    const error = await platformError(() => bad.createAudience({ name: 'Bad token' }));
    assert.equal(error.kind, 'fatal');
    assert.equal(error.httpStatus, 401);
    assert.match(
      error.message,
      /refused the operator's credentials \(HTTP 401\): Invalid or expired access token/,
    );
    assert.doesNotMatch(error.message, /pdsp_live/);
  });

  it('the platform’s rejection reason (409 duplicate name) is fatal and passed on', async () => {
    await dsp.createAudience({ name: 'Taken' });
    const error = await platformError(() => dsp.createAudience({ name: 'Taken' }));
    assert.equal(error.kind, 'fatal');
    assert.equal(
      error.message,
      'the political DSP refused to create the audience (HTTP 409): A segment with this name already exists',
    );
  });

  it('a name the platform cannot take is fatal before any call', async () => {
    const before = server.requests.length;
    const error = await platformError(() => dsp.createAudience({ name: 'x'.repeat(129) }));
    assert.equal(error.kind, 'fatal');
    assert.equal(server.requests.length, before);
  });

  it('a file over the storage limit is fatal (EntityTooLarge) and not sent whole', async () => {
    const small = new PoliticalDspServer({ token: TOKEN, maxFileBytes: 1000 });
    await small.start();
    try {
      const limited = new HttpFileDropAudiences({
        platform: politicalDsp,
        baseUrl: small.url,
        token: tokenSource({ token: TOKEN }),
        timeoutMs: 2000,
      });
      const created = await limited.createAudience({ name: 'Too big' });
      const file = await generatedStaged(profile, ['EMAIL'], 50, (i) => ({ EMAIL: sha256(String(i)) }));
      const error = await platformError(() => limited.upload(created.audienceId, file, created.upload));
      assert.equal(error.kind, 'fatal');
      assert.match(error.message, /HTTP 400\): Your proposed upload exceeds the maximum allowed size/);
      assert.equal(small.segments.get(created.audienceId)!.state, 'awaiting_file');
    } finally {
      await small.stop();
    }
  });

  it('the platform echoing the token, a URL or a digest in its message gets them scrubbed', async () => {
    server.inject({
      status: 400,
      body: {
        error: {
          message: `token ${TOKEN} cannot upload ${sha256('a')} to http://x/upload/k?X-Signature=s for a@b.com`,
        },
      },
    });
    const error = await platformError(() => dsp.createAudience({ name: 'Echo' }));
    assert.equal(
      error.message,
      'the political DSP refused to create the audience (HTTP 400): token [redacted] cannot upload [digest] to [url] for [e-mail]',
    );
  });

  it('a platform that is down is retry; once back, the same call works', async () => {
    await server.downFor(400);
    const error = await platformError(() => dsp.createAudience({ name: 'Down' }));
    assert.equal(error.kind, 'retry');
    assert.match(
      error.message,
      /could not be reached to create the audience: connection failed \((ECONNREFUSED|ECONNRESET)\)/,
    );
    await waitFor(async () => {
      try {
        await dsp.createAudience({ name: 'Down' });
        return true;
      } catch {
        return false;
      }
    });
  });

  it('no answer within the timeout is retry', async () => {
    server.inject({ status: 'hang' });
    const quick = adapter({ timeoutMs: 200 });
    const error = await platformError(() => quick.createAudience({ name: 'Hang' }));
    assert.equal(error.kind, 'retry');
    assert.match(error.message, /no answer within 200 ms/);
  });

  it('an aborted call (worker shutdown) is retry', async () => {
    server.inject({ status: 'hang' });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await platformError(() =>
      dsp.createAudience({ name: 'Abort' }, { signal: controller.signal }),
    );
    assert.equal(error.kind, 'retry');
  });

  it('a token file is read at each call (rotation without restart); an unreadable one is fatal', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'listmatch-pdsp-'));
    try {
      const file = join(dir, 'token');
      await writeFile(file, 'pdsp_live_old\n');
      const fromFile = adapter({ token: tokenSource({ file }) });
      assert.equal((await platformError(() => fromFile.createAudience({ name: 'Rotate' }))).httpStatus, 401);
      await writeFile(file, `${TOKEN}\n`);
      await fromFile.createAudience({ name: 'Rotate' });
      const missing = adapter({ token: tokenSource({ file: join(dir, 'absent') }) });
      const error = await platformError(() => missing.createAudience({ name: 'No file' }));
      assert.equal(error.kind, 'fatal');
      assert.doesNotMatch(error.message, /absent|listmatch-pdsp/, 'no path in a client-readable message');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a staged file that cannot be read is retry, and storage keeps nothing of it', async () => {
    const created = await dsp.createAudience({ name: 'Broken source' });
    const file = {
      keys: ['EMAIL'] as const,
      rows: 1,
      bytes: 1000,
      open: async () =>
        Readable.from(
          (async function* () {
            yield Buffer.from('email_sha256\n');
            throw new Error('disk gone');
          })(),
        ),
    };
    const error = await platformError(() => dsp.upload(created.audienceId, file, created.upload));
    assert.equal(error.kind, 'retry');
    assert.equal(error.message, 'the staged audience file could not be read');
    assert.equal(server.segments.get(created.audienceId)!.state, 'awaiting_file');
  });

  it('no error seen in this file carries the token', () => {
    assert.ok(seen.length >= 10);
    for (const error of seen) {
      const everything = `${error.message} ${String(error.cause)} ${JSON.stringify(error)} ${error.stack}`;
      assert.ok(!everything.includes(TOKEN), error.message);
    }
  });
});

describe('the local politicaldsp itself', () => {
  it('refuses a second credential, a missing length, a tampered signature', async () => {
    const { upload } = await dsp.createAudience({ name: 'Storage rules' });
    const url = (upload as { url: string }).url;
    const both = await fetch(url, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/csv' },
      body: 'email_sha256\n',
    });
    assert.equal(both.status, 400);
    assert.match(await both.text(), /Only one auth mechanism allowed/);
    const chunked = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'text/csv' },
      body: Readable.toWeb(Readable.from([Buffer.from('email_sha256\n')])) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 411);
    const tampered = await fetch(
      url.replace(/X-Signature=(.)/, (_, c: string) => `X-Signature=${c === '0' ? '1' : '0'}`),
      {
        method: 'PUT',
        headers: { 'content-type': 'text/csv' },
        body: 'email_sha256\n',
      },
    );
    assert.equal(tampered.status, 403);
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail('condition not met in time');
    await sleep(20);
  }
}
