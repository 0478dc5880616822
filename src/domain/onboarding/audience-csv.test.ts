import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import type { FileDropProfile } from '../ports/file-drop-audiences.ts';
import { type AudienceCsvCounts, type AudienceRow, audienceCsv } from './audience-csv.ts';

const sha = (value: string) => createHash('sha256').update(value).digest('hex');

const hashedProfile: FileDropProfile = {
  platform: 'hashed',
  displayName: 'the hashed platform',
  columns: { EMAIL: 'email_sha256', FN: 'first_name_sha256', MADID: 'maid' },
  hashing: 'sha256-hex',
  unhashedKeys: ['MADID'],
  readiness: 'external',
  maxFileBytes: 1024,
  maxNameLength: 10,
};
const plainProfile: FileDropProfile = {
  ...hashedProfile,
  platform: 'plain',
  displayName: 'the plain platform',
  columns: { VOTERBASE_ID: 'voterbase_id', EMAIL: 'email', FN: 'first_name' },
  hashing: 'none',
  unhashedKeys: [],
};

async function render(
  profile: FileDropProfile,
  keys: Parameters<typeof audienceCsv>[1],
  rows: AudienceRow[],
) {
  const counts: AudienceCsvCounts = { rows: 0, blank: 0 };
  const chunks: Buffer[] = [];
  for await (const chunk of audienceCsv(profile, keys, rows, counts)) chunks.push(chunk);
  return { text: Buffer.concat(chunks).toString('utf8'), counts };
}

test('the header is the platform’s column names in the given key order; blank rows are dropped and counted', async () => {
  const { text, counts } = await render(
    hashedProfile,
    ['MADID', 'EMAIL'],
    [
      { EMAIL: sha('a@example.com'), MADID: 'ab12-cd' },
      {},
      { EMAIL: '', MADID: '' },
      { EMAIL: sha('b@example.com') },
    ],
  );
  assert.equal(text, `maid,email_sha256\nab12-cd,${sha('a@example.com')}\n,${sha('b@example.com')}\n`);
  assert.deepEqual(counts, { rows: 2, blank: 2 });
});

test('plain values are quoted as CSV needs and never formula-neutralized (they are data)', async () => {
  const { text } = await render(
    plainProfile,
    ['VOTERBASE_ID', 'FN'],
    [{ VOTERBASE_ID: 'OH-1', FN: '=Mary, "Ann"' }],
  );
  assert.equal(text, 'voterbase_id,first_name\nOH-1,"=Mary, ""Ann"""\n');
});

test('a hashed platform refuses a plain value, naming row and column but not the value', async () => {
  await assert.rejects(
    render(hashedProfile, ['EMAIL'], [{ EMAIL: sha('a@example.com') }, { EMAIL: 'secret@example.com' }]),
    (error: Error & { code?: string }) => {
      assert.equal(error.code, 'VALIDATION_FAILED');
      assert.match(error.message, /row 2, column EMAIL: .* never mixed/);
      assert.doesNotMatch(error.message, /secret/);
      return true;
    },
  );
  // Uppercase hex is not the platform's format either.
  await assert.rejects(render(hashedProfile, ['EMAIL'], [{ EMAIL: sha('x').toUpperCase() }]), /row 1/);
});

test('a plain platform refuses a digest: hashed and plain are never mixed in one file', async () => {
  await assert.rejects(
    render(plainProfile, ['EMAIL'], [{ EMAIL: 'a@example.com' }, { EMAIL: sha('b@example.com') }]),
    /row 2, column EMAIL: the plain platform takes plain values only/,
  );
});

test('keys the platform does not take, duplicates and no columns are refused before any row', async () => {
  await assert.rejects(render(hashedProfile, ['PHONE'], []), /the hashed platform does not take PHONE/);
  await assert.rejects(render(hashedProfile, ['EMAIL', 'EMAIL'], []), /EMAIL appears twice/);
  await assert.rejects(render(hashedProfile, [], []), /at least one column/);
});

test('output comes in bounded chunks, not one string for the whole file', async () => {
  const rows = Array.from({ length: 5000 }, (_, i) => ({ EMAIL: sha(String(i)) }));
  const sizes: number[] = [];
  for await (const chunk of audienceCsv(hashedProfile, ['EMAIL'], rows)) sizes.push(chunk.length);
  assert.ok(sizes.length > 3);
  assert.ok(Math.max(...sizes) < 70 * 1024);
});
