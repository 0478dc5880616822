import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { type AudienceRow, audienceCsv } from '../../src/domain/onboarding/audience-csv.ts';
import type {
  AudienceKey,
  FileDropProfile,
  StagedAudienceFile,
} from '../../src/domain/ports/file-drop-audiences.ts';

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** A staged file held in memory: fine for a few rows. */
export async function stagedFromRows(
  profile: FileDropProfile,
  keys: readonly AudienceKey[],
  rows: AudienceRow[],
): Promise<StagedAudienceFile & { text: string }> {
  const counts = { rows: 0, blank: 0 };
  const chunks: Buffer[] = [];
  for await (const chunk of audienceCsv(profile, keys, rows, counts)) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  return stagedFromText(body.toString('utf8'), keys, counts.rows);
}

/** A staged file with exactly this content, bypassing the staging checks (to test the platform's). */
export function stagedFromText(
  text: string,
  keys: readonly AudienceKey[],
  rows: number,
): StagedAudienceFile & { text: string } {
  const body = Buffer.from(text);
  return { keys, rows, bytes: body.length, text, open: async () => Readable.from([body]) };
}

/**
 * A large staged file generated on demand, never held whole: each open renders it again from
 * row numbers. `probe` is called before each chunk is handed over with the bytes produced so far.
 */
export async function generatedStaged(
  profile: FileDropProfile,
  keys: readonly AudienceKey[],
  rowCount: number,
  row: (i: number) => AudienceRow,
  probe: (producedBytes: number) => void = () => {},
): Promise<StagedAudienceFile> {
  const rows = function* () {
    for (let i = 0; i < rowCount; i++) yield row(i);
  };
  let bytes = 0;
  for await (const chunk of audienceCsv(profile, keys, rows())) bytes += chunk.length;
  return {
    keys,
    rows: rowCount,
    bytes,
    open: async () =>
      Readable.from(
        (async function* () {
          let produced = 0;
          for await (const chunk of audienceCsv(profile, keys, rows())) {
            produced += chunk.length;
            probe(produced);
            yield chunk;
          }
        })(),
      ),
  };
}
