import { once } from 'node:events';
import { closeSync, createReadStream, fsyncSync, openSync, writeSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { type IncomingMessage, request } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  createApiKey,
  getJson,
  log,
  procCpuMs,
  procStatusBytes,
  sampleRss,
  startService,
  tempDir,
} from '../lib/processes.ts';
import type { Recorder } from '../lib/report.ts';
import { type BenchOptions, median } from './options.ts';

const MIB = 1024 ** 2;
const UPLOAD_BYTES = 1024 * MIB;
const UPLOAD_TIMEOUT_MS = 300_000;

/** 1 MiB of contact-list-like CSV lines from a small deterministic generator. */
function csvLikeChunk(): Buffer {
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
  const letters = (n: number) => {
    let out = '';
    for (let i = 0; i < n; i++) out += String.fromCharCode(65 + (next() % 26));
    return out;
  };
  const digits = (n: number) => String(next() % 10 ** Math.min(n, 9)).padStart(n, '0');
  const lines: string[] = [];
  let length = 0;
  for (let row = 1; length < MIB; row++) {
    const line = [
      `MB${String(row).padStart(7, '0')}`,
      letters(3 + (next() % 6)),
      letters(4 + (next() % 8)),
      `${1 + (next() % 9999)} ${letters(6)} ST`,
      letters(8),
      letters(2),
      digits(5),
      digits(10),
      `${letters(6).toLowerCase()}@example.com`,
    ].join(',');
    lines.push(line);
    length += line.length + 1;
  }
  const chunk = Buffer.from(`${lines.join('\n')}\n`, 'latin1').subarray(0, MIB);
  chunk[MIB - 1] = 0x0a;
  return chunk;
}

/** Writes UPLOAD_BYTES by repeating one 1 MiB chunk (the first one starts with a header), and syncs it. */
function writeUploadFile(path: string): void {
  const chunk = csvLikeChunk();
  const header = Buffer.from('matchback_id,first_name,last_name,address1,city,state,zip,voter_id,email\n');
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, header);
    writeSync(fd, chunk, 0, MIB - header.length);
    for (let written = MIB; written < UPLOAD_BYTES; written += MIB) writeSync(fd, chunk);
    // Flush it to disk now, so that its write-back does not compete with the upload being measured.
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** PUTs `path` to `url` with Content-Length, streaming from disk; resolves with the status and body. */
async function put(url: string, path: string, bytes: number): Promise<{ status: number; body: string }> {
  const signal = AbortSignal.timeout(UPLOAD_TIMEOUT_MS);
  const req = request(url, {
    method: 'PUT',
    headers: { 'content-type': 'text/csv', 'content-length': String(bytes) },
    signal,
  });
  const response = once(req, 'response', { signal }) as Promise<[IncomingMessage]>;
  // If the server answers early (e.g. 413) the pipeline may fail with EPIPE: prefer its answer.
  const sent = pipeline(createReadStream(path, { highWaterMark: MIB }), req, { signal }).catch(
    (error: unknown) => error,
  );
  const [res] = await response;
  let body = '';
  res.setEncoding('utf8');
  for await (const chunk of res) body += chunk;
  const sendError = await sent;
  if (sendError !== undefined && res.statusCode === 200) throw sendError;
  return { status: res.statusCode ?? 0, body };
}

async function findFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/**
 * 1 GiB PUTs to presigned upload URLs (one new job each, `runs` times): median throughput and the
 * server's resident memory across all of them.
 */
