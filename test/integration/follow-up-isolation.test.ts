/**
 * Issue 35 follow-up: the other follow-ups of a list call servers outside the service too: e-mail
 * notices (SMTP), folder delivery (SFTP) and the media-buying audience (MBP). Each of those servers
 * here accepts the TCP connection and never answers, so every call waits out its timeout. They run
 * in slots of their own (MAIL_CONCURRENCY, DELIVERY_CONCURRENCY, AUDIENCE_CONCURRENCY), folder
 * deliveries and audiences at most DELIVERY/AUDIENCE_CONCURRENCY_PER_KEY of one key's at once, so
 * another key's list is matched as fast as usual and its delivery and audience calls still get a
 * slot. Run on the embedded queue and on pg-boss.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  assertNotHeldUp,
  type BackendEnv,
  type HangingServer,
  hangingServer,
  onEachQueueBackend,
  threeOneRowJobs,
  timedMatch,
} from '../support/hanging-peers.ts';
import { startTestService, type TestService, until } from '../support/test-service.ts';

/** Each silent call lasts this long: longer than everything measured below, short enough to bound a failing run. */
const TIMEOUT_SECONDS = 5;
/** Bounds each wait for a result: a run held up by silent servers fails, never hangs. */
const RESULT_TIMEOUT_MS = 12 * TIMEOUT_SECONDS * 1000;

/** Whether every queue message of the job has had its attempt and none is running. */
async function followUpsTried(t: TestService, jobId: string): Promise<boolean> {
  const messages = await t.running.services.queue.messagesForJob(jobId);
  return messages.every((message) => message.attempts >= 1 && message.state !== 'running');
}

