import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import {
  describeDatabaseUrl,
  isRetryableTransactionError,
  migrationOrder,
  openPgDatabase,
  PostgresError,
  toNullableNumber,
  toNumber,
  toPostgresError,
} from './pg-database.ts';

describe('migrationOrder', () => {
  it('keeps NNN_name.sql files, sorted by name', () => {
    assert.deepEqual(
      migrationOrder(['010_later.sql', 'README.md', '002_b.sql', '001_a.sql', 'notes.sql', '003_c.sql.bak']),
      ['001_a.sql', '002_b.sql', '010_later.sql'],
    );
  });

  it('refuses two files with one number', () => {
    assert.throws(() => migrationOrder(['001_a.sql', '002_b.sql', '002_c.sql']), /002_b\.sql and 002_c\.sql/);
    assert.throws(() => migrationOrder(['1_a.sql', '001_b.sql']), /share the number 1/);
  });
});

describe('describeDatabaseUrl', () => {
  it('shows scheme, host, port and database, never the password or the query', () => {
    assert.equal(
      describeDatabaseUrl('postgres://listmatch:s3cret@db.internal:6543/listmatch?password=other'),
      'postgres://db.internal:6543/listmatch',
    );
    assert.equal(
      describeDatabaseUrl('postgresql:///listmatch?host=/run/postgresql'),
      'postgresql://(socket)/listmatch',
    );
    assert.equal(describeDatabaseUrl('not a url s3cret'), '(unparsable database URL)');
  });
});

describe('toPostgresError', () => {
  it('keeps the SQLSTATE and message, and drops the detail that repeats column values', () => {
    const driverError = Object.assign(
      new Error('duplicate key value violates unique constraint "api_keys_key_hash_key"'),
      {
        code: '23505',
        severity: 'ERROR',
        detail: 'Key (key_hash)=(c0ffee) already exists.',
        constraint: 'api_keys_key_hash_key',
      },
    );
    const wrapped = toPostgresError(driverError);
    assert.ok(wrapped instanceof PostgresError);
    assert.equal(wrapped.code, '23505');
    assert.equal(
      wrapped.message,
      'PostgreSQL: duplicate key value violates unique constraint "api_keys_key_hash_key"',
    );
    assert.equal(wrapped.cause, driverError);
    assert.equal(inspect(wrapped, { depth: 5 }).includes('c0ffee'), false);
    assert.equal(toPostgresError(wrapped), wrapped);
  });

  it('gives connection errors (errno codes) no SQLSTATE', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    assert.equal(toPostgresError(refused).code, undefined);
    assert.equal(toPostgresError('a string').message, 'PostgreSQL: a string');
  });

  it('retries serialization failures and deadlocks only', () => {
    assert.equal(isRetryableTransactionError(new PostgresError('x', { code: '40001' })), true);
    assert.equal(isRetryableTransactionError(Object.assign(new Error('x'), { code: '40P01' })), true);
    assert.equal(isRetryableTransactionError(new PostgresError('x', { code: '23505' })), false);
    assert.equal(isRetryableTransactionError(new Error('x')), false);
  });
});

describe('toNumber', () => {
  it('parses BIGINT strings and refuses what a double cannot hold exactly', () => {
    assert.equal(toNumber('1700000000000'), 1_700_000_000_000);
    assert.equal(toNumber(42), 42);
    assert.equal(toNullableNumber(null), null);
    assert.equal(toNullableNumber('21474836480'), 21_474_836_480);
    assert.throws(() => toNumber('9007199254740993'), PostgresError);
    assert.throws(() => toNumber('abc'), PostgresError);
  });
});

describe('openPgDatabase', () => {
  it('refuses a URL that is not postgres:// without echoing it', async () => {
    for (const url of ['mysql://user:s3cret@db/x', 'user:s3cret@db', 's3cret']) {
      await assert.rejects(openPgDatabase(url), (error: Error) => {
        assert.match(error.message, /DATABASE_URL/);
        assert.equal(inspect(error, { depth: 5 }).includes('s3cret'), false);
        return true;
      });
    }
  });
});
