/**
 * Folder delivery over SFTP against a real OpenSSH server (test/support/sftp-server.ts). Without
 * sshd (or root) these fail under CI=true and are skipped, with the reason printed, otherwise.
 */
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import { SftpFileDrop } from '../../src/adapters/delivery/sftp-file-drop.ts';
import { DELIVER_FOLDER_JOB } from '../../src/jobs/deliver-folder.job.ts';
import { deliveryArchive, jobIdOf } from '../support/delivery-archive.ts';
import {
  type SftpServer,
  sftpUnavailable,
  skipWithoutSftp,
  startSftpServer,
} from '../support/sftp-server.ts';
import {
  freePort,
  register,
  startTestService,
  type TestService,
  until,
  upload,
  waitForResult,
} from '../support/test-service.ts';

const KEY = 'key_01JD0000000000000000000000';
const OTHER = 'key_01JD0000000000000000000001';
const source = (body: string) => async () => Readable.from([Buffer.from(body)]);

function adapter(
  server: SftpServer,
  overrides: { hostKeySha256?: string; port?: number } = {},
): SftpFileDrop {
  return new SftpFileDrop({
    host: server.host,
    port: overrides.port ?? server.port,
    username: server.username,
    privateKeyFile: server.privateKeyFile,
    root: server.root,
    hostKeySha256: overrides.hostKeySha256 ?? server.hostKeySha256,
    timeoutMs: 5000,
  });
}

interface QueueRow {
  state: string;
  attempts: number;
  last_error: string | null;
}
const folderDeliveries = (t: TestService): QueueRow[] =>
  t.running.services
    .database!.db.prepare(`SELECT state, attempts, last_error FROM queue WHERE type = ? ORDER BY id`)
    .all(DELIVER_FOLDER_JOB) as unknown as QueueRow[];

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const fileExists = (path: string) =>
  readFile(path).then(
    () => true,
    () => false,
  );

describe('SFTP file drop against OpenSSH (internal-sftp, chrooted, key-only)', { skip: false }, () => {
  let server: SftpServer | null = null;
  before(async () => {
    if (sftpUnavailable() === null) server = await startSftpServer();
  });
  after(() => server?.dispose());

  test('put uploads atomically into <root>/<key id>/smartmatch and replaces an earlier file', async (t) => {
    if (skipWithoutSftp(t)) return;
    const drop = adapter(server!);
    assert.deepEqual(await drop.put(KEY, 'list.zip', source('first')), { bytes: 5 });
    assert.deepEqual(await drop.put(KEY, 'list.zip', source('second!')), { bytes: 7 });
    const folder = join(server!.localRoot, KEY, 'smartmatch');
    assert.equal(await readFile(join(folder, 'list.zip'), 'utf8'), 'second!');
    assert.deepEqual(await readdir(folder), ['list.zip'], 'the temporary upload was renamed away');
    const read = await drop.read(KEY, 'list.zip');
    assert.equal(read.bytes, 7);
    assert.equal(await text(read.stream), 'second!');
  });

  test('list and read see only the key folder regular visible files', async (t) => {
    if (skipWithoutSftp(t)) return;
    const drop = adapter(server!);
    await drop.put(OTHER, 'theirs.zip', source('not yours'));
    const folder = join(server!.localRoot, KEY, 'smartmatch');
    await writeFile(join(folder, '.list.zip.abc.part'), 'partial');
    await mkdir(join(folder, 'sub'));
    // A link inside the chroot that points at another key's file: never listed nor followed.
    await symlink(`${server!.root}/${OTHER}/smartmatch/theirs.zip`, join(folder, 'theirs.zip'));
    assert.deepEqual(
      (await drop.list(KEY)).map((file) => file.name),
      ['list.zip'],
    );
    for (const name of [
      'theirs.zip',
      '.list.zip.abc.part',
      'sub',
      '../../x',
      `../${OTHER}/smartmatch/theirs.zip`,
    ]) {
      await assert.rejects(drop.read(KEY, name), { code: 'NOT_FOUND' }, name);
    }
    assert.deepEqual(
      await drop.list('key_01JD00000000000000000000ZZ'),
      [],
      'a key without a folder has none',
    );
  });

  test('forEachFolder lists several keys over one connection; remove deletes, and a missing file is no error', async (t) => {
    if (skipWithoutSftp(t)) return;
    const drop = adapter(server!);
    await drop.put(KEY, 'old.zip', source('old'));
    await drop.put(OTHER, 'theirs.zip', source('theirs'));
    const seen: [string, string[]][] = [];
    await drop.forEachFolder([KEY, OTHER], async (keyId, files) => {
      seen.push([keyId, files.map((file) => file.name).sort()]);
    });
    assert.deepEqual(seen, [
      [KEY, ['list.zip', 'old.zip']],
      [OTHER, ['theirs.zip']],
    ]);
    await drop.remove(KEY, 'old.zip');
    await drop.remove(KEY, 'old.zip');
    assert.deepEqual(
      (await drop.list(KEY)).map((file) => file.name),
      ['list.zip'],
    );
    await assert.rejects(drop.remove(KEY, '../x'));
  });

  test('a server whose host key does not match the pinned fingerprint is refused', async (t) => {
    if (skipWithoutSftp(t)) return;
    const drop = adapter(server!, { hostKeySha256: `SHA256:${'A'.repeat(43)}` });
    await assert.rejects(drop.list(KEY), /presented host key SHA256:.*not the one in SFTP_HOST_KEY_SHA256/);
  });

  test('a closed port fails with an error naming the server, never the key', async (t) => {
    if (skipWithoutSftp(t)) return;
    const drop = adapter(server!, { port: await freePort() });
    const error = await drop.list(KEY).then(
      () => assert.fail('connected to a closed port'),
      (e: Error) => e,
    );
    assert.match(error.message, /^SFTP 127\.0\.0\.1:\d+: /);
    assert.doesNotMatch(error.message, /PRIVATE KEY|client_ed25519/);
  });
});

