import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { MetaSocialAudiences } from '../../src/adapters/platforms/meta-social-audiences.ts';
import { isPlatformError, type PlatformError } from '../../src/domain/ports/platform-error.ts';
import {
  customerFileSourceOf,
  type SocialSchemaKey,
  uploadSessionId,
} from '../../src/domain/ports/social-audiences.ts';
import {
  type FakeMetaGraph,
  type FakeMetaGraphOptions,
  serverErrorFault,
  startFakeMetaGraph,
  termsFault,
  throttleFault,
  tokenFault,
} from '../support/fake-meta-graph.ts';

const ACCOUNT = '1111111111';
const CLIENT_ACCOUNT = '2222222222';
const SCHEMA: SocialSchemaKey[] = ['EMAIL', 'FN', 'LN', 'ZIP'];
const sha = (value: string) => createHash('sha256').update(value).digest('hex');

/** `count` hashed rows (person `from`…), with an unknown last name ("") on every third row. */
function rows(count: number, from = 0): string[][] {
  return Array.from({ length: count }, (_, i) => {
    const n = from + i;
    return [
      sha(`person${n}@example.com`),
      sha(`first${n}`),
      n % 3 === 0 ? '' : sha(`last${n}`),
      sha('20001'),
    ];
  });
}

let graph: FakeMetaGraph;
/** Sleeps the adapter asked for (the fake sleep returns at once). */
let sleeps: number[];
let clock = 1_700_000_000_000;

async function startGraph(options: FakeMetaGraphOptions = {}) {
  graph = await startFakeMetaGraph({ adAccounts: [ACCOUNT, CLIENT_ACCOUNT], ...options });
}

function adapter(
  overrides: Partial<ConstructorParameters<typeof MetaSocialAudiences>[0]> = {},
): MetaSocialAudiences {
  return new MetaSocialAudiences({
    graphUrl: graph.url,
    apiVersion: graph.version,
    adAccountId: `act_${ACCOUNT}`,
    accessToken: () => graph.token,
    timeoutMs: 2_000,
    retryDelaysMs: [10, 20],
    maxInlineWaitMs: 5_000,
    // A virtual clock: sleeping advances it at once, so waits are exact and tests stay fast.
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    ...overrides,
  });
}

/** The PlatformError `promise` rejects with; fails when it resolves or rejects with anything else. */
async function platformError(promise: Promise<unknown>): Promise<PlatformError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isPlatformError(error), `expected a PlatformError, got ${String(error)}`);
    assertNoToken(error);
    return error;
  }
  assert.fail('expected the call to fail');
}

/** Neither the message nor any cause of an error carries the access token. */
function assertNoToken(error: unknown) {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    assert.ok(!current.message.includes(graph.token), 'the token leaked into an error message');
    assert.ok(!(current.stack ?? '').includes(graph.token), 'the token leaked into a stack');
    current = current.cause;
  }
}

async function newAudience(social = adapter(), pattern: 1 | 2 = 1) {
  const { audienceId } = await social.createAudience({
    adAccountId: ACCOUNT,
    name: 'Spring_Voters',
    description: 'listmatch job job_test',
    customerFileSource: customerFileSourceOf(pattern),
  });
  return audienceId;
}

const session = (audienceId: string, batchSeq: number, lastBatch = false, jobId = 'job_test') => ({
  sessionId: uploadSessionId(jobId, audienceId),
  batchSeq,
  lastBatch,
  estimatedTotal: 25,
});

beforeEach(async () => {
  sleeps = [];
  await startGraph();
});
afterEach(async () => {
  await graph.close();
});

