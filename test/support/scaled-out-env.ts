import type { TestDatabase } from './postgres.ts';
import { TEST_S3, type TestBucket } from './s3-server.ts';

/**
 * The environment of a scaled-out process on the test servers: PostgreSQL (`database`), the S3
 * bucket, and the shared URL signing secret every process must have.
 */
export function scaledOutEnv(
  database: TestDatabase,
  bucket: TestBucket,
  secret: string,
): Record<string, string> {
  return {
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '4',
    S3_ENDPOINT: TEST_S3.endpoint,
    S3_BUCKET: bucket.name,
    S3_REGION: TEST_S3.region,
    S3_ACCESS_KEY_ID: TEST_S3.accessKeyId,
    S3_SECRET_ACCESS_KEY: TEST_S3.secretAccessKey,
    URL_SIGNING_SECRET: secret,
  };
}
