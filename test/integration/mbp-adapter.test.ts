import assert from 'node:assert/strict';
import type { Readable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import { mediaBuyingPlatform } from '../../src/adapters/platforms/file-drop-profiles.ts';
import { HttpFileDropAudiences, tokenSource } from '../../src/adapters/platforms/http-file-drop-audiences.ts';
import { isPlatformError, type PlatformError } from '../../src/domain/ports/platform-error.ts';
import { generatedStaged, sha256, stagedFromRows, stagedFromText } from '../support/audience-files.ts';
import { MbpServer } from '../support/mbp-server.ts';

const TOKEN = 'mbp-key-93b1d7e04c2a';
const profile = mediaBuyingPlatform.profile;
let server: MbpServer;
let mbp: HttpFileDropAudiences;
const seen: PlatformError[] = [];

const adapter = (overrides: Partial<ConstructorParameters<typeof HttpFileDropAudiences>[0]> = {}) =>
  new HttpFileDropAudiences({
    platform: mediaBuyingPlatform,
    baseUrl: `${server.url}/`,
    token: tokenSource({ token: TOKEN }),
    timeoutMs: 2000,
    ...overrides,
  });

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

const matches = [
  { VOTERBASE_ID: 'OH-000123', EMAIL: 'mary@example.com', ZIP: '43004' },
  { VOTERBASE_ID: 'OH-000456', EMAIL: '', ZIP: '02134' },
];

before(async () => {
  server = new MbpServer({ token: TOKEN, pollsUntilReady: 2, matchRate: 0.62 });
  await server.start();
});
after(() => server.stop());
beforeEach(() => {
  mbp = adapter();
});

describe('media buying platform: create → multipart with column map → status polling', () => {
  it('creates, uploads with the column map, and polls processing → ready with the match rate', async () => {
    const created = await mbp.createAudience({ name: 'digital_audience_1', description: 'job_1 matches' });
    assert.deepEqual(created.upload, { kind: 'multipart' });
    assert.match(created.audienceId, /^\d+$/, 'the platform’s numeric id, as a string');
    const file = await stagedFromRows(profile, ['VOTERBASE_ID', 'EMAIL', 'ZIP'], matches);
    assert.deepEqual(await mbp.upload(created.audienceId, file, created.upload), { rowsReceived: 2 });

    const audience = server.audiences.get(Number(created.audienceId))!;
    assert.deepEqual(audience.columnMap, { voterbase_id: 'VOTER_ID', email: 'EMAIL', zip: 'POSTAL_CODE' });
    assert.deepEqual(audience.header, ['voterbase_id', 'email', 'zip']);
    assert.deepEqual(audience.rows, [
      ['OH-000123', 'mary@example.com', '43004'],
      ['OH-000456', '', '02134'],
    ]);
    assert.deepEqual(await mbp.status(created.audienceId), { state: 'processing' });
    assert.deepEqual(await mbp.status(created.audienceId), { state: 'ready', matchRate: 0.62 });
    assert.ok(server.requests.every((r) => r.headerNames.includes('x-api-key')));
  });

  it('has no search: findAudience answers null without calling the platform', async () => {
    const calls = server.requests.length;
    assert.equal(await mbp.findAudience({ name: 'any', description: 'listmatch job_x' }), null);
    assert.equal(server.requests.length, calls);
  });

  it('a failure in the platform’s processing comes back with its reason', async () => {
    const created = await mbp.createAudience({ name: 'digital_audience_2' });
    server.failNextProcessing('Audience is below the minimum size of 1,000 matched people');
    await mbp.upload(created.audienceId, await stagedFromRows(profile, ['VOTERBASE_ID'], matches));
    assert.deepEqual(await mbp.status(created.audienceId), {
      state: 'failed',
      reason: 'Audience is below the minimum size of 1,000 matched people',
    });
  });

  it('streams a 200,000-row file without holding it whole', async () => {
    let maxAhead = 0;
    const file = await generatedStaged(
      profile,
      ['VOTERBASE_ID', 'EMAIL', 'PHONE', 'FN', 'LN', 'CT', 'ST', 'ZIP'],
      200_000,
      (i) => ({
        VOTERBASE_ID: `OH-${String(i).padStart(12, '0')}`,
        EMAIL: `person.number.${i}@mail.example.com`,
        PHONE: `+1650${String(i).padStart(7, '0')}`,
        FN: 'Maryanne Elizabeth',
        LN: `Smithson-Worthington-${i}`,
        CT: 'Upper Arlington',
        ST: 'OH',
        ZIP: '43221',
      }),
      (produced) => {
        maxAhead = Math.max(maxAhead, produced - server.receivedBytes);
      },
    );
    assert.ok(file.bytes > 25_000_000, `${file.bytes} bytes`);
    const created = await mbp.createAudience({ name: 'digital_audience_large' });
    assert.deepEqual(await mbp.upload(created.audienceId, file), { rowsReceived: 200_000 });
    // Only socket and stream buffers (several MB on loopback) lie between producing and receiving;
    // a buffering adapter would run the whole file ahead before the first byte went out.
    assert.ok(
      maxAhead < file.bytes / 2,
      `produced ran ${maxAhead} of ${file.bytes} bytes ahead of the server`,
    );
  });

  it('a profile whose column map disagrees with the platform is refused, not agreed with', async () => {
    const wrong = adapter({
      platform: {
        ...mediaBuyingPlatform,
        wire: { ...mediaBuyingPlatform.wire, fieldTypes: { VOTERBASE_ID: 'VOTERBASE_ID' } },
      } as typeof mediaBuyingPlatform,
    });
    const created = await wrong.createAudience({ name: 'digital_audience_wrong_map' });
    const error = await platformError(async () =>
      wrong.upload(created.audienceId, await stagedFromRows(profile, ['VOTERBASE_ID'], matches)),
    );
    assert.equal(error.kind, 'fatal');
    assert.match(error.message, /HTTP 422\): columnMap must map "voterbase_id" to VOTER_ID/);
  });
});

