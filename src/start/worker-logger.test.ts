import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import { WorkerLogger } from './worker-logger.ts';

test('the worker logger: null and a clear error before a worker sets it, then the worker logger', () => {
  const holder = new WorkerLogger();
  assert.equal(holder.current(), null);
  assert.throws(() => holder.get(), /worker logger was used before createWorker built a worker/);
  const logger = { info: () => undefined } as unknown as FastifyBaseLogger;
  holder.set(logger);
  assert.equal(holder.current(), logger);
  assert.equal(holder.get(), logger);
});
