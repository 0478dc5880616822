import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import { generateVoterRows, VOTER_COLUMNS } from '../../lab/synthetic/synthetic-voters.ts';
import type { OnboardingJob, OnboardingParams } from '../client-jobs/job-types.ts';
import { AppError } from '../errors.ts';
import { InMemoryVoterSnapshot } from '../voters/in-memory-voter-snapshot.ts';
import { PLATFORM_RENDERINGS } from './identifiers/platform-rendering.ts';
import { PATTERN1_SCHEMA } from './identifiers/voter-identifiers.ts';
import { patternOf, prepareAudience } from './prepare-audience.ts';

const rows = [...generateVoterRows({ rows: 200, seed: 23 })];
const voters = new InMemoryVoterSnapshot(VOTER_COLUMNS, rows);
const voterbaseId = (i: number) => rows[i]![VOTER_COLUMNS.indexOf('voterbase_id')]!;

function job(params: Partial<OnboardingParams> = {}): OnboardingJob {
  return {
    id: 'job_01PREP',
    kind: 'onboarding',
    keyId: 'key_01',
    filename: null,
    state: 'processing',
    uploadExpiresAt: 0,
    uploadBlob: 'uploads/x.csv',
    uploadBytes: 1,
    resultBlob: null,
    resultName: null,
    error: null,
    summary: null,
    voterVersion: null,
    createdAt: 0,
    updatedAt: 0,
    params: {
      platform: 'social',
      audience: 'aud',
      statusEmail: 'a@b.example',
      socialAdid: '1',
      ownerAdid: null,
      ...params,
    },
  };
}

async function prepare(csv: string, params: Partial<OnboardingParams> = {}) {
  const staged: string[][] = [];
  const prepared = await prepareAudience({
    job: job(params),
    source: Readable.from([Buffer.from(csv)]),
    voters,
    rendering: PLATFORM_RENDERINGS.meta,
    maxRowBytes: 1 << 20,
    stage: (cells) => staged.push(cells),
  });
  return { prepared, staged };
}

async function refused(csv: string, params: Partial<OnboardingParams>, message: RegExp) {
  await assert.rejects(prepare(csv, params), (error: unknown) => {
    assert.ok(error instanceof AppError && error.code === 'VALIDATION_FAILED', String(error));
    assert.match(error.message, message);
    return true;
  });
}

describe('prepareAudience', () => {
  it('chooses Pattern #2 only for social with owner_adid', () => {
    assert.equal(patternOf(job()), 1);
    assert.equal(patternOf(job({ platform: 'politicaldsp', socialAdid: null })), 1);
    assert.equal(patternOf(job({ ownerAdid: '999' })), 2);
  });

  it('Pattern #1: stages one hashed row per known id, in order; counts unknown and malformed ids', async () => {
    const csv = `VoterBase_ID\n${voterbaseId(3)}\nXX-000000000\n\n${voterbaseId(7).toLowerCase()}\n   \n${voterbaseId(3)}\n`;
    const { prepared, staged } = await prepare(csv);
    assert.equal(prepared.pattern, 1);
    assert.deepEqual(prepared.schema, PATTERN1_SCHEMA);
    assert.deepEqual(prepared.counts, { rows: 5, usable: 3, unknownIds: 1, malformed: 1, sent: 0 });
    assert.equal(staged.length, 3);
    for (const cells of staged) {
      assert.equal(cells.length, PATTERN1_SCHEMA.length);
      for (const cell of cells) assert.match(cell, /^(|[0-9a-f]{64})$/);
    }
    assert.deepEqual(staged[0], staged[2], 'the same voter gives the same cells');
    assert.notDeepEqual(staged[0], staged[1]);
  });

  it('Pattern #2: validates the header and stages the rendered identifiers', async () => {
    const csv = "email,PHONE,fn,LN,zip\nJohn_Smith@gmail.com,(650)555-1212,Mary,O'Brien,94035\n,,,,\n";
    const { prepared, staged } = await prepare(csv, { ownerAdid: '999' });
    assert.equal(prepared.pattern, 2);
    assert.deepEqual(prepared.schema, ['EMAIL', 'PHONE', 'FN', 'LN', 'ZIP']);
    assert.deepEqual(prepared.counts, { rows: 2, usable: 1, unknownIds: 0, malformed: 1, sent: 0 });
    assert.deepEqual(staged[0]!.slice(0, 3), [
      '62a14e44f765419d10fea99367361a727c12365e2520f32218d505ed9aa0f62f',
      'e323ec626319ca94ee8bff2e4c87cf613be6ea19919ed1364124e16807ab3176',
      '6915771be1c5aa0c886870b6951b03d7eafc121fea0e80a5ea83beb7c449f4ec',
    ]);
  });

  it('refuses what the platform could not take, saying why', async () => {
    await refused('', {}, /empty/);
    await refused('voterbase_id\n', {}, /no rows/);
    await refused('email\na@b.example\n', {}, /single column voterbase_id.*owner_adid/);
    await refused(`voterbase_id,name\n${voterbaseId(1)},x\n`, {}, /remove 1 other column/);
    await refused('voterbase_id\nZZ-1\nZZ-2\n', {}, /none of the 2 voterbase_id values/);
    await refused('EMAIL,PHONE2\na@b.example,1\n', { ownerAdid: '9' }, /PHONE2/);
    await refused(
      `EMAIL\na@b.example\n${'a'.repeat(64)}\n`,
      { ownerAdid: '9' },
      /EMAIL mixes SHA-256 hashed and plain values/,
    );
  });

  it('never throws on hostile cells; a 2 MiB line is skipped and counted', async () => {
    const csv = `voterbase_id\n${'\u0000\u202e😀'.repeat(50)}\n${'x'.repeat(2 << 20)}\n${voterbaseId(5)}\n`;
    const { prepared } = await prepare(csv);
    assert.equal(prepared.counts.usable, 1);
    assert.equal(prepared.counts.rows, 3);
  });
});
