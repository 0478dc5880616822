import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/start/server.ts';
import { startFakeMetaGraph } from '../../test/support/fake-meta-graph.ts';
import { freePort } from '../../test/support/test-service.ts';
import { log } from '../lib/processes.ts';
import { formatNumber, type Recorder } from '../lib/report.ts';
import type { BenchOptions } from './options.ts';
import type { VoterFixture } from './voters.ts';

const OPERATOR_ACCOUNT = '1111111111';
const CLIENT_ACCOUNT = '2222222222';
const TARGET_SECONDS = 120;

/**
 * A whole Pattern #1 social onboarding of every voter of the 1M fixture, through the service as a
 * client drives it (register, PUT the ids, then the worker: voter lookups, normalization and
 * hashing, 100 batches of 10,000 rows to the local contract server of the Graph API, share,
 * readiness), timed from the upload to the job's completion. The local server checks every batch
 * in the same process, so the figure is an upper bound of our own share. Target ≤ 2 minutes.
 */
export async function onboardingJobBenchmark(
  recorder: Recorder,
  _options: BenchOptions,
  fixture: VoterFixture,
): Promise<void> {
  const dataDir = await fixture.importedDataDir();
  const ids = join(fixture.root, 'onboarding-ids.csv');
  const rows = await writeIds(fixture.voterCsv, ids);
  const meta = await startFakeMetaGraph({ adAccounts: [OPERATOR_ACCOUNT, CLIENT_ACCOUNT] });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const running = await startService(
    loadConfig({
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: base,
      LOG_LEVEL: 'silent',
      QUEUE_POLL_MS: '20',
      META_GRAPH_URL: meta.url,
      META_API_VERSION: meta.version,
      META_AD_ACCOUNT_ID: OPERATOR_ACCOUNT,
      META_ACCESS_TOKEN: meta.token,
      ONBOARDING_CHECK_SECONDS: '0.2',
    }),
    { handleSignals: false },
  );
  try {
    const { key } = await running.services.keys.createKey({ name: 'onboarding bench' });
    const registered = await fetch(
      `${base}/service/onboarding?platform=social&audience=bench_1m&status_email=ops@bench.example&social_adid=act_${CLIENT_ACCOUNT}`,
      { headers: { 'x-api-key': key } },
    );
    const { url } = (await registered.json()) as { url: string };
    const jobId = /files\/(job_[^/]+)\//.exec(url)![1]!;
    log(`onboarding-job: uploading ${formatNumber(rows)} voterbase_ids, then waiting for the job`);
    const started = performance.now();
    const put = await fetch(url, {
      method: 'PUT',
      body: createReadStream(ids) as unknown as RequestInit['body'],
      duplex: 'half',
      headers: { 'content-length': String((await stat(ids)).size) },
    } as RequestInit);
    if (put.status !== 200) throw new Error(`upload answered ${put.status}`);
    let job = (await running.services.jobStore.getJob(jobId))!;
    while (job.state !== 'complete' && job.state !== 'failed') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = (await running.services.jobStore.getJob(jobId))!;
    }
    const seconds = (performance.now() - started) / 1000;
    const run = await running.services.onboarding.get(jobId);
    recorder.check('onboarding job state', job.state, 'complete', job.state === 'complete', job.error ?? '');
    recorder.metric(
      'onboarding: 1M-id Pattern #1 social audience, upload to ready (local Graph API server)',
      seconds,
      's',
      {
        target: { max: TARGET_SECONDS },
        digits: 1,
        note: `${formatNumber(run?.counts.sent ?? 0)} of ${formatNumber(rows)} rows sent in ${formatNumber(run?.nextBatchSeq ? run.nextBatchSeq - 1 : 0)} batches; ${formatNumber(rows / seconds)} rows/s`,
      },
    );
    const audience = [...meta.audiences.values()].find((a) => a.name === 'bench_1m');
    recorder.check(
      'audience members at the local platform',
      formatNumber(audience?.members.size ?? 0),
      formatNumber(run?.counts.usable ?? -1),
    );
  } finally {
    await running.stop();
    await meta.close();
  }
}

/** The fixture's voterbase_ids (its first column) as an onboarding upload. */
async function writeIds(voterCsv: string, path: string): Promise<number> {
  const out = createWriteStream(path);
  out.write('voterbase_id\n');
  let rows = 0;
  let header = true;
  let chunk: string[] = [];
  for await (const line of createInterface({
    input: createReadStream(voterCsv),
    crlfDelay: Number.POSITIVE_INFINITY,
  })) {
    if (header) {
      header = false;
      continue;
    }
    chunk.push(line.slice(0, line.indexOf(',')));
    rows++;
    if (chunk.length === 10_000) {
      if (!out.write(`${chunk.join('\n')}\n`))
        await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = [];
    }
  }
  if (chunk.length > 0) out.write(`${chunk.join('\n')}\n`);
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return rows;
}
