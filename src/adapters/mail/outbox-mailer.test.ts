import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { simpleParser } from 'mailparser';
import type { MailMessage } from '../../domain/ports/mailer.ts';
import { OutboxMailer } from './outbox-mailer.ts';

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'listmatch-outbox-'));
});
after(() => rm(root, { recursive: true, force: true }));

const message = (over: Partial<MailMessage> = {}): MailMessage => ({
  to: 'client@example.org',
  subject: 'List "spring_list" is ready: 61.5% matched',
  text: 'Your list "spring_list" has been matched.\n',
  html: '<p>Your list &quot;spring_list&quot; has been matched.</p>',
  id: 'job_01ABC.complete',
  ...over,
});

test('writes one RFC 5322 message per notice, named by its id, with CRLF line ends', async () => {
  const dir = join(root, 'rfc');
  const outbox = new OutboxMailer({ dir, from: 'listmatch <results@lm.example>', now: () => new Date(0) });
  await outbox.send(message());
  assert.deepEqual(await readdir(dir), ['job_01ABC.complete.eml']);
  const raw = await readFile(join(dir, 'job_01ABC.complete.eml'));
  assert.equal(raw.toString('latin1').replace(/\r\n/g, '').includes('\n'), false, 'every line ends in CRLF');
  const parsed = await simpleParser(raw);
  assert.equal(parsed.subject, 'List "spring_list" is ready: 61.5% matched');
  assert.deepEqual(parsed.from?.value, [{ name: 'listmatch', address: 'results@lm.example' }]);
  assert.equal((parsed.to as { text: string }).text, 'client@example.org');
  assert.equal(parsed.messageId, '<job_01ABC.complete@lm.example>');
  assert.equal(parsed.date?.getTime(), 0);
  assert.equal(parsed.text, 'Your list "spring_list" has been matched.\n');
  assert.match(String(parsed.html), /has been matched/);
});

test('a retried notice replaces its own file instead of adding another', async () => {
  const dir = join(root, 'retry');
  const outbox = new OutboxMailer({ dir, from: 'results@lm.example' });
  await outbox.send(message());
  await outbox.send(message({ text: 'second try\n' }));
  assert.deepEqual(await readdir(dir), ['job_01ABC.complete.eml']);
  assert.equal(
    (await simpleParser(await readFile(join(dir, 'job_01ABC.complete.eml')))).text,
    'second try\n',
  );
});

test('a reader never sees half a message: *.eml files appear complete or not at all', async () => {
  const dir = join(root, 'atomic');
  await mkdir(dir);
  const outbox = new OutboxMailer({ dir, from: 'results@lm.example' });
  // Large enough that the write takes several chunks, so a concurrent reader could catch it midway.
  const big = 'x'.repeat(76 * 40_000);
  let done = false;
  let reads = 0;
  const reader = (async () => {
    while (!done) {
      for (const name of await readdir(dir)) {
        if (!name.endsWith('.eml')) continue;
        const text = await readFile(join(dir, name), 'latin1').catch(() => null);
        if (text === null) continue;
        reads++;
        assert.match(text, /--\r\n$/, `${name} was read while incomplete`);
      }
      await new Promise((r) => setImmediate(r));
    }
  })();
  for (let i = 0; i < 8; i++) await outbox.send(message({ id: `job_${i}.complete`, text: big }));
  done = true;
  await reader;
  assert.ok(reads > 0, 'the reader saw finished files');
  const names = await readdir(dir);
  assert.equal(names.length, 8);
  assert.ok(
    names.every((n) => n.endsWith('.eml')),
    'no temporary file is left behind',
  );
});

test('an outbox that cannot be written rejects (so the notice is retried) without naming the recipient', async () => {
  // A file where the folder should be: fails for root too, unlike permissions.
  const blocker = join(root, 'blocker');
  await writeFile(blocker, '');
  const outbox = new OutboxMailer({ dir: join(blocker, 'outbox'), from: 'results@lm.example' });
  await assert.rejects(outbox.send(message()), (error: Error) => {
    assert.equal(error.message.includes('client@example.org'), false);
    return true;
  });
});

test('sweepTemporary removes only partial messages older than the limit', async () => {
  const dir = join(root, 'sweep');
  const outbox = new OutboxMailer({ dir, from: 'results@lm.example' });
  await outbox.send(message());
  const partial = '.job_01ABC.failed.eml.0b8f2d4e-8c1a-4d7e-9a55-2f1e6c3b7a90.tmp';
  await writeFile(join(dir, partial), 'half a mess');
  await writeFile(join(dir, 'notes.tmp'), 'not ours');
  const now = Date.now();
  assert.equal(await outbox.sweepTemporary(3600_000, now), 0, 'fresh: it may still be being written');
  assert.equal(await outbox.sweepTemporary(3600_000, now + 2 * 3600_000), 1);
  assert.deepEqual((await readdir(dir)).sort(), ['job_01ABC.complete.eml', 'notes.tmp']);
});
