import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createDeterministicMatcher } from '../../../src/domain/matching/deterministic-matcher.ts';
import type { Matcher } from '../../../src/domain/matching/matcher.ts';
import { runEvaluation } from '../../../src/lab/evaluation/run-evaluation.ts';
import { runCli } from './cli-support.ts';

const VOTERS = [
  'voterbase_id,state,voter_id,first_name,last_name,dob,party',
  'NC-1,NC,0000001,ANN,LEE,19800101,DEM',
  'NC-2,NC,0000002,BOB,RAY,19700202,REP',
  'NC-3,NC,0000003,CY,DOE,19600303,UNA',
  'NC-4,NC,0000004,DEE,DOE,19650404,DEM',
  'NC-5,NC,0000005,ED,FOX,19900505,REP',
  'NC-6,NC,0000006,FAY,GUY,19950606,UNA',
];

/**
 * m1 id → right voter; m2 voter_id without leading zeros → right; m3 id of the wrong person;
 * m4 no id → missed; m5 a non-member that matches; m6 a non-member left alone; m7 a couple
 * row matched to one of the two; m8 two ids, the true voter at rank 2; =m9 not in the truth
 * (and a matchback_id that the writer must return byte for byte).
 */
const LIST = [
  'matchback_id,voterbase_id,voter_id,state,first_name,last_name',
  'm1,NC-1,,NC,ANN,LEE',
  'm2,,2,NC,BOB,RAY',
  'm3,NC-3,,NC,DEE,DOE',
  'm4,,,NC,ED,FOX',
  'm5,NC-6,,NC,ZED,ZOO',
  'm6,,,NC,NO,BODY',
  'm7,NC-4,,NC,CY,DOE',
  'm8,NC-3,5,NC,ED,FOX',
  '=m9,NC-1,,NC,ANN,LEE',
];
const TRUTH = [
  'matchback_id,voterbase_id,pattern,errors',
  'm1,NC-1,ids,',
  'm2,NC-2,ids,leading_zeros',
  'm3,NC-4,ids,wrong_id',
  'm4,NC-5,name_only,',
  'm5,,ids,near_twin',
  'm6,,name_only,',
  'm7,NC-3|NC-4,ids,couple',
  'm8,NC-5,ids,wrong_id',
  'm10,NC-2,ids,',
];