function isolationSuite(backend: string, env: BackendEnv) {
  describe(`e-mail, folder and audience follow-ups beside matching: ${backend}`, () => {
    // Servers that first refuse (the calls fail fast and are retried much later), then, after
    // `stall()`, accept every connection and never answer.
    let smtp: HangingServer;
    let sftp: HangingServer;
    let mbp: HangingServer;
    let keyDir: string;
    let service: TestService | undefined;
    /** Every job the test made, so that the stop can wait for their follow-ups to be tried. */
    const jobIds: string[] = [];

    before(async () => {
      const silentServer = () => hangingServer({ refuseFirst: true });
      [smtp, sftp, mbp] = await Promise.all([silentServer(), silentServer(), silentServer()]);
      // DELIVERY=sftp reads a private key ssh2 can parse before it connects; the server never gets to ask for it.
      keyDir = await mkdtemp(join(tmpdir(), 'listmatch-follow-ups-'));
      const { privateKey } = generateKeyPairSync('rsa', {
        modulusLength: 2048,
        privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'pem' },
      });
      await writeFile(join(keyDir, 'id_rsa'), privateKey, { mode: 0o600 });
    });
    after(async () => {
      // Cut the silent calls first: they fail (to be retried much later) instead of holding the stop.
      await Promise.all([smtp.close(), sftp.close(), mbp.close()]);
      // The follow-ups still queued now meet closed ports and fail at once; stop once they all
      // have, so that the stop interrupts none of them on its way to a call.
      const running = service;
      if (running !== undefined) {
        const allTried = async () => {
          for (const jobId of jobIds) if (!(await followUpsTried(running, jobId))) return false;
          return true;
        };
        await until(allTried, 'every follow-up tried', 6 * TIMEOUT_SECONDS * 1000).catch(() => {});
      }
      await service?.stop();
      await rm(keyDir, { recursive: true, force: true });
    });

    test("three jobs whose e-mail, SFTP and audience calls never answer delay another key's 200-row match by under 1 s, and its delivery and audience calls still get a slot", async (t) => {
      const backendEnv = await env(t);
      if (backendEnv === null) return;
      service = await startTestService({
        ...backendEnv,
        RATE_LIMIT_POLL_SECONDS: '0',
        MAIL: 'smtp',
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(smtp.port),
        SMTP_TLS: 'none',
        SMTP_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
        DELIVERY: 'sftp',
        SFTP_HOST: '127.0.0.1',
        SFTP_PORT: String(sftp.port),
        SFTP_USERNAME: 'listmatch',
        SFTP_PRIVATE_KEY_FILE: join(keyDir, 'id_rsa'),
        SFTP_HOST_KEY_SHA256: `SHA256:${'A'.repeat(43)}`,
        SFTP_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
        MBP_URL: `http://127.0.0.1:${mbp.port}`,
        MBP_TOKEN: 'mbp-test-key',
        FILE_DROP_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS),
        // A failed call comes back much later than this test lasts.
        MAIL_RETRY_BASE_SECONDS: '600',
        DELIVERY_RETRY_BASE_SECONDS: '600',
        ONBOARDING_CHECK_SECONDS: '600',
        // Two slots for each kind of call, one of them at most for one key's deliveries or
        // audiences: key A's three silent calls of each kind take one, never the other.
        MAIL_CONCURRENCY: '2',
        DELIVERY_CONCURRENCY: '2',
        DELIVERY_CONCURRENCY_PER_KEY: '1',
        AUDIENCE_CONCURRENCY: '2',
        AUDIENCE_CONCURRENCY_PER_KEY: '1',
        SHUTDOWN_GRACE_SECONDS: '0',
      });
      const a = await service.createKey({ name: 'client whose follow-ups never get an answer' });
      const b = await service.createKey({ name: 'another client' });

      // Key B's lists are dropped in its folder and become audiences too: while the servers refuse,
      // those calls fail at once.
      const audience = (name: string) => `&mbp_onboarding=true&digital_audience_name=${name}`;
      const timed = (filename: string, query: string) =>
        timedMatch(service!, b.key, filename, { query, timeoutMs: RESULT_TIMEOUT_MS });
      const warmUp = await timed('warm_up', audience('b_warm_up'));
      const { ms: usual, jobId } = await timed('usual', audience('b_usual'));
      jobIds.push(warmUp.jobId, jobId);
      // Those calls come after the result: let them be refused before the servers fall silent.
      const refused = async () =>
        (await followUpsTried(service!, warmUp.jobId)) && (await followUpsTried(service!, jobId));
      await until(refused, "key B's first follow-ups, refused", RESULT_TIMEOUT_MS);

      for (const server of [smtp, sftp, mbp]) server.stall();
      await threeOneRowJobs(service, a.key, 'silent', {
        query: (n) => `${audience(`a_${n}`)}&notification_email=ops@client-a.example`,
        timeoutMs: RESULT_TIMEOUT_MS,
        made: jobIds,
      });
      const calling = () => [smtp, sftp, mbp].every((server) => server.acceptedAt.length >= 1);
      await until(calling, "an e-mail, a delivery and an audience call of key A's", RESULT_TIMEOUT_MS);
      // Room for key A's other deliveries and audiences to take the lanes' second slots, were they allowed to.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = { sftp: sftp.acceptedAt.length, mbp: mbp.acceptedAt.length };

      const beside = await timed('beside_silence', audience('b_beside'));
      jobIds.push(beside.jobId);
      const held = beside.ms;
      const completedAt = Date.now();
      t.diagnostic(
        `${usual} ms alone, ${held} ms beside ${smtp.acceptedAt.length} e-mail, ${before.sftp} SFTP and ${before.mbp} MBP call(s) that never answer`,
      );
      assertNotHeldUp(held, usual, 'silent follow-ups');
      for (const [what, server, earlier] of [
        ['folder delivery', sftp, before.sftp],
        ['audience call', mbp, before.mbp],
      ] as const) {
        await until(() => server.acceptedAt.length > earlier, `key B's ${what}`, 2 * TIMEOUT_SECONDS * 1000);
        const late = server.acceptedAt[earlier]! - completedAt;
        assert.ok(late <= 1000, `key B's ${what} started ${late} ms after its result was ready`);
      }
      assert.deepEqual(
        before,
        { sftp: 1, mbp: 1 },
        "key A's other deliveries and audiences wait in the queue, not in a slot",
      );
    });
  });
}

onEachQueueBackend('follow-up-isolation-test-secret-0123456789', isolationSuite);
