import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../bin/listmatch.js', import.meta.url));

function listmatch(args: string[], dataDir: string) {
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

const sha = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

describe('listmatch generate and eval, as an operator runs them', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'listmatch-generate-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test('same seed → byte-identical voter file, list and truth; another seed differs', async () => {
    for (const name of ['a', 'b']) {
      const voters = listmatch(
        [
          'generate',
          'voters',
          '--rows',
          '20000',
          '--seed',
          '11',
          '--states',
          'NC,OH',
          '--out',
          join(dir, `voters-${name}.csv`),
        ],
        dir,
      );
      assert.equal(voters.status, 0, voters.stderr);
      const list = listmatch(
        [
          'generate',
          'list',
          '--from',
          join(dir, `voters-${name}.csv`),
          '--rows',
          '2000',
          '--match-rate',
          '0.6',
          '--pattern',
          'mixed',
          '--seed',
          '4',
          '--out',
          join(dir, `list-${name}.csv`),
          '--truth',
          join(dir, `truth-${name}.csv`),
        ],
        dir,
      );
      assert.equal(list.status, 0, list.stderr);
      assert.match(list.stderr, /2000 rows: 1200 voters, 800 non-members/);
    }
    for (const file of ['voters', 'list', 'truth']) {
      assert.equal(await sha(join(dir, `${file}-a.csv`)), await sha(join(dir, `${file}-b.csv`)), file);
    }
    const other = listmatch(
      [
        'generate',
        'voters',
        '--rows',
        '20000',
        '--seed',
        '12',
        '--states',
        'NC,OH',
        '--out',
        join(dir, 'voters-c.csv'),
      ],
      dir,
    );
    assert.equal(other.status, 0, other.stderr);
    assert.notEqual(await sha(join(dir, 'voters-a.csv')), await sha(join(dir, 'voters-c.csv')));
  });

  test('eval scores the generated list: id rows are found exactly, others wait for the probabilistic matcher', async () => {
    const result = listmatch(
      [
        'eval',
        '--voters',
        join(dir, 'voters-a.csv'),
        '--list',
        join(dir, 'list-a.csv'),
        '--truth',
        join(dir, 'truth-a.csv'),
        '--json',
      ],
      dir,
    );
    assert.equal(result.status, 0, result.stderr);
    const metrics = JSON.parse(result.stdout).metrics;
    assert.equal(metrics.overall.rows, 2000);
    assert.equal(metrics.overall.members, 1200);
    const ids = (
      metrics.byPattern as { pattern: string; members: number; precision: number; recall: number }[]
    ).find((group) => group.pattern === 'ids')!;
    assert.ok(ids.members > 0);
    assert.equal(ids.precision, 1);
    assert.equal(ids.recall, 1);
  });

  test('bad arguments give clear errors and a non-zero exit', () => {
    const cases: [string[], RegExp][] = [
      [
        ['generate', 'voters', '--rows', 'many', '--out', join(dir, 'x.csv')],
        /--rows must be a whole number/,
      ],
      [
        ['generate', 'voters', '--rows', '10', '--states', 'ZZ', '--out', join(dir, 'x.csv')],
        /unknown state ZZ/,
      ],
      [['generate', 'voters', '--rows', '-5', '--out', join(dir, 'x.csv')], /rows must be an integer/],
      [
        [
          'generate',
          'list',
          '--from',
          join(dir, 'voters-a.csv'),
          '--rows',
          '10',
          '--match-rate',
          '2',
          '--pattern',
          'ids',
          '--out',
          join(dir, 'l.csv'),
          '--truth',
          join(dir, 't.csv'),
        ],
        /matchRate must be a number from 0 to 1/,
      ],
      [
        [
          'generate',
          'list',
          '--from',
          join(dir, 'voters-a.csv'),
          '--rows',
          '10',
          '--match-rate',
          '0.5',
          '--pattern',
          'fax',
          '--out',
          join(dir, 'l.csv'),
          '--truth',
          join(dir, 't.csv'),
        ],
        /pattern must be one of/,
      ],
      [
        [
          'generate',
          'list',
          '--from',
          join(dir, 'missing.csv'),
          '--rows',
          '10',
          '--match-rate',
          '0.5',
          '--pattern',
          'ids',
          '--out',
          join(dir, 'l.csv'),
          '--truth',
          join(dir, 't.csv'),
        ],
        /missing\.csv/,
      ],
      [['eval', '--voters', join(dir, 'voters-a.csv')], /eval needs --list, --truth/],
    ];
    for (const [args, pattern] of cases) {
      const result = listmatch(args, dir);
      assert.notEqual(result.status, 0, args.join(' '));
      assert.match(result.stderr, pattern, args.join(' '));
    }
  });
});
