import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ListmatchClient, ListmatchError, type PollAnswer } from 'listmatch/client';
import { startTestService, type TestService } from '../support/test-service.ts';

const SMALL = [
  'matchback_id,first_name,last_name,voter_id,state',
  '1,Peggy,Smith,123456,NC',
  '2,Jose,Munoz,777,NC',
].join('\n');

/** A list long enough that its matching takes seconds: the worker records progress meanwhile. */
function longList(rows: number): string {
  const lines = ['matchback_id,first_name,last_name,address1,zip,voter_id,state'];
  for (let i = 0; i < rows; i++) {
    lines.push(
      i % 2 === 0
        ? `${i},Peggy,Smith,12 Oak Street,27601,,`
        : `${i},Person${i % 997},Name${i % 991},${i} Main St,27701,,`,
    );
  }
  return `${lines.join('\n')}\n`;
}

async function pollUntil(
  client: ListmatchClient,
  filename: string,
  done: (answer: PollAnswer) => boolean,
  timeoutMs = 120_000,
): Promise<PollAnswer[]> {
  const seen: PollAnswer[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await client.poll(filename);
    seen.push(answer);
    if (done(answer)) return seen;
    if (Date.now() > deadline) throw new Error(`${filename}: ${JSON.stringify(answer)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Issue 40: one filename registered twice in each state of its job. */
describe('registering a filename again, in each state of its job (typed client)', () => {
  let t: TestService;
  let client: ListmatchClient;

  before(async () => {
    t = await startTestService({ RATE_LIMIT_POLL_SECONDS: '0' });
    client = new ListmatchClient({ server: t.base, apiKey: (await t.createKey()).key });
  });
  after(async () => await t.stop());

  test('awaiting upload: the new registration replaces the job, the earlier URL stops working', async () => {
    const earlier = await client.registerSmartmatch({ filename: 'awaiting' });
    const later = await client.registerSmartmatch({ filename: 'awaiting', format: 'gzip' });
    await assert.rejects(client.upload(earlier, SMALL), (error: unknown) => {
      assert.ok(error instanceof ListmatchError);
      assert.equal(error.status, 403);
      assert.equal(
        error.message,
        'Authorization Error: this upload URL was replaced by a later registration of the same filename; upload to the URL that registration answered',
      );
      return true;
    });
    const poll = await client.poll('awaiting');
    assert.deepEqual(
      [poll.status, poll.url, poll.error],
      ['registered', '', null],
      'poll answers the newest job',
    );
    await client.upload(later, SMALL);
    const [done] = (await pollUntil(client, 'awaiting', (a) => a.url !== '')).slice(-1);
    assert.match(done!.url!, /awaiting\.csv\.gz/);
  });

  test('being matched: a validation error naming the wait; progress shows meanwhile; finished: a new job, the old result stays downloadable', async () => {
    const url = await client.registerSmartmatch({ filename: 'matching' });
    const list = longList(120_000);
    await client.upload(url, list);
    const running = await pollUntil(
      client,
      'matching',
      (a) => a.status === 'complete' || (a.status === 'processing' && (a.progress?.rows_matched ?? 0) > 0),
    );
    const last = running.at(-1)!;
    assert.equal(last.status, 'processing', 'the job was still being matched when progress showed');
    assert.ok(last.progress!.bytes_read > 0);
    assert.equal(last.progress!.bytes_total, Buffer.byteLength(list));
    assert.equal(last.progress!.rows_total, null);

    // Registering it again while it is matched: refused, 200 with error (clients.md 7).
    await assert.rejects(
      client.registerSmartmatch({ filename: 'matching', max_matches: 2 }),
      (error: unknown) => {
        assert.ok(error instanceof ListmatchError);
        assert.deepEqual([error.status, error.kind], [200, 'validation']);
        assert.equal(
          error.message,
          'Validation Error: the list "matching" is still being matched; wait until poll answers its result or error, then register this filename again (or register under another filename)',
        );
        return true;
      },
    );

    const polls = await pollUntil(client, 'matching', (a) => a.status === 'complete');
    const rows = [...running, ...polls].map((a) => a.progress!.rows_matched);
    assert.deepEqual(
      rows,
      [...rows].sort((a, b) => a - b),
      'rows matched never go back',
    );
    const complete = polls.at(-1)!;
    assert.deepEqual(complete.progress, {
      rows_matched: 120_000,
      rows_total: 120_000,
      bytes_read: Buffer.byteLength(list),
      bytes_total: Buffer.byteLength(list),
    });

    // Finished: a new job; poll follows it, the finished result stays downloadable by its URL.
    const next = await client.registerSmartmatch({ filename: 'matching' });
    const poll = await client.poll('matching');
    assert.deepEqual([poll.status, poll.url], ['registered', '']);
    const download = await client.download(complete.url!);
    const text = await download.text();
    assert.equal(text.trimEnd().split('\n').length, 120_001);
    await client.upload(next, SMALL);
    const [newest] = (await pollUntil(client, 'matching', (a) => a.url !== '')).slice(-1);
    assert.notEqual(newest!.url, complete.url);
    assert.equal((await client.download(complete.url!)).status, 200, 'the earlier result still downloads');
  });
});