export async function uploadBenchmark(recorder: Recorder, options: BenchOptions): Promise<void> {
  const dir = await tempDir('upload');
  try {
    const file = join(dir.path, 'upload.csv');
    const started = performance.now();
    writeUploadFile(file);
    const generateMs = performance.now() - started;
    log(`upload: generated ${UPLOAD_BYTES / MIB} MiB in ${(generateMs / 1000).toFixed(1)} s`);

    const dataDir = join(dir.path, 'data');
    const service = await startService({
      dataDir,
      env: { MAX_UPLOAD_BYTES: String(4 * 1024 * MIB) },
      nodeArgs: options.profileArgs('upload', 'server'),
    });
    try {
      const key = await createApiKey(dataDir);
      const rss = sampleRss(service.pid, 100);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const baselineSamples = rss.samples.map((s) => s.bytes).sort((a, b) => a - b);
      const baseline = baselineSamples[Math.floor(baselineSamples.length / 2)]!;
      const hwmBefore = procStatusBytes(service.pid, 'VmHWM');

      const runs: {
        seconds: number;
        mbPerSecond: number;
        peakRssBytes: number;
        serverCpuShare: { user: number; system: number } | null;
        clientCpuShare: number;
      }[] = [];
      const states: string[] = [];
      const storedSizes: number[] = [];
      for (let run = 1; run <= options.runs; run++) {
        const filename = `bench_upload_${run}.csv`;
        const registered = await getJson(`${service.url}/service/smartmatch?filename=${filename}`, key);
        if (typeof registered.url !== 'string' || registered.url === '') {
          throw new Error(`registration gave no upload URL: ${JSON.stringify(registered)}`);
        }
        const jobId = new URL(registered.url).pathname.split('/')[2] ?? '';
        log(`upload: PUT ${UPLOAD_BYTES / MIB} MiB (run ${run} of ${options.runs})`);
        const firstSample = rss.samples.length;
        const serverCpuBefore = procCpuMs(service.pid);
        const clientCpuBefore = process.cpuUsage();
        const started = performance.now();
        const answer = await put(registered.url, file, UPLOAD_BYTES);
        const seconds = (performance.now() - started) / 1000;
        const clientCpu = process.cpuUsage(clientCpuBefore);
        const serverCpuAfter = procCpuMs(service.pid);
        if (answer.status !== 200) throw new Error(`upload answered ${answer.status}: ${answer.body}`);
        const peakRssBytes = Math.max(...rss.samples.slice(firstSample).map((s) => s.bytes), 0);
        runs.push({
          seconds,
          mbPerSecond: UPLOAD_BYTES / 1e6 / seconds,
          peakRssBytes,
          // Share of one core used during the upload: shows which side (if any) is CPU-bound.
          serverCpuShare:
            serverCpuBefore === null || serverCpuAfter === null
              ? null
              : {
                  user: (serverCpuAfter.user - serverCpuBefore.user) / 1000 / seconds,
                  system: (serverCpuAfter.system - serverCpuBefore.system) / 1000 / seconds,
                },
          clientCpuShare: (clientCpu.user + clientCpu.system) / 1e6 / seconds,
        });
        log(`upload: ${(UPLOAD_BYTES / 1e6 / seconds).toFixed(0)} MB/s`);

        const polled = await getJson(`${service.url}/service/smartmatch/poll?filename=${filename}`, key);
        states.push(String(polled.status));
        const stored = (await findFiles(join(dataDir, 'blobs', 'uploads', jobId))).filter((f) =>
          f.endsWith('.csv'),
        );
        storedSizes.push(stored.length === 1 ? (await stat(stored[0]!)).size : -stored.length);
      }
      const samples = rss.stop();
      const hwmAfter = procStatusBytes(service.pid, 'VmHWM');

      const peak = Math.max(...runs.map((r) => r.peakRssBytes));
      const rates = runs.map((r) => r.mbPerSecond);
      const mbPerSecond = median(rates);
      const mid = runs.find((r) => r.mbPerSecond === mbPerSecond)!;
      recorder.metric(`upload throughput (median of ${runs.length})`, mbPerSecond, 'MB/s', {
        target: { min: 200 },
        note:
          `1 GiB (${UPLOAD_BYTES.toLocaleString('en-US')} bytes) in ${mid.seconds.toFixed(2)} s = ${(UPLOAD_BYTES / MIB / mid.seconds).toFixed(0)} MiB/s; ` +
          `runs ${rates.map((r) => r.toFixed(0)).join(', ')} MB/s; CPU during that upload: server ${serverShare(mid.serverCpuShare)}, ` +
          `client (this process) ${share(mid.clientCpuShare)} of one core (2 cores in all)`,
      });
      recorder.metric('server RSS growth (peak − baseline)', (peak - baseline) / MIB, 'MiB', {
        digits: 1,
        target: { max: 150 },
        note: `baseline ${(baseline / MIB).toFixed(0)} MiB, peak ${(peak / MIB).toFixed(0)} MiB (VmRSS every 100 ms, ${samples.length} samples over all uploads); VmHWM ${mib(hwmBefore)} → ${mib(hwmAfter)} MiB`,
      });
      recorder.check('job states after upload', states.join(', '), runs.map(() => 'uploaded').join(', '));
      recorder.check(
        'stored upload sizes',
        storedSizes.map((n) => (n < 0 ? `${-n} files` : n.toLocaleString('en-US'))).join(', '),
        runs.map(() => UPLOAD_BYTES.toLocaleString('en-US')).join(', '),
      );
      recorder.raw['upload'] = {
        bytes: UPLOAD_BYTES,
        generateMs,
        runs,
        mbPerSecond,
        rssBaselineBytes: baseline,
        rssPeakBytes: peak,
        vmHwmBytes: { before: hwmBefore, after: hwmAfter },
        rssSamples: samples,
      };
    } finally {
      await service.stop();
    }
  } finally {
    await dir.remove();
  }
}

const share = (value: number) => `${Math.round(value * 100)}%`;
const serverShare = (value: { user: number; system: number } | null) =>
  value === null
    ? '?'
    : `${share(value.user + value.system)} (user ${share(value.user)}, system ${share(value.system)})`;
const mib = (bytes: number | null) => (bytes === null ? '?' : (bytes / MIB).toFixed(0));
