import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createDeterministicMatcher } from '../../../src/domain/matching/deterministic-matcher.ts';
import type { Matcher, MatchInput } from '../../../src/domain/matching/matcher.ts';
import { prepareNcvr, runNcvrEvaluation } from '../../../src/lab/evaluation/ncvr.ts';
import { runCli } from './cli-support.ts';

// The benchmark's column layout, with made-up people.
const HEADER = 'voter_reg_num,ncid,last_name,first_name,birth_year,middle_initial,house_number,street_name';
const A = [
  HEADER,
  '100,AA1,SMITH,JOHN,1970,Q,12,MAIN ST',
  '101,AA2,DOE,JANE,1980,,5,OAK AVE',
  "102,AA3,O'BRIEN,PAT,,M,,RURAL RTE 2",
  '103,AA4,LEE,ANN,1990,B,7,ELM ST',
];
const B = [
  HEADER,
  '900,AA2,DOE-RAY,JANE,1980,,5,OAK AVE',
  '901,ZZ9,NOBODY,NO,1975,,1,NOWHERE LN',
  '100,AA1,SMITH,JON,1970,Q,12,MAIN ST',
  "102,AA3,O'BRIEN,PAT,,M,,RURAL RTE 2",
  '104,AA4,LEE,ANN,1990,B,7,ELM ST',
];

