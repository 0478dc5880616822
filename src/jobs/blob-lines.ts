import { createInterface } from 'node:readline';
import type { BlobStore } from '../domain/ports/blob-store.ts';

/**
 * The non-empty lines of a blob, streamed. The file is closed however the consumer stops: closing
 * readline (a consumer that breaks out early) leaves its input stream open.
 */
export async function* blobLines(blobs: BlobStore, key: string): AsyncGenerator<string> {
  const input = await blobs.read(key);
  try {
    const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of lines) if (line !== '') yield line;
  } finally {
    input.destroy();
  }
}