describe('completed jobs delivered over SFTP; the server down at completion', () => {
  let server: SftpServer | null = null;
  let t: TestService | null = null;
  let client: { key: string; id: string };

  before(async () => {
    if (sftpUnavailable() !== null) return;
    server = await startSftpServer();
    t = await startTestService({
      ...server.env,
      RATE_LIMIT_POLL_SECONDS: '0',
      DELIVERY_RETRY_BASE_SECONDS: '0.1',
    });
    client = await t.createKey();
  });
  after(async () => {
    await t?.stop();
    await server?.dispose();
  });

  test('a completed job arrives as <filename>.zip, byte for byte', async (ctx) => {
    if (skipWithoutSftp(ctx)) return;
    const url = await register(t!, client.key, 'filename=over_sftp');
    await upload(url, 'voterbase_id\nNC-000000001\n');
    assert.equal((await waitForResult(t!, client.key, 'over_sftp')).error, null);
    const archive = await deliveryArchive(t!, await jobIdOf(t!, client.id, 'over_sftp'));
    const target = join(server!.localRoot, client.id, 'smartmatch', 'over_sftp.zip');
    await waitFor(() => fileExists(target), 'the archive on the SFTP server');
    assert.deepEqual(await readFile(target), archive);
  });

  test('SFTP down: the job completes and polls; delivery retries and lands once the server is back', async (ctx) => {
    if (skipWithoutSftp(ctx)) return;
    await server!.stop();
    const before = folderDeliveries(t!).length;
    const url = await register(t!, client.key, 'filename=while_down');
    await upload(url, 'voterbase_id\nNC-000000001\n');
    const result = await waitForResult(t!, client.key, 'while_down');
    assert.equal(result.error, null);
    assert.match(result.url, /^http:\/\/127\.0\.0\.1:\d+\/files\/job_/);
    const jobId = await jobIdOf(t!, client.id, 'while_down');
    const archive = await deliveryArchive(t!, jobId);
    // At least two attempts failed because nothing listens on the port.
    await until(() => {
      const row = folderDeliveries(t!)[before];
      return row !== undefined && row.attempts >= 3 && row.state === 'ready';
    }, 'failed delivery attempts while the server is down');
    assert.match(folderDeliveries(t!)[before]!.last_error ?? '', /^SFTP 127\.0\.0\.1:\d+: .*refused/i);
    assert.equal((await t!.running.services.jobStore.getJob(jobId))?.state, 'complete');
    assert.equal((await waitForResult(t!, client.key, 'while_down')).url, result.url, 'poll keeps working');

    await server!.start();
    const target = join(server!.localRoot, client.id, 'smartmatch', 'while_down.zip');
    await waitFor(() => fileExists(target), 'the archive once the server is back');
    assert.deepEqual(await readFile(target), archive);
    await until(() => folderDeliveries(t!)[before]?.state === 'done', 'the delivery marked done');
    assert.equal((await t!.running.services.queue.stats()).dead, 0);
  });

  test('a delivery that keeps failing is dead-lettered with its reason; the job stays complete', async (ctx) => {
    if (skipWithoutSftp(ctx)) return;
    await server!.stop();
    const jobId = await jobIdOf(t!, client.id, 'over_sftp');
    await t!.running.services.queue.enqueue({
      type: DELIVER_FOLDER_JOB,
      payload: { v: 1, jobId },
      maxAttempts: 2,
    });
    await until(
      async () => (await t!.running.services.queue.stats()).dead === 1,
      'the delivery dead-lettered',
    );
    const dead = folderDeliveries(t!).find((row) => row.state === 'dead')!;
    assert.equal(dead.attempts, 2);
    assert.match(dead.last_error ?? '', /^SFTP 127\.0\.0\.1:\d+: /);
    assert.equal((await t!.running.services.jobStore.getJob(jobId))?.state, 'complete');
    assert.equal((await waitForResult(t!, client.key, 'over_sftp')).error, null);
    // What `listmatch jobs show` prints for the operator: every delivery of the job and its outcome.
    const entries = (await t!.running.services.queue.messagesForJob(jobId)).filter(
      (e) => e.type === DELIVER_FOLDER_JOB,
    );
    assert.deepEqual(
      entries.map((e) => e.state),
      ['done', 'dead'],
    );
    assert.match(entries[1]!.lastError ?? '', /^SFTP 127\.0\.0\.1:\d+: /);
    await server!.start();
  });
});