describe('social adapter against the local Graph server: happy path', () => {
  test('create → batches in one session → share → readiness', async () => {
    const social = adapter();
    assert.equal(social.operatorAdAccountId, ACCOUNT);
    const audienceId = await newAudience(social);
    const audience = graph.audiences.get(audienceId)!;
    assert.equal(audience.customerFileSource, 'PARTNER_PROVIDED_ONLY');
    assert.equal(audience.adAccountId, ACCOUNT);
    assert.equal((await social.getStatus(audienceId)).readiness, 'processing');

    const all = rows(25);
    let seq = 1;
    for (let start = 0; start < all.length; start += 10) {
      const batch = all.slice(start, start + 10);
      const result = await social.addUsers(
        audienceId,
        { schema: SCHEMA, rows: batch },
        session(audienceId, seq, start + 10 >= all.length),
      );
      assert.deepEqual(result, { received: batch.length, invalid: 0, nextBatchSeq: seq + 1 });
      seq = result.nextBatchSeq;
    }
    assert.equal(audience.members.size, 25);
    const [uploadSession] = [...audience.sessions.values()];
    assert.deepEqual(
      {
        lastSeq: uploadSession!.lastSeq,
        finished: uploadSession!.finished,
        received: uploadSession!.received,
      },
      { lastSeq: 3, finished: true, received: 25 },
    );

    assert.deepEqual(await social.shareWith(audienceId, `act_${CLIENT_ACCOUNT}`), { alreadyShared: false });
    assert.deepEqual([...audience.sharedWith], [CLIENT_ACCOUNT]);

    // The fake reports "updating" once after the last batch, then usable with a count range.
    const updating = await social.getStatus(audienceId);
    assert.equal(updating.readiness, 'processing');
    assert.equal(updating.approximateCount, null);
    const ready = await social.getStatus(audienceId);
    assert.deepEqual(ready, {
      readiness: 'ready',
      approximateCount: { lower: 22, upper: 25 },
      operationCode: 200,
      deliveryCode: 200,
      reason: null,
    });

    // The token only ever travels in the Authorization header.
    for (const request of graph.requests) {
      assert.ok(!request.url.includes(graph.token));
      assert.equal(request.headers.authorization, `Bearer ${graph.token}`);
      assert.equal(request.status, 200, `${request.method} ${request.url}`);
    }
  });

  test('Pattern #2 audiences are user-provided and can be made in the client account', async () => {
    const social = adapter();
    const { audienceId } = await social.createAudience({
      adAccountId: CLIENT_ACCOUNT,
      name: 'Own_List',
      description: 'listmatch job job_p2',
      customerFileSource: customerFileSourceOf(2),
    });
    const audience = graph.audiences.get(audienceId)!;
    assert.equal(audience.customerFileSource, 'USER_PROVIDED_ONLY');
    assert.equal(audience.adAccountId, CLIENT_ACCOUNT);
    // The second MADID was hashed by mistake (MADIDs go in clear): the platform counts it invalid
    // and quotes it among its samples, which the adapter drops.
    const madidRows = [
      ['6d92078a-8246-4ba4-ae5b-76104861e7dc', sha('jane')],
      [sha('a5f0c2de-1111-2222-3333-444455556666'), ''],
    ];
    const result = await social.addUsers(
      audienceId,
      { schema: ['MADID', 'FN'], rows: madidRows },
      session(audienceId, 1, true, 'job_p2'),
    );
    assert.deepEqual(result, { received: 2, invalid: 1, nextBatchSeq: 2 });
    assert.ok(!JSON.stringify(result).includes(madidRows[1]![0]!));
  });

  test('a job that crashed after creating its audience finds it by name and description, across pages', async () => {
    const social = adapter();
    const audienceId = await newAudience(social);
    for (let n = 0; n < 600; n++) {
      await social.createAudience({
        adAccountId: ACCOUNT,
        name: `Other_${n}`,
        description: `listmatch job job_${n}`,
        customerFileSource: 'USER_PROVIDED_ONLY',
      });
    }
    assert.deepEqual(await social.findAudience(`act_${ACCOUNT}`, 'Spring_Voters', 'listmatch job job_test'), {
      audienceId,
    });
    assert.equal(await social.findAudience(ACCOUNT, 'Spring_Voters', 'listmatch job job_other'), null);
    const lists = graph.requests.filter((r) => r.operation === 'list');
    assert.ok(lists.length >= 2, 'it followed the cursor to a second page');
    assert.ok(lists.every((r) => !r.url.includes(graph.token)));
  });

  test('sharing again is harmless: the current shares are read first and nothing is posted', async () => {
    const social = adapter();
    const audienceId = await newAudience(social);
    assert.deepEqual(await social.shareWith(audienceId, CLIENT_ACCOUNT), { alreadyShared: false });
    assert.deepEqual(await social.shareWith(audienceId, `act_${CLIENT_ACCOUNT}`), { alreadyShared: true });
    const posts = graph.requests.filter((r) => r.operation === 'share');
    assert.equal(posts.length, 1);
    assert.deepEqual(posts[0]!.body, { adaccounts: [CLIENT_ACCOUNT] });
  });

  test('sharing finds an existing share beyond the first page of shares', async () => {
    const social = adapter();
    const audienceId = await newAudience(social);
    const audience = graph.audiences.get(audienceId)!;
    for (let n = 0; n < 40; n++) audience.sharedWith.add(String(3_000_000_000 + n));
    assert.deepEqual(await social.shareWith(audienceId, String(3_000_000_000 + 39)), { alreadyShared: true });
    assert.equal(graph.requests.filter((r) => r.operation === 'share').length, 0);
  });

  test('a share refused as a repeat (its earlier answer was lost) counts as shared once the list shows it', async () => {
    const social = adapter();
    const audienceId = await newAudience(social);
    graph.audiences.get(audienceId)!.sharedWith.add(CLIENT_ACCOUNT);
    // The first read is stale (the share landed after it); the POST is refused as a repeat.
    graph.inject({ on: 'shares', body: { data: [] } });
    assert.deepEqual(await social.shareWith(audienceId, CLIENT_ACCOUNT), { alreadyShared: true });
    const share = graph.requests.find((r) => r.operation === 'share')!;
    assert.equal(share.status, 400);
  });

  test('a resumed job continues the same session, replaying the batch it had not checkpointed', async () => {
    const audienceId = await newAudience();
    const first = adapter();
    await first.addUsers(audienceId, { schema: SCHEMA, rows: rows(10, 0) }, session(audienceId, 1));
    await first.addUsers(audienceId, { schema: SCHEMA, rows: rows(10, 10) }, session(audienceId, 2));
    // The process dies after batch 2 was sent but before it was checkpointed: a new process sends
    // batch 2 again under the same derived session id, then the last batch.
    const resumed = adapter();
    assert.equal(uploadSessionId('job_test', audienceId), session(audienceId, 1).sessionId);
    await resumed.addUsers(audienceId, { schema: SCHEMA, rows: rows(10, 10) }, session(audienceId, 2));
    await resumed.addUsers(audienceId, { schema: SCHEMA, rows: rows(5, 20) }, session(audienceId, 3, true));
    const audience = graph.audiences.get(audienceId)!;
    assert.equal(audience.sessions.size, 1);
    const only = [...audience.sessions.values()][0]!;
    assert.deepEqual(
      { lastSeq: only.lastSeq, finished: only.finished, received: only.received },
      { lastSeq: 3, finished: true, received: 25 },
    );
    assert.equal(audience.members.size, 25);
    // A gap in the sequence is refused, as the platform does.
    const gap = await platformError(
      resumed.addUsers(
        audienceId,
        { schema: SCHEMA, rows: rows(1, 99) },
        session(audienceId, 5, true, 'job_b'),
      ),
    );
    assert.equal(gap.kind, 'fatal');
    assert.equal(gap.code, 100);
  });
});

