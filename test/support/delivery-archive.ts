import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import yazl from 'yazl';
import { deliveryArchiveKey } from '../../src/domain/client-jobs/result-files.ts';
import type { TestService } from './test-service.ts';

/**
 * The delivery archive of a completed job, as the folder delivery copies it. The packaging step
 * writes it; where this branch runs without that step, a minimal stand-in archive (the result CSV
 * in a zip) is stored under the same key, so delivery is tested on the contract of
 * result-files.ts and not on how the archive is made.
 */
export async function deliveryArchive(t: TestService, jobId: string): Promise<Buffer> {
  const { blobs, jobStore } = t.running.services;
  const key = deliveryArchiveKey(jobId);
  if ((await blobs.stat(key)) !== null) return buffer(await blobs.read(key));
  const job = await jobStore.getJob(jobId);
  if (job === null || job.resultBlob === null) throw new Error(`job ${jobId} has no result to package`);
  const zip = new yazl.ZipFile();
  zip.addBuffer(await buffer(await blobs.read(job.resultBlob)), job.resultName ?? 'result.csv');
  zip.end();
  const archive = await buffer(zip.outputStream as unknown as Readable);
  await blobs.put(key, Readable.from([archive]));
  return archive;
}

/** The id of the newest job of `keyId` with `filename`. */
export async function jobIdOf(t: TestService, keyId: string, filename: string): Promise<string> {
  const job = await t.running.services.jobStore.findLatestByFilename(keyId, filename);
  if (job === null) throw new Error(`no job ${filename}`);
  return job.id;
}