describe('eval ncvr', () => {
  let dir: string;
  let bench: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-ncvr-test-'));
    bench = join(dir, 'ncvr-dev');
    await mkdir(bench);
    await writeFile(join(bench, 'A.csv'), `${A.join('\n')}\n`);
    await writeFile(join(bench, 'B.csv'), `${B.join('\r\n')}\r\n`);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('maps A to the voter file and B to a list without ncid and voter_reg_num; truth by ncid', async () => {
    const out = await mkdtemp(join(dir, 'prepared-'));
    const prepared = await prepareNcvr(bench, out);
    assert.deepEqual([prepared.voterRows, prepared.listRows, prepared.members], [4, 5, 4]);
    const voters = (await readFile(prepared.votersPath, 'utf8')).split('\n');
    assert.deepEqual(voters.slice(0, 5), [
      'voterbase_id,state,first_name,middle_name,last_name,dob,address1,ncid',
      'NC-1,NC,JOHN,Q,SMITH,1970,12 MAIN ST,AA1',
      'NC-2,NC,JANE,,DOE,1980,5 OAK AVE,AA2',
      "NC-3,NC,PAT,M,O'BRIEN,,RURAL RTE 2,AA3",
      'NC-4,NC,ANN,B,LEE,1990,7 ELM ST,AA4',
    ]);
    const list = await readFile(prepared.listPath, 'utf8');
    assert.deepEqual(list.split('\n').slice(0, 6), [
      'matchback_id,first_name,middle_name,last_name,address1,state,age',
      '1,JANE,,DOE-RAY,5 OAK AVE,NC,45',
      '2,NO,,NOBODY,1 NOWHERE LN,NC,50',
      '3,JON,Q,SMITH,12 MAIN ST,NC,55',
      "4,PAT,M,O'BRIEN,RURAL RTE 2,NC,",
      '5,ANN,B,LEE,7 ELM ST,NC,35',
    ]);
    assert.ok(!/AA\d|ZZ9|\b(900|901|100|102|104)\b/.test(list), 'no ncid and no voter_reg_num in the list');
    assert.deepEqual(Object.fromEntries(prepared.truth), {
      '1': { voterbaseIds: ['NC-2'], pattern: 'name_address_age', errors: ['last_name_changed'] },
      '2': { voterbaseIds: [], pattern: 'name_address_age', errors: [] },
      '3': { voterbaseIds: ['NC-1'], pattern: 'name_address_age', errors: ['first_name_changed'] },
      '4': { voterbaseIds: ['NC-3'], pattern: 'name_address_age', errors: [] },
      '5': { voterbaseIds: ['NC-4'], pattern: 'name_address_age', errors: [] },
    });
  });

  test('the default matcher finds the members from name, address and age, and not the stranger', async () => {
    // O'BRIEN's row has no birth year and a rural route without a box: a name and a route that
    // many households share are not evidence enough, so 3 of the 4 members are found.
    const result = await runNcvrEvaluation({ dir: bench });
    assert.equal(result.skipped, false);
    if (result.skipped) return;
    const o = result.metrics.overall;
    assert.deepEqual([o.rows, o.members, o.nonMembers, o.nonMemberPredicted, o.wrongVoter], [5, 4, 1, 0, 0]);
    assert.equal(o.correct, 3);
    assert.equal(o.predictions, 3);
  });

  test('the deterministic matcher finds nothing (no ids are sent): recall 0, precision n/a', async () => {
    const work = await mkdtemp(join(dir, 'work-'));
    const result = await runNcvrEvaluation({
      dir: bench,
      workDir: work,
      matcherFactory: createDeterministicMatcher,
    });
    assert.equal(result.skipped, false);
    if (result.skipped) return;
    assert.deepEqual(await readdir(work), [], 'scratch files removed');
    const o = result.metrics.overall;
    assert.deepEqual([o.rows, o.members, o.nonMembers, o.predictions], [5, 4, 1, 0]);
    assert.equal(o.recall, 0);
    assert.equal(o.precision, null);
  });

  test('a matcher sees only name, address, state and age, as of 2026-01-01; its matches are scored', async () => {
    const seen: MatchInput[] = [];
    let asOf: Date | null = null;
    const result = await runNcvrEvaluation({
      dir: bench,
      matcherFactory: (voters) => {
        const cols = ['first_name', 'last_name', 'address1'].map((c) => voters.columnIndex(c));
        const key = (values: (string | undefined)[]) => values.map((v) => v ?? '').join('|');
        const index = new Map<string, number>();
        for (let i = 0; i < voters.size; i++) index.set(key(voters.fields(i, cols)), i);
        const matcher: Matcher = {
          name: 'exact-name-address',
          matchBatch: (rows, options) => {
            asOf = options.asOf;
            seen.push(...rows);
            return rows.map((r) => {
              const voter = index.get(key([r.fields.first_name, r.fields.last_name, r.fields.address1]));
              return {
                candidates: voter === undefined ? [] : [{ voter, score: 97, method: 'name_address' }],
              };
            });
          },
        };
        return matcher;
      },
    });
    assert.equal(result.skipped, false);
    if (result.skipped) return;
    assert.equal(asOf!.toISOString(), '2026-01-01T00:00:00.000Z');
    assert.deepEqual(seen[0]!.fields, {
      first_name: 'JANE',
      last_name: 'DOE-RAY',
      address1: '5 OAK AVE',
      state: 'NC',
      age: '45',
    });
    for (const row of seen) assert.ok(!('voterbase_id' in row.fields) && !('voter_id' in row.fields));
    const o = result.metrics.overall;
    assert.deepEqual([o.predictions, o.correct], [2, 2]);
    assert.equal(o.precision, 1);
    assert.equal(o.recall, 0.5);
    const tags = Object.fromEntries(result.metrics.byErrorTag.map((t) => [t.tag, t.recall]));
    assert.deepEqual(tags, { '(none)': 1, first_name_changed: 0, last_name_changed: 0 });
  });

  test('listmatch eval ncvr prints best-match precision and recall', async () => {
    const out = await runCli(['eval', 'ncvr', '--dir', bench]);
    assert.match(out, /North Carolina voter benchmark/);
    assert.match(out, /list \(B\) +5 rows, 4 with a true match in A/);
    assert.match(out, /precision +recall/);
  });

  test('a missing benchmark folder prints a skip message and succeeds', async () => {
    const missing = join(dir, 'nowhere');
    assert.deepEqual(await runNcvrEvaluation({ dir: missing }), {
      skipped: true,
      reason: `the NC benchmark is not available: ${join(missing, 'A.csv')} does not exist`,
    });
    const out = await runCli(['eval', 'ncvr', '--dir', missing]);
    assert.match(
      out,
      /^eval ncvr: skipped: the NC benchmark is not available: .*nowhere\/A\.csv does not exist/,
    );
  });
});