describe('social adapter: the error table', () => {
  test('80003 with a short Retry-After is waited out in the call and the batch goes through', async () => {
    const audienceId = await newAudience();
    graph.inject(throttleFault(80003, { retryAfterSeconds: 2 }));
    const result = await adapter().addUsers(
      audienceId,
      { schema: SCHEMA, rows: rows(3) },
      session(audienceId, 1, true),
    );
    assert.equal(result.received, 3);
    assert.ok(
      sleeps.some((ms) => ms >= 2_000 && ms <= 5_000),
      `sleeps: ${sleeps.join(', ')}`,
    );
  });

  test('613 whose business usage says 30 minutes goes back to the job as a throttle with that wait', async () => {
    const audienceId = await newAudience();
    graph.inject(throttleFault(613, { regainMinutes: 30 }));
    const error = await platformError(
      adapter().addUsers(audienceId, { schema: SCHEMA, rows: rows(3) }, session(audienceId, 1, true)),
    );
    assert.equal(error.kind, 'throttle');
    assert.equal(error.code, 613);
    assert.equal(error.waitMs, 30 * 60_000);
    assert.match(error.message, /rate-limiting/);
  });

  test('a throttle that persists is handed back after two short waits', async () => {
    const audienceId = await newAudience();
    graph.inject(throttleFault(80004, { retryAfterSeconds: 1, times: 5 }));
    const error = await platformError(
      adapter().addUsers(audienceId, { schema: SCHEMA, rows: rows(3) }, session(audienceId, 1, true)),
    );
    assert.equal(error.kind, 'throttle');
    assert.equal(graph.requests.filter((r) => r.operation === 'users').length, 3);
  });

  test('a throttled adapter does not call again before the wait, even for another audience', async () => {
    const audienceId = await newAudience();
    graph.inject(throttleFault(17, { on: 'status', regainMinutes: 10 }));
    const social = adapter();
    await platformError(social.getStatus(audienceId));
    const before = graph.requests.length;
    const error = await platformError(social.getStatus(audienceId));
    assert.equal(error.kind, 'throttle');
    assert.ok(error.waitMs! > 9 * 60_000);
    assert.equal(graph.requests.length, before, 'no call was made while throttled');
  });

  test('190: the token was refused → fatal, with a message for the operator and no token in it', async () => {
    const audienceId = await newAudience();
    graph.inject(tokenFault('users'));
    const error = await platformError(
      adapter().addUsers(audienceId, { schema: SCHEMA, rows: rows(3) }, session(audienceId, 1, true)),
    );
    assert.equal(error.kind, 'fatal');
    assert.equal(error.code, 190);
    assert.match(error.message, /system user token/);
    const wrongToken = await platformError(
      adapter({ accessToken: () => 'not-the-token' }).getStatus(audienceId),
    );
    assert.equal(wrongToken.code, 190);
    assert.ok(!wrongToken.message.includes('not-the-token'));
  });

  test('2655: custom audience terms not accepted → fatal, naming the account', async () => {
    await graph.close();
    await startGraph({ termsNotAccepted: [CLIENT_ACCOUNT] });
    const error = await platformError(
      adapter().createAudience({
        adAccountId: CLIENT_ACCOUNT,
        name: 'Own_List',
        description: '',
        customerFileSource: 'USER_PROVIDED_ONLY',
      }),
    );
    assert.equal(error.kind, 'fatal');
    assert.equal(error.code, 2655);
    assert.match(error.message, new RegExp(`act_${CLIENT_ACCOUNT}.*custom audience terms`));
    const audienceId = await newAudience();
    graph.inject(termsFault('users'));
    const onUpload = await platformError(
      adapter().addUsers(audienceId, { schema: SCHEMA, rows: rows(3) }, session(audienceId, 1, true)),
    );
    assert.equal(onUpload.code, 2655);
  });

  test('100/33: an ad account we cannot reach → fatal', async () => {
    const error = await platformError(
      adapter().createAudience({
        adAccountId: '9999999999',
        name: 'x',
        description: '',
        customerFileSource: 'USER_PROVIDED_ONLY',
      }),
    );
    assert.equal(error.kind, 'fatal');
    assert.deepEqual([error.code, error.subcode], [100, 33]);
    assert.match(error.message, /no access/);
  });

  test('471: a flagged audience reads as flagged, and further uploads fail with 1713230', async () => {
    const social = adapter();
    const audienceId = await newAudience(social);
    await social.addUsers(audienceId, { schema: SCHEMA, rows: rows(3) }, session(audienceId, 1));
    graph.flag(audienceId);
    const status = await social.getStatus(audienceId);
    assert.equal(status.readiness, 'flagged');
    assert.equal(status.operationCode, 471);
    assert.match(status.reason!, /policy review/);
    const error = await platformError(
      social.addUsers(audienceId, { schema: SCHEMA, rows: rows(3, 3) }, session(audienceId, 2, true)),
    );
    assert.equal(error.kind, 'fatal');
    assert.deepEqual([error.code, error.subcode], [100, 1713230]);
  });

  test('105: a batch too large is split in two consecutive batch_seqs; the session goes on after them', async () => {
    await graph.close();
    await startGraph({ tooManyParametersAbove: 6 });
    const social = adapter();
    const audienceId = await newAudience(social);
    const result = await social.addUsers(
      audienceId,
      { schema: SCHEMA, rows: rows(10) },
      session(audienceId, 1),
    );
    assert.deepEqual(result, { received: 10, invalid: 0, nextBatchSeq: 3 });
    const last = await social.addUsers(
      audienceId,
      { schema: SCHEMA, rows: rows(4, 10) },
      session(audienceId, result.nextBatchSeq, true),
    );
    assert.equal(last.nextBatchSeq, 4);
    const sent = graph.requests
      .filter((r) => r.operation === 'users' && r.status === 200)
      .map((r) => {
        const s = r.body!['session'] as { batch_seq: number; last_batch_flag: boolean };
        return [s.batch_seq, s.last_batch_flag];
      });
    assert.deepEqual(sent, [
      [1, false],
      [2, false],
      [3, true],
    ]);
    assert.equal(graph.audiences.get(audienceId)!.members.size, 14);
  });

  test('105 then a crash before the checkpoint: the resent batch splits again into the same batch_seqs', async () => {
    await graph.close();
    await startGraph({ tooManyParametersAbove: 6 });
    const audienceId = await newAudience();
    const batch = { schema: SCHEMA, rows: rows(10) };
    assert.equal((await adapter().addUsers(audienceId, batch, session(audienceId, 1))).nextBatchSeq, 3);
    // The job died before recording nextBatchSeq 3; the resumed job sends batch 1 again.
    const resumed = adapter();
    assert.equal((await resumed.addUsers(audienceId, batch, session(audienceId, 1))).nextBatchSeq, 3);
    await resumed.addUsers(audienceId, { schema: SCHEMA, rows: rows(2, 10) }, session(audienceId, 3, true));
    const only = [...graph.audiences.get(audienceId)!.sessions.values()][0]!;
    assert.deepEqual([only.lastSeq, only.received, only.finished], [3, 12, true]);
  });

  test('105 again on a half → fatal (split once only)', async () => {
    await graph.close();
    await startGraph({ tooManyParametersAbove: 3 });
    const audienceId = await newAudience();
    const error = await platformError(
      adapter().addUsers(audienceId, { schema: SCHEMA, rows: rows(10) }, session(audienceId, 1, true)),
    );
    assert.equal(error.kind, 'fatal');
    assert.equal(error.code, 105);
  });

  test('a 500 with code 2 is retried in the call; a proxy 502 that persists becomes a retry error', async () => {
    const social = adapter();
    const audienceId = await newAudience(social);
    graph.inject(serverErrorFault(500, 'users'));
    const ok = await social.addUsers(audienceId, { schema: SCHEMA, rows: rows(3) }, session(audienceId, 1));
    assert.equal(ok.received, 3);
    graph.inject(serverErrorFault(502, 'users', 3));
    const error = await platformError(
      social.addUsers(audienceId, { schema: SCHEMA, rows: rows(3, 3) }, session(audienceId, 2, true)),
    );
    assert.equal(error.kind, 'retry');
    assert.equal(error.httpStatus, 502);
    assert.deepEqual(sleeps.slice(-2), [10, 20]);
  });

  test('code 1 and 2650 are retried', async () => {
    const audienceId = await newAudience();
    graph.inject({ on: 'status', status: 500, error: { code: 1, message: 'An unknown error occurred' } });
    graph.inject({ on: 'status', status: 400, error: { code: 2650, message: 'Limited' } });
    assert.equal((await adapter().getStatus(audienceId)).readiness, 'processing');
  });

  test('num_received 0 on a non-empty batch is a silent rejection → fatal', async () => {
    const audienceId = await newAudience();
    graph.inject({ on: 'users', silentRejection: true });
    const error = await platformError(
      adapter().addUsers(audienceId, { schema: SCHEMA, rows: rows(4) }, session(audienceId, 1, true)),
    );
    assert.equal(error.kind, 'fatal');
    assert.match(error.message, /accepted none of the 4 rows of upload batch 1/);
  });

  test('permission (200, 294, 10), 368 and 1487301 are fatal with a reason', async () => {
    const audienceId = await newAudience();
    for (const [code, pattern] of [
      [200, /lacks permission/],
      [294, /lacks permission/],
      [10, /lacks permission/],
      [368, /against its policies/],
      [1487301, /deleted or is not shared/],
    ] as const) {
      graph.inject({ on: 'shares', status: 400, error: { code } });
      const error = await platformError(adapter().shareWith(audienceId, CLIENT_ACCOUNT));
      assert.equal(error.kind, 'fatal', String(code));
      assert.match(error.message, pattern);
    }
  });
});