describe('runEvaluation end to end (deterministic ids)', () => {
  let dir: string;
  const paths = { voters: '', list: '', truth: '', truth2: '' };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-eval-test-'));
    paths.voters = join(dir, 'voters.csv');
    paths.list = join(dir, 'list.csv');
    paths.truth = join(dir, 'truth.csv');
    paths.truth2 = join(dir, 'truth2.csv');
    await writeFile(paths.voters, `${VOTERS.join('\n')}\n`);
    await writeFile(paths.list, `${LIST.join('\n')}\n`);
    await writeFile(paths.truth, `${TRUTH.join('\n')}\n`);
    await writeFile(
      paths.truth2,
      `matchback_id,voterbase_id\n${TRUTH.slice(1)
        .map((l) => l.split(',').slice(0, 2).join(','))
        .join('\n')}\n`,
    );
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('exact precision, recall, recall@k, per pattern, per method, per error tag; the scratch dir is removed', async () => {
    const work = await mkdtemp(join(dir, 'work-'));
    const result = await runEvaluation({
      votersPath: paths.voters,
      listPath: paths.list,
      truthPath: paths.truth,
      maxMatches: 2,
      workDir: work,
      matcherFactory: createDeterministicMatcher,
    });
    assert.deepEqual(await readdir(work), [], 'scratch data dir removed');
    const o = result.metrics.overall;
    assert.equal(result.matcher, 'deterministic');
    assert.deepEqual(
      [o.rows, o.members, o.nonMembers, o.predictions, o.correct, o.wrongVoter, o.nonMemberPredicted],
      [8, 6, 2, 6, 3, 2, 1],
    );
    assert.equal(o.precision, 0.5);
    assert.equal(o.recall, 0.5);
    assert.equal(o.f1, 0.5);
    assert.deepEqual(o.recallAtK, [3 / 6, 4 / 6]);
    assert.deepEqual(result.join, {
      scoredRows: 8,
      rowsWithoutTruth: 1,
      truthWithoutRow: 1,
      duplicateMatchbackIds: 0,
    });

    const ids = result.metrics.byPattern.find((p) => p.pattern === 'ids')!;
    const nameOnly = result.metrics.byPattern.find((p) => p.pattern === 'name_only')!;
    assert.deepEqual([ids.rows, ids.members, ids.predictions, ids.correct], [6, 5, 6, 3]);
    assert.deepEqual([nameOnly.rows, nameOnly.members, nameOnly.predictions, nameOnly.correct], [2, 1, 0, 0]);
    assert.equal(nameOnly.precision, null);
    assert.equal(nameOnly.recall, 0);

    assert.deepEqual(
      result.metrics.byMethod.map((m) => [m.method, m.predictions, m.correct]),
      [
        ['voterbase_id', 5, 2],
        ['voter_id', 1, 1],
      ],
    );
    const tags = Object.fromEntries(
      result.metrics.byErrorTag.map((t) => [t.tag, [t.rows, t.predictions, t.correct]]),
    );
    assert.deepEqual(tags, {
      '(none)': [3, 1, 1],
      couple: [1, 1, 1],
      leading_zeros: [1, 1, 1],
      near_twin: [1, 1, 0],
      wrong_id: [2, 2, 0],
    });
    // Every id match scores 100: one band, the threshold curve is flat up to 100.
    assert.equal(result.metrics.calibration[9]!.count, 6);
    assert.equal(result.metrics.calibration[9]!.fractionCorrect, 0.5);
    assert.equal(result.metrics.expectedCalibrationError, 0.5);
    assert.equal(result.metrics.thresholdCurve[100]!.predictions, 6);

    assert.equal(result.timings.importRows, 6);
    assert.equal(result.timings.matchRows, 9);
    assert.ok(result.timings.importRowsPerSecond > 0 && result.timings.matchRowsPerSecond > 0);
    assert.equal(result.pipeline.matchedRows, 7);
  });

  test('a truth file with only matchback_id and voterbase_id puts every row in pattern "all"', async () => {
    const result = await runEvaluation({
      votersPath: paths.voters,
      listPath: paths.list,
      truthPath: paths.truth2,
      maxMatches: 1,
      matcherFactory: createDeterministicMatcher,
    });
    assert.deepEqual(
      result.metrics.byPattern.map((p) => p.pattern),
      ['all'],
    );
    assert.equal(result.metrics.overall.precision, 0.5);
    assert.deepEqual(
      result.metrics.byErrorTag.map((t) => t.tag),
      ['(none)'],
    );
  });

  test('a matcher factory plugs in another matcher', async () => {
    const result = await runEvaluation({
      votersPath: paths.voters,
      listPath: paths.list,
      truthPath: paths.truth,
      maxMatches: 1,
      // Matches every row to the voter whose last name is the row's, at score 60.
      matcherFactory: (voters) => {
        const last = voters.columnIndex('last_name');
        const byLast = new Map<string, number>();
        for (let i = voters.size - 1; i >= 0; i--) byLast.set(voters.record(i)[last]!, i);
        const matcher: Matcher = {
          name: 'by-last-name',
          matchBatch: (rows) =>
            rows.map((r) => {
              const voter = byLast.get(r.fields.last_name ?? '');
              return { candidates: voter === undefined ? [] : [{ voter, score: 60, method: 'last_name' }] };
            }),
        };
        return matcher;
      },
    });
    // LEE→NC-1 ✓, RAY→NC-2 ✓, DOE→NC-3 ✗ (m3 wants NC-4), FOX→NC-5 ✓, ZOO none, BODY none,
    // DOE→NC-3 ✓ (couple), FOX→NC-5 ✓.
    const o = result.metrics.overall;
    assert.equal(result.matcher, 'by-last-name');
    assert.deepEqual([o.predictions, o.correct], [6, 5]);
    assert.equal(o.recall, 5 / 6);
    assert.deepEqual(
      result.metrics.byMethod.map((m) => m.method),
      ['last_name'],
    );
    assert.equal(result.metrics.calibration[6]!.count, 6);
    assert.equal(result.metrics.thresholdCurve[60]!.predictions, 6);
    assert.equal(result.metrics.thresholdCurve[61]!.predictions, 0);
  });

  test('bad inputs give clear errors', async () => {
    await assert.rejects(
      runEvaluation({
        votersPath: paths.voters,
        listPath: paths.list,
        truthPath: paths.truth,
        maxMatches: 0,
      }),
      /max matches must be an integer from 1 to 10/,
    );
    const noMatchback = join(dir, 'no-matchback.csv');
    await writeFile(noMatchback, 'voterbase_id,state\nNC-1,NC\n');
    await assert.rejects(
      runEvaluation({
        votersPath: paths.voters,
        listPath: noMatchback,
        truthPath: paths.truth,
        maxMatches: 1,
      }),
      /no matchback_id column/,
    );
    const badTruth = join(dir, 'bad-truth.csv');
    await writeFile(badTruth, 'id,voter\n1,2\n');
    await assert.rejects(
      runEvaluation({ votersPath: paths.voters, listPath: paths.list, truthPath: badTruth, maxMatches: 1 }),
      /truth file has no matchback_id and no voterbase_id column/,
    );
    const dupTruth = join(dir, 'dup-truth.csv');
    await writeFile(dupTruth, 'matchback_id,voterbase_id\nm1,NC-1\nm1,NC-2\n');
    await assert.rejects(
      runEvaluation({ votersPath: paths.voters, listPath: paths.list, truthPath: dupTruth, maxMatches: 1 }),
      /line 3: matchback_id repeats/,
    );
  });

  test('listmatch eval prints the tables, writes the report, and --json prints the figures', async () => {
    const report = join(dir, 'report.html');
    const out = await runCli([
      'eval',
      '--voters',
      paths.voters,
      '--list',
      paths.list,
      '--truth',
      paths.truth,
      '--max-matches',
      '2',
      '--report',
      report,
    ]);
    assert.match(out, /Overall \(best match = rank 1\)/);
    assert.match(out, /Per input pattern/);
    assert.match(out, /recall@1 {2}recall@2/);
    assert.match(out, /Best matches per method/);
    assert.match(out, /Per error tag/);
    assert.match(out, /Calibration/);
    assert.match(out, /not scored +1 list rows without truth, 1 truth rows not in the list/);
    const html = await readFile(report, 'utf8');
    assert.equal(html.match(/<svg /g)?.length, 4);

    const json = JSON.parse(
      await runCli([
        'eval',
        '--voters',
        paths.voters,
        '--list',
        paths.list,
        '--truth',
        paths.truth,
        '--matcher',
        'deterministic',
        '--json',
      ]),
    );
    assert.equal(json.metrics.overall.precision, 0.5);
    assert.equal(json.report, null);
  });

  test('listmatch eval names missing and wrong arguments', async () => {
    await assert.rejects(runCli(['eval', '--voters', paths.voters]), /eval needs --list, --truth/);
    await assert.rejects(runCli(['eval', 'nope']), /unknown benchmark "nope"/);
    await assert.rejects(
      runCli(['eval', '--voters', 'v', '--list', 'l', '--truth', 't', '--max-matches', '11']),
      /--max-matches/,
    );
    await assert.rejects(runCli(['eval', 'ncvr', '--voters', 'v']), /eval ncvr takes no --voters/);
  });
});