describe('media buying platform: bad files and errors', () => {
  it('a mixed file (a digest in a plaintext platform’s file) is fatal with the platform’s reason', async () => {
    const created = await mbp.createAudience({ name: 'digital_audience_mixed' });
    const file = stagedFromText(
      `voterbase_id,email\nOH-1,a@example.com\nOH-2,${sha256('b@example.com')}\n`,
      ['VOTERBASE_ID', 'EMAIL'],
      2,
    );
    const error = await platformError(() => mbp.upload(created.audienceId, file));
    assert.equal(error.kind, 'fatal');
    assert.equal(
      error.message,
      'the media buying platform refused to upload the audience file (HTTP 422): Row 2: column email holds a hashed value; this platform takes plaintext only',
    );
  });

  it('a header-only file and a headerless file are fatal with the platform’s reason', async () => {
    const created = await mbp.createAudience({ name: 'digital_audience_empty' });
    const empty = await platformError(() =>
      mbp.upload(created.audienceId, stagedFromText('voterbase_id\n', ['VOTERBASE_ID'], 0)),
    );
    assert.match(empty.message, /The file has no rows/);
    const headerless = await platformError(() =>
      mbp.upload(created.audienceId, stagedFromText('OH-1\nOH-2\n', ['VOTERBASE_ID'], 2)),
    );
    assert.match(headerless.message, /Unknown column "OH-1" \(is the header missing\?\)/);
  });

  it('a file over the size limit is refused (413, fatal) before it is read', async () => {
    const small = new MbpServer({ token: TOKEN, maxFileBytes: 2000 });
    await small.start();
    try {
      const limited = new HttpFileDropAudiences({
        platform: mediaBuyingPlatform,
        baseUrl: small.url,
        token: tokenSource({ token: TOKEN }),
        timeoutMs: 2000,
      });
      const created = await limited.createAudience({ name: 'digital_audience_big' });
      const generated = await generatedStaged(profile, ['VOTERBASE_ID'], 5000, (i) => ({
        VOTERBASE_ID: `OH-${i}`,
      }));
      const opened: Readable[] = [];
      const file = { ...generated, open: async () => opened[opened.push(await generated.open()) - 1]! };
      const error = await platformError(() => limited.upload(created.audienceId, file));
      assert.equal(error.kind, 'fatal');
      assert.equal(error.httpStatus, 413);
      assert.ok(small.receivedBytes < file.bytes);
      assert.ok(
        opened.length === 1 && opened[0]!.destroyed,
        'the staged file is closed after the early answer',
      );
    } finally {
      await small.stop();
    }
  });

  it('an upload repeated after a lost answer (409 while processing) counts as done; a failed one does not', async () => {
    const created = await mbp.createAudience({ name: 'digital_audience_twice' });
    const file = await stagedFromRows(profile, ['VOTERBASE_ID'], matches);
    await mbp.upload(created.audienceId, file);
    assert.deepEqual(await mbp.upload(created.audienceId, file), { rowsReceived: null });
    assert.equal(server.audiences.get(Number(created.audienceId))!.rowCount, 2);

    const failing = await mbp.createAudience({ name: 'digital_audience_twice_failed' });
    server.failNextProcessing('Too few rows');
    await mbp.upload(failing.audienceId, file);
    // A failed audience takes a new file (no conflict): the platform decides, not the adapter.
    assert.deepEqual(await mbp.upload(failing.audienceId, file), { rowsReceived: 2 });
  });

  it('a conflict whose audience is not processing stays a fatal error with the platform’s reason', async () => {
    server.inject({
      status: 409,
      body: { errors: [{ message: 'Audience is archived' }] },
      match: (method, path) => method === 'POST' && path.endsWith('/files'),
    });
    const created = await mbp.createAudience({ name: 'digital_audience_archived' });
    const error = await platformError(async () =>
      mbp.upload(created.audienceId, await stagedFromRows(profile, ['VOTERBASE_ID'], matches)),
    );
    assert.equal(error.kind, 'fatal');
    assert.match(error.message, /HTTP 409\): Audience is archived/);
  });

  it('429 is throttle with Retry-After; 5xx and a hang are retry', async () => {
    server.inject({
      status: 429,
      headers: { 'retry-after': '2' },
      body: { errors: [{ message: 'Rate limit exceeded' }] },
    });
    const throttled = await platformError(() => mbp.createAudience({ name: 'digital_audience_rl' }));
    assert.equal(throttled.kind, 'throttle');
    assert.equal(throttled.waitMs, 2000);
    server.inject({ status: 502, body: 'Bad Gateway' });
    assert.equal((await platformError(() => mbp.status('4100'))).kind, 'retry');
    server.inject({ status: 'hang' });
    const quick = adapter({ timeoutMs: 150 });
    assert.equal((await platformError(() => quick.status('4100'))).kind, 'retry');
  });

  it('a 5xx during the upload is retry, and the upload then goes through', async () => {
    const created = await mbp.createAudience({ name: 'digital_audience_5xx' });
    const file = await stagedFromRows(profile, ['VOTERBASE_ID'], matches);
    server.inject({
      status: 500,
      body: { errors: [{ message: 'Internal error' }] },
      match: (m) => m === 'POST',
    });
    assert.equal((await platformError(() => mbp.upload(created.audienceId, file))).kind, 'retry');
    assert.deepEqual(await mbp.upload(created.audienceId, file), { rowsReceived: 2 });
  });

  it('a bad API key is fatal with a client-readable reason and without the key', async () => {
    const bad = adapter({ token: tokenSource({ token: 'mbp-key-wrong' }) });
    const error = await platformError(() => bad.createAudience({ name: 'digital_audience_bad_key' }));
    assert.equal(error.kind, 'fatal');
    assert.equal(
      error.message,
      "the media buying platform refused the operator's credentials (HTTP 401): API key is missing or invalid",
    );
  });

  it('the platform’s own rejection (name taken, 422) is fatal and passed on', async () => {
    await mbp.createAudience({ name: 'digital_audience_dup' });
    const error = await platformError(() => mbp.createAudience({ name: 'digital_audience_dup' }));
    assert.equal(error.kind, 'fatal');
    assert.match(error.message, /HTTP 422\): Audience name has already been taken/);
  });

  it('an unknown audience is fatal (404)', async () => {
    const error = await platformError(() => mbp.status('999999'));
    assert.equal(error.kind, 'fatal');
    assert.equal(error.httpStatus, 404);
  });

  it('down for a while: retry until it is back', async () => {
    await server.downFor(300);
    const error = await platformError(() => mbp.status('4100'));
    assert.equal(error.kind, 'retry');
    const deadline = Date.now() + 5000;
    for (;;) {
      try {
        await mbp.status('4100');
        break;
      } catch (e) {
        assert.ok(isPlatformError(e) && e.kind === 'retry');
        assert.ok(Date.now() < deadline, 'the platform did not come back');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  });

  it('no error seen in this file carries the key', () => {
    assert.ok(seen.length >= 10);
    for (const error of seen) {
      const everything = `${error.message} ${String(error.cause)} ${JSON.stringify(error)} ${error.stack}`;
      assert.ok(!everything.includes(TOKEN), error.message);
    }
  });
});
