/**
 * Folder delivery over SFTP against a real OpenSSH server (test/support/sftp-server.ts). Without
 * sshd (or root) these fail under CI=true and are skipped, with the reason printed, otherwise.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { SftpFileDrop, type SftpFileDropOptions } from '../../src/adapters/delivery/sftp-file-drop.ts';
import { DELIVER_FOLDER_JOB } from '../../src/domain/ports/job-catalog.ts';
import { deliveryArchive, jobIdOf } from '../support/delivery-archive.ts';
import {
  type SftpServer,
  sftpUnavailable,
  skipWithoutSftp,
  startSftpServer,
} from '../support/sftp-server.ts';
import {
  freePort,
  getJson,
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

function adapter(server: SftpServer, overrides: Partial<SftpFileDropOptions> = {}): SftpFileDrop {
  return new SftpFileDrop({
    host: server.host,
    port: server.port,
    username: server.username,
    privateKeyFile: server.privateKeyFile,
    root: server.root,
    hostKeySha256: server.hostKeySha256,
    timeoutMs: 5000,
    ...overrides,
  });
}

const DAY_MS = 24 * 3600_000;

type Callback = (error: Error | undefined, ...rest: unknown[]) => void;
interface SftpMethods {
  open(path: string, flags: unknown, ...rest: unknown[]): void;
  ext_openssh_fsync(handle: Buffer, cb: Callback): void;
  ext_openssh_rename(from: string, to: string, cb: Callback): void;
}
// ssh2's SFTP session class, the one both ssh2-sftp-client and the adapter talk through.
const { SFTP } = createRequire(import.meta.url)('ssh2/lib/protocol/SFTP.js') as {
  SFTP: { prototype: SftpMethods };
};

/**
 * Records, in order, every fsync@openssh.com request (with the path its handle was opened on and
 * the server's answer) and every posix-rename, while the calls still go to the real server.
 */
