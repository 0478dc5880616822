import { createReadStream, createWriteStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { createGunzip } from 'node:zlib';
import { joinResult } from './join-result.ts';

/**
 * `listmatch submit --join` on a thread of its own, started with a small young generation: the
 * join makes short-lived strings by the million, and the main thread's default young generation
 * would let them take over 100 MB before a scavenge.
 */
const { listPath, resultPath, gzip, outPath } = workerData as {
  listPath: string;
  resultPath: string;
  gzip: boolean;
  outPath: string;
};
const source = createReadStream(resultPath);
const result = await joinResult(
  listPath,
  gzip ? source.pipe(createGunzip()) : source,
  createWriteStream(outPath),
);
parentPort?.postMessage(result);