describe('social adapter: what the local server refuses', () => {
  test('a cell that is not a lowercase hex hash is refused by the platform check', async () => {
    const audienceId = await newAudience();
    const plain = [['jane@example.com', sha('jane'), '', '']];
    const error = await platformError(
      adapter().addUsers(audienceId, { schema: SCHEMA, rows: plain }, session(audienceId, 1, true)),
    );
    assert.equal(error.code, 100);
    assert.ok(!error.message.includes('jane'), 'no row value in the client message');
    const upper = [[sha('a').toUpperCase(), '', '', '']];
    assert.equal(
      (
        await platformError(
          adapter().addUsers(audienceId, { schema: SCHEMA, rows: upper }, session(audienceId, 1, true)),
        )
      ).code,
      100,
    );
  });

  test('an API version the platform has retired is refused', async () => {
    const error = await platformError(adapter({ apiVersion: 'v19.0' }).getStatus('123'));
    assert.equal(error.kind, 'fatal');
    assert.equal(error.code, 2635);
  });

  test('without act_ the platform finds no ad account; a raw POST shows it', async () => {
    const response = await fetch(`${graph.url}/${graph.version}/${ACCOUNT}/customaudiences`, {
      method: 'POST',
      headers: { authorization: `Bearer ${graph.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', subtype: 'CUSTOM', customer_file_source: 'USER_PROVIDED_ONLY' }),
    });
    const body = (await response.json()) as { error: { code: number; error_subcode: number } };
    assert.deepEqual([body.error.code, body.error.error_subcode], [100, 33]);
  });

  test('the adapter refuses batches the platform would: empty, over 10,000 rows, unknown keys', async () => {
    const social = adapter();
    const s = session('1', 1);
    await assert.rejects(social.addUsers('1', { schema: SCHEMA, rows: [] }, s), RangeError);
    await assert.rejects(social.addUsers('1', { schema: SCHEMA, rows: rows(10_001) }, s), RangeError);
    await assert.rejects(
      social.addUsers('1', { schema: ['EMAIL', 'NAME' as SocialSchemaKey], rows: [['', '']] }, s),
      RangeError,
    );
    assert.equal(graph.requests.length, 0);
  });
});

describe('social adapter: pacing and transport', () => {
  test('usage near the limit slows the next call down; low usage does not', async () => {
    const social = adapter({ pacing: { startPct: 50, maxDelayMs: 10_000 }, maxInlineWaitMs: 60_000 });
    const audienceId = await newAudience(social);
    assert.deepEqual(sleeps, []);
    graph.usage.business = 90;
    await social.getStatus(audienceId);
    assert.equal(social.lastUsagePct, 90);
    await social.getStatus(audienceId);
    assert.equal(sleeps.length, 1);
    assert.ok(sleeps[0]! > 5_000 && sleeps[0]! <= 6_400, `slept ${sleeps[0]}`);
  });

  let silent: ReturnType<typeof createServer>;
  let silentUrl: string;
  /** The requests the silent server received (method and path), in order. */
  const silentRequests: string[] = [];
  before(async () => {
    // Accepts connections and never answers.
    silent = createServer((request) => silentRequests.push(`${request.method} ${request.url}`));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  after(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  test('a platform that does not answer: retry error after the timeout; create is not repeated', async () => {
    const social = adapter({ graphUrl: silentUrl, timeoutMs: 200, retryDelaysMs: [10] });
    const status = await platformError(social.getStatus('123'));
    assert.equal(status.kind, 'retry');
    assert.match(String((status.cause as Error).message), /no answer within 200 ms/);
    silentRequests.length = 0;
    const create = await platformError(
      social.createAudience({
        adAccountId: ACCOUNT,
        name: 'x',
        description: '',
        customerFileSource: 'PARTNER_PROVIDED_ONLY',
      }),
    );
    assert.equal(create.kind, 'retry');
    // Gave up after one timeout: a create that may have reached the platform is not sent again.
    assert.equal(silentRequests.length, 1, `create was sent ${silentRequests.length} times`);
    assert.match(silentRequests[0]!, /^POST \S*customaudiences/);
  });

  test('a platform that is down (connection refused) → retry error without the token', async () => {
    const url = graph.url;
    await graph.close();
    const error = await platformError(adapter({ graphUrl: url }).getStatus('123'));
    assert.equal(error.kind, 'retry');
    await startGraph();
  });
});