function recordSftpCalls(): { calls: string[]; restore(): void } {
  const proto = SFTP.prototype;
  const { open, ext_openssh_fsync: fsync, ext_openssh_rename: rename } = proto;
  const pathOf = new Map<string, string>();
  const calls: string[] = [];
  proto.open = function (this: unknown, path: string, flags: unknown, ...rest: unknown[]) {
    const cb = rest.pop() as Callback;
    open.call(this, path, flags, ...rest, (error: Error | undefined, handle: Buffer) => {
      if (error === undefined || error === null) pathOf.set(handle.toString('hex'), path);
      cb(error, handle);
    });
  };
  proto.ext_openssh_fsync = function (this: unknown, handle: Buffer, cb: Callback) {
    fsync.call(this, handle, (error: Error | undefined, ...rest: unknown[]) => {
      calls.push(`fsync ${pathOf.get(handle.toString('hex'))} ${error ? `failed: ${error.message}` : 'ok'}`);
      cb(error, ...rest);
    });
  };
  proto.ext_openssh_rename = function (this: unknown, from: string, to: string, cb: Callback) {
    calls.push(`rename ${from} -> ${to}`);
    rename.call(this, from, to, cb);
  };
  return {
    calls,
    restore: () => {
      proto.open = open;
      proto.ext_openssh_fsync = fsync;
      proto.ext_openssh_rename = rename;
    },
  };
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
/** A TCP proxy on loopback to `port` that counts the connections made through it. */
async function countingProxy(
  port: number,
): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  let count = 0;
  const sockets = new Set<Socket>();
  const proxy = createServer((socket) => {
    count++;
    const upstream = connect(port, '127.0.0.1');
    for (const end of [socket, upstream]) {
      sockets.add(end);
      end.on('error', () => {
        socket.destroy();
        upstream.destroy();
      });
      end.on('close', () => sockets.delete(end));
    }
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as { port: number }).port,
    connections: () => count,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
const fileExists = (path: string) =>
  readFile(path).then(
    () => true,
    () => false,
  );

describe('SFTP file drop against OpenSSH (internal-sftp, chrooted, key-only)', () => {
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

  test('put fsyncs the temporary file (fsync@openssh.com) before renaming it into place', async (t) => {
    if (skipWithoutSftp(t)) return;
    const recorder = recordSftpCalls();
    try {
      assert.deepEqual(await adapter(server!).put(KEY, 'synced.zip', source('durable')), { bytes: 7 });
    } finally {
      recorder.restore();
    }
    const folder = `${server!.root}/${KEY}/smartmatch`;
    const temp = `${folder}/\\.synced\\.zip\\.[0-9a-f]{12}\\.part`;
    assert.equal(recorder.calls.length, 2, recorder.calls.join('\n'));
    assert.match(recorder.calls[0]!, new RegExp(`^fsync ${temp} ok$`));
    assert.match(recorder.calls[1]!, new RegExp(`^rename ${temp} -> ${folder}/synced\\.zip$`));
    assert.equal(
      recorder.calls[0]!.split(' ')[1],
      recorder.calls[1]!.split(' ')[1],
      'the file fsynced is the one renamed',
    );
    const delivered = join(server!.localRoot, KEY, 'smartmatch', 'synced.zip');
    assert.equal(await readFile(delivered, 'utf8'), 'durable');
    assert.equal((await stat(delivered)).mode & 0o022, 0, 'clients may read delivered files, not write them');
    await adapter(server!).remove(KEY, 'synced.zip');
  });

  test('a server that does not offer fsync@openssh.com still gets the file (logged at debug)', async (t) => {
    if (skipWithoutSftp(t)) return;
    const proto = SFTP.prototype as SftpMethods & { _extensions?: Record<string, string> };
    const { ext_openssh_fsync: fsync } = proto;
    // As if the server's version packet had not listed the extension (OpenSSH before 6.5).
    proto.ext_openssh_fsync = function (this: typeof proto, handle: Buffer, cb: Callback) {
      delete this._extensions!['fsync@openssh.com'];
      fsync.call(this, handle, cb);
    };
    const notes: string[] = [];
    try {
      const drop = adapter(server!, { log: (level, _fields, message) => notes.push(`${level} ${message}`) });
      assert.deepEqual(await drop.put(KEY, 'unsynced.zip', source('still here')), { bytes: 10 });
    } finally {
      proto.ext_openssh_fsync = fsync;
    }
    assert.equal(
      await readFile(join(server!.localRoot, KEY, 'smartmatch', 'unsynced.zip'), 'utf8'),
      'still here',
    );
    assert.deepEqual(notes, ['debug SFTP server offers no fsync@openssh.com: delivered without fsync']);
    await adapter(server!).remove(KEY, 'unsynced.zip');
  });

  test('a failed upload removes its temporary file and leaves the earlier file whole', async (t) => {
    if (skipWithoutSftp(t)) return;
    const failing = async () =>
      Readable.from(
        (async function* () {
          yield Buffer.from('partial');
          throw new Error('source broke');
        })(),
      );
    const drop = adapter(server!);
    await drop.put(KEY, 'kept.zip', source('whole'));
    await assert.rejects(drop.put(KEY, 'kept.zip', failing), /source broke/);
    const folder = join(server!.localRoot, KEY, 'smartmatch');
    assert.deepEqual(
      (await readdir(folder)).filter((name) => name.startsWith('.kept.zip.')),
      [],
      'no temporary file left',
    );
    assert.equal(await readFile(join(folder, 'kept.zip'), 'utf8'), 'whole');
    await drop.remove(KEY, 'kept.zip');
  });

  test('the sweep removes day-old temporary uploads of every key folder, at most once an hour', async (t) => {
    if (skipWithoutSftp(t)) return;
    const local = (keyId: string, name: string) => join(server!.localRoot, keyId, 'smartmatch', name);
    const old = new Date(Date.now() - 2 * DAY_MS);
    const stale = [local(KEY, '.old.zip.0123456789ab.part'), local(OTHER, '.old.zip.ba9876543210.part')];
    const kept = [
      local(KEY, '.new.zip.0123456789ab.part'), // fresh: an upload may still be writing it
      local(KEY, '.profile'), // not a name the adapter makes
      local(KEY, 'old-result.zip'), // a delivered file (retention's business, not the sweep's)
    ];
    await mkdir(join(server!.localRoot, 'not-a-key', 'smartmatch'), { recursive: true });
    kept.push(join(server!.localRoot, 'not-a-key', 'smartmatch', '.x.zip.0123456789ab.part'));
    for (const path of [...stale, ...kept]) await writeFile(path, 'x');
    for (const path of [...stale, ...kept.slice(1)]) await utimes(path, old, old);

    const drop = adapter(server!);
    const now = Date.now();
    assert.equal(await drop.sweepTemporary(DAY_MS, now), 2);
    for (const path of stale) assert.equal(await fileExists(path), false, path);
    for (const path of kept) assert.equal(await fileExists(path), true, path);
    assert.deepEqual(
      (await drop.list(KEY)).map((file) => file.name).sort(),
      ['list.zip', 'old-result.zip'],
      'delivered files are untouched',
    );

    // Called every minute by the worker's housekeeping: lists every folder at most once an hour.
    await writeFile(stale[0]!, 'x');
    await utimes(stale[0]!, old, old);
    assert.equal(await drop.sweepTemporary(DAY_MS, now + 60_000), 0);
    assert.equal(await fileExists(stale[0]!), true);
    assert.equal(await drop.sweepTemporary(DAY_MS, now + 3600_000 + 1), 1);
    assert.equal(await fileExists(stale[0]!), false);
    await rm(local(KEY, 'old-result.zip'));
  });

  test('health: the server answers with the pinned host key and the account logs in; cached for a while', async (t) => {
    if (skipWithoutSftp(t)) return;
    const logins = () => (server!.log().match(/Accepted publickey for /g) ?? []).length;
    const before = logins();
    // The adapters under test connect through a proxy that counts connections: a health check
    // answered from the cache must not have made one by the time it returns.
    const proxy = await countingProxy(server!.port);
    try {
      const drop = adapter(server!, { port: proxy.port, healthCacheMs: 60_000 });
      assert.equal(await drop.healthy(), true);
      assert.equal(proxy.connections(), 1);
      await waitFor(async () => logins() === before + 1, 'the login in the sshd log');
      for (let i = 0; i < 5; i++) assert.equal(await drop.healthy(), true);
      assert.equal(proxy.connections(), 1, 'cached answers open no connection');
      const fresh = [1, 2, 3].map(() => adapter(server!, { port: proxy.port }).healthy());
      assert.deepEqual(await Promise.all(fresh), [true, true, true]);
      assert.equal(proxy.connections(), 4, 'each new adapter logs in once');

      const wrongHost = adapter(server!, { hostKeySha256: `SHA256:${'A'.repeat(43)}` });
      assert.equal(await wrongHost.healthy(), false, 'a server with another host key is not ours');
      const keys = await mkdtemp(join(tmpdir(), 'listmatch-sftp-key-'));
      try {
        await promisify(execFile)('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keys, 'id')]);
        const unknownKey = adapter(server!, { privateKeyFile: join(keys, 'id') });
        assert.equal(await unknownKey.healthy(), false, 'the account must accept the key');
      } finally {
        await rm(keys, { recursive: true, force: true });
      }

      await server!.stop();
      try {
        assert.equal(await drop.healthy(), true, 'the cached answer, until it is too old');
        assert.equal(proxy.connections(), 4, 'still from the cache');
        assert.equal(await adapter(server!, { healthCacheMs: 0 }).healthy(), false);
      } finally {
        await server!.start();
      }
    } finally {
      await proxy.close();
    }
  });

  test('health: a server that never answers is reported down within the health timeout', async (t) => {
    if (skipWithoutSftp(t)) return;
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const notes: { level: string; fields: unknown; message: string }[] = [];
      const drop = adapter(server!, {
        port,
        timeoutMs: 60_000,
        healthTimeoutMs: 300,
        log: (level, fields, message) => notes.push({ level, fields, message }),
      });
      assert.equal(await drop.healthy(), false);
      assert.equal(sockets.size, 1, 'it did connect');
      // The reason names the health timeout, not the 60 s one of deliveries, nor a refusal.
      assert.deepEqual(notes, [
        {
          level: 'warn',
          fields: {
            server: drop.description,
            reason: `SFTP 127.0.0.1:${port}: no answer within 300 ms`,
          },
          message: 'SFTP delivery target is not usable',
        },
      ]);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
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

  test('/readyz reports the SFTP delivery target as a check, without credentials', async (ctx) => {
    if (skipWithoutSftp(ctx)) return;
    const ready = await getJson(`${t!.base}/readyz`);
    assert.equal(ready.status, 200);
    const { voter_file, ...checks } = ready.body['checks'] as Record<string, unknown>;
    assert.equal(ready.body['status'], 'ready');
    assert.deepEqual(checks, { database: true, storage: true, delivery: true });
    assert.equal(typeof voter_file, 'string');
    const body = JSON.stringify(ready.body);
    for (const secret of [server!.username, server!.privateKeyFile, server!.hostKeySha256, server!.root]) {
      assert.ok(!body.includes(secret), `readyz must not show ${secret}`);
    }
  });

  test('/readyz with the SFTP server unreachable: the delivery check fails, the process stays ready', async (ctx) => {
    if (skipWithoutSftp(ctx)) return;
    const down = await startTestService(
      { ...server!.env, SFTP_PORT: String(await freePort()) },
      { voters: false },
    );
    try {
      const ready = await getJson(`${down.base}/readyz`);
      assert.equal(ready.status, 200, 'matching and polling still work without the SFTP server');
      assert.deepEqual(ready.body, {
        status: 'ready',
        checks: { database: true, storage: true, voter_file: null, delivery: false },
      });
    } finally {
      await down.stop();
    }
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
