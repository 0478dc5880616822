import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OutputFormat } from './job-types.ts';
import { deliveryArchiveKey } from './result-files.ts';
import { resultLayout } from './result-layout.ts';

const layout = (format: OutputFormat, maxMatches: number) =>
  resultLayout({ id: 'job_1', filename: 'tmc_ab12.csv', format, maxMatches });

describe('result layout', () => {
  it('every format gets the delivery archive under the shared key and name', () => {
    for (const format of ['csv', 'gzip', 'zip'] as const) {
      for (const maxMatches of [1, 3]) {
        assert.deepEqual(layout(format, maxMatches).archive, {
          key: deliveryArchiveKey('job_1'),
          name: 'tmc_ab12.zip',
        });
      }
    }
  });

  it('max_matches = 1: one CSV in the archive; max_matches > 1: _best and _additional', () => {
    assert.deepEqual(
      layout('zip', 1).archiveCsvs.map((c) => c.name),
      ['tmc_ab12.csv'],
    );
    const split = layout('zip', 3);
    assert.deepEqual(
      split.archiveCsvs.map((c) => c.name),
      ['tmc_ab12_best.csv', 'tmc_ab12_additional.csv'],
    );
    assert.deepEqual(
      split.archiveCsvs.map((c) => c.blob),
      [split.split!.best, split.split!.additional],
    );
  });

  it('csv polls the every-rank CSV, which the archive reuses when max_matches = 1', () => {
    const csv = layout('csv', 1);
    assert.deepEqual(csv.poll, { key: 'results/job_1/result.csv', name: 'tmc_ab12.csv' });
    assert.equal(csv.everyRankCsv, csv.poll.key);
    assert.deepEqual(csv.archiveCsvs, [{ name: 'tmc_ab12.csv', blob: csv.poll.key }]);
    assert.deepEqual(csv.temporary, [], 'the poll download is not temporary');
    assert.equal(csv.gzip, null);
    const csv3 = layout('csv', 3);
    assert.equal(csv3.everyRankCsv, 'results/job_1/result.csv');
    assert.deepEqual(csv3.temporary, ['work/job_1/best.csv', 'work/job_1/additional.csv']);
  });

  it('gzip polls a gzip made from a temporary plain every-rank CSV', () => {
    const gzip = layout('gzip', 1);
    assert.deepEqual(gzip.poll, { key: 'results/job_1/result.csv.gz', name: 'tmc_ab12.csv.gz' });
    assert.deepEqual(gzip.gzip, { from: 'work/job_1/result.csv', key: gzip.poll.key });
    assert.deepEqual(gzip.temporary, ['work/job_1/result.csv']);
  });

  it('zip polls the delivery archive itself; with max_matches > 1 no every-rank CSV is written', () => {
    for (const maxMatches of [1, 3]) {
      const zip = layout('zip', maxMatches);
      assert.deepEqual(zip.poll, zip.archive);
    }
    assert.equal(layout('zip', 3).everyRankCsv, null);
    assert.deepEqual(layout('zip', 1).temporary, ['work/job_1/result.csv']);
  });
});
