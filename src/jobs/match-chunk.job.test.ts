import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkPayloadSchema, chunkSpecSchema } from './match-chunk.job.ts';

const common = {
  jobId: 'job_01',
  version: 'v1-a',
  appended: [{ source: 'party', as: 'party' }],
  threshold: 50,
  startedAt: 1,
};

describe('match-chunk messages', () => {
  it('reads a message of the first format (a chunk per shard) as its shard’s first chunk', () => {
    const payload = chunkPayloadSchema.parse({ ...common, v: 1, shards: ['nc', 'va'], shard: 'va' });
    assert.deepEqual(payload, { ...common, v: 2, chunks: ['nc', 'va'], chunk: 'va' });
    const spec = chunkSpecSchema.parse({ ...common, v: 1, shards: ['nc'] });
    assert.deepEqual(spec, { ...common, v: 2, chunks: ['nc'] });
  });

  it('carries the fit chunk and the job’s fit, and refuses a malformed one', () => {
    const listFit = {
      layout: 'a1b2c3d4',
      m: [0.9, 0.1],
      priorMatchOdds: 0.7,
      source: 'em',
      emIterations: 12,
    };
    const payload = { ...common, v: 2, chunks: ['nc', 'nc.1'], chunk: 'nc.1', fitChunk: 'nc', listFit };
    assert.deepEqual(chunkPayloadSchema.parse(payload), payload);
    const { priorMatchOdds, ...earlier } = listFit;
    assert.deepEqual(
      chunkPayloadSchema.parse({ ...payload, listFit: { ...earlier, matchesPerRow: priorMatchOdds } }),
      payload,
      'a fit enqueued by an earlier version names the prior odds matchesPerRow',
    );
    assert.throws(() => chunkPayloadSchema.parse({ ...payload, listFit: { ...listFit, source: 'guess' } }));
    assert.throws(() => chunkPayloadSchema.parse({ ...payload, chunk: '' }));
    assert.throws(() => chunkPayloadSchema.parse({ ...payload, v: 3 }));
  });

  it('carries the place step and, after it, the placed chunks with their reach chunks', () => {
    const place = { ...common, v: 2, chunks: ['nc', 'va'], chunk: 'va', step: 'place' };
    assert.deepEqual(chunkPayloadSchema.parse(place), place);
    const placed = { ...common, v: 2, chunks: ['nc', 'nc.r', 'va'], chunk: 'nc.r', placed: true };
    assert.deepEqual(chunkPayloadSchema.parse(placed), placed);
    assert.throws(() => chunkPayloadSchema.parse({ ...place, step: 'guess' }));
    assert.throws(() => chunkPayloadSchema.parse({ ...placed, placed: false }));
  });
});
