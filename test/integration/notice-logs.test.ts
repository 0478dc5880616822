import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FIXTURES, freePort, until } from '../support/test-service.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EMAIL = 'jane.doe@client.example';
const SMTP_PASSWORD = 'pw-9f8e7d6c5b4a';
const ROW_ID = 'NC-000000001';

test('failing webhook and SMTP: the logs (debug level) name neither secrets, addresses nor rows', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'listmatch-logs-'));
  // A webhook receiver that always fails, and an SMTP port nobody listens on.
  const hook = createServer((req, res) => {
    req.resume();
    res.statusCode = 500;
    res.end();
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  const hookPort = (hook.address() as AddressInfo).port;
  const port = await freePort();
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'debug',
    RATE_LIMIT_POLL_SECONDS: '0',
    QUEUE_POLL_MS: '20',
    WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${hookPort}`,
    WEBHOOK_RETRY_BASE_SECONDS: '0.01',
    MAIL: 'smtp',
    SMTP_URL: `smtp://listmatch:${SMTP_PASSWORD}@127.0.0.1:${await freePort()}`,
    SMTP_TLS: 'none',
    MAIL_RETRY_BASE_SECONDS: '0.01',
  };
  const cli = (...args: string[]) => {
    const result = spawnSync(process.execPath, [join(ROOT, 'bin', 'listmatch.js'), ...args], {
      env,
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, result.stderr);
    return result.stdout;
  };
  cli('voters', 'import', join(FIXTURES, 'voters-small.csv'), '--replace');
  const created = JSON.parse(cli('keys', 'create', '--name', 'logs', '--json')) as {
    key: string;
    webhook_secret: string;
  };
  const child = spawn(process.execPath, [join(ROOT, 'src', 'start', 'main.ts')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const base = `http://127.0.0.1:${port}`;
    await until(() => output.includes('listmatch started'), 'the service started', 20_000);
    const query = `filename=logged&notification_email=${encodeURIComponent(EMAIL)}&webhook=${encodeURIComponent(`http://127.0.0.1:${hookPort}/hook`)}`;
    const registered = (await (
      await fetch(`${base}/service/smartmatch?${query}`, { headers: { 'x-api-key': created.key } })
    ).json()) as { url: string };
    const put = await fetch(registered.url, { method: 'PUT', body: `voterbase_id\n${ROW_ID}\n` });
    assert.equal(put.status, 200);
    await until(
      () =>
        output.includes('webhook dead-lettered') &&
        (output.match(/e-mail notice dead-lettered/g) ?? []).length === 2,
      'the webhook and both notices dead-lettered',
      30_000,
    );
  } finally {
    child.kill('SIGTERM');
    await exited;
    await new Promise((resolve) => hook.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  }
  assert.match(output, /SMTP send failed/, 'the failures themselves are logged');
  assert.match(output, /job failed; retrying/);
  assert.match(output, /webhook answered 500/);
  for (const secret of [EMAIL, SMTP_PASSWORD, created.key, created.webhook_secret, ROW_ID, 'sig=']) {
    assert.equal(output.includes(secret), false, `the log contains ${secret}`);
  }
});
