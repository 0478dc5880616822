import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.ts';

/** Runs loadConfig and returns the ConfigError it throws (fails the test when it does not throw). */
function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail('loadConfig accepted an invalid environment');
}

/** The variable names a ConfigError reports, in order. */
const problemNames = (error: ConfigError) => error.problems.map((problem) => problem.split(':')[0]);

describe('loadConfig defaults', () => {
  it('gives every variable its documented default in an empty environment', () => {
    assert.deepEqual(
      { ...loadConfig({}) },
      {
        PORT: 8080,
        HOST: '0.0.0.0',
        DATA_DIR: './data',
        ROLES: ['api', 'worker'],
        LOG_LEVEL: 'info',
        UPLOAD_URL_TTL_SECONDS: 3600,
        DOWNLOAD_URL_TTL_SECONDS: 3600,
        MAX_UPLOAD_BYTES: 2 * 1024 ** 3,
        MAX_ROW_BYTES: 1024 ** 2,
        HTTP_BODY_TIMEOUT_SECONDS: 20,
        HTTP_BODY_MIN_BYTES_PER_SECOND: 500,
        HTTP_REQUEST_TIMEOUT_SECONDS: 3600,
        HTTP_KEEP_ALIVE_SECONDS: 65,
        MAX_CONCURRENT_UPLOADS_PER_KEY: 4,
        RATE_LIMIT_REGISTER_PER_MINUTE: 60,
        RATE_LIMIT_ONBOARDING_PER_MINUTE: 1,
        RATE_LIMIT_POLL_SECONDS: 30,
        RATE_LIMIT_POLL_TOLERANCE_SECONDS: 2,
        WORKER_CONCURRENCY: 1,
        MATCH_THREADS: availableParallelism(),
        MATCH_THRESHOLD: 50,
        LOOKUP_RATE_PER_SECOND: 50,
        LOOKUP_DAILY_QUOTA: 100_000,
        LOOKUP_CONFIDENT_SCORE: 90,
        LOOKUP_AMBIGUOUS_SCORE: 20,
        LOOKUP_CONTACT_SCORE: 50,
        LOOKUP_MATCH_RATE: 0.3,
        LOOKUP_THREADS: 1,
        LOOKUP_REFRESH_SECONDS: 10,
        LOOKUP_WARM: true,
        RETENTION_DAYS: 30,
        STORAGE_MIN_FREE_BYTES: 1024 ** 3,
        QUEUE_LEASE_SECONDS: 30,
        QUEUE_POLL_MS: 250,
        QUEUE_MAX_ATTEMPTS: 5,
        SHUTDOWN_GRACE_SECONDS: 20,
        WEBHOOK_ALLOW_HOSTS: [],
        WEBHOOK_TIMEOUT_SECONDS: 10,
        WEBHOOK_CONCURRENCY: 8,
        WEBHOOK_CONCURRENCY_PER_KEY: 2,
        MAIL_CONCURRENCY: 4,
        DELIVERY_CONCURRENCY: 4,
        DELIVERY_CONCURRENCY_PER_KEY: 1,
        AUDIENCE_CONCURRENCY: 4,
        AUDIENCE_CONCURRENCY_PER_KEY: 1,
        WEBHOOK_RETRY_BASE_SECONDS: 30,
        ONBOARDING_RETRY_BASE_SECONDS: 30,
        ONBOARDING_CHECK_SECONDS: 600,
        MAIL: 'outbox',
        MAIL_FROM: 'listmatch <listmatch@localhost>',
        MAIL_RETRY_BASE_SECONDS: 60,
        SMTP_TLS: 'starttls',
        SMTP_TLS_REJECT_UNAUTHORIZED: true,
        SMTP_TIMEOUT_SECONDS: 30,
        DELIVERY: 'folder',
        DELIVERY_RETRY_BASE_SECONDS: 30,
        SFTP_PORT: 22,
        SFTP_ROOT: '.',
        SFTP_TIMEOUT_SECONDS: 20,
        SHARD_CHUNK_ROWS: 50000,
        FILE_BROWSER_SESSION_MINUTES: 30,
        META_GRAPH_URL: 'https://graph.facebook.com',
        META_TIMEOUT_SECONDS: 60,
        FILE_DROP_TIMEOUT_SECONDS: 60,
        DATABASE_POOL_SIZE: 10,
        MIGRATE_ON_START: true,
        S3_REGION: 'us-east-1',
        S3_FORCE_PATH_STYLE: true,
        UPLOAD_POLL_MS: 1000,
        publicUrl: 'http://localhost:8080',
      },
    );
  });

  it('leaves the optional secret and public URL unset', () => {
    const config = loadConfig({});
    assert.equal(config.URL_SIGNING_SECRET, undefined);
    assert.equal(config.PUBLIC_URL, undefined);
  });

  it('treats an empty string as unset', () => {
    const config = loadConfig({ PORT: '', LOG_LEVEL: '', ROLES: '', URL_SIGNING_SECRET: '' });
    assert.equal(config.PORT, 8080);
    assert.equal(config.LOG_LEVEL, 'info');
    assert.deepEqual(config.ROLES, ['api', 'worker']);
    assert.equal(config.URL_SIGNING_SECRET, undefined);
  });

  it('ignores variables it does not know', () => {
    const config = loadConfig({ PATH: '/usr/bin', SOMETHING_ELSE: 'x' });
    assert.equal('PATH' in config, false);
    assert.equal('SOMETHING_ELSE' in config, false);
  });

  it('coerces numeric variables from strings', () => {
    const config = loadConfig({
      PORT: '9090',
      RATE_LIMIT_POLL_SECONDS: '0',
      RATE_LIMIT_POLL_TOLERANCE_SECONDS: '1.5',
    });
    assert.equal(config.PORT, 9090);
    assert.equal(config.RATE_LIMIT_POLL_SECONDS, 0);
    assert.equal(config.RATE_LIMIT_POLL_TOLERANCE_SECONDS, 1.5);
  });

  it('splits WEBHOOK_ALLOW_HOSTS on commas, trimming and dropping empty entries', () => {
    assert.deepEqual(
      loadConfig({ WEBHOOK_ALLOW_HOSTS: ' hooks.internal , 10.0.0.5:8080,,' }).WEBHOOK_ALLOW_HOSTS,
      ['hooks.internal', '10.0.0.5:8080'],
    );
  });

  it('returns a frozen object', () => {
    const config = loadConfig({});
    assert.equal(Object.isFrozen(config), true);
    assert.throws(() => {
      (config as { PORT: number }).PORT = 1;
    }, TypeError);
  });

  it('accepts a signing secret of exactly 32 characters', () => {
    assert.equal(loadConfig({ URL_SIGNING_SECRET: 'k'.repeat(32) }).URL_SIGNING_SECRET, 'k'.repeat(32));
  });
});

describe('loadConfig ROLES', () => {
  const accepted: [string, string[]][] = [
    ['api', ['api']],
    ['worker', ['worker']],
    ['api,worker', ['api', 'worker']],
    ['worker,api', ['worker', 'api']],
    [' API , Worker ', ['api', 'worker']],
  ];
  for (const [value, roles] of accepted) {
    it(`parses ${JSON.stringify(value)} as ${roles.join('+')}`, () => {
      assert.deepEqual(loadConfig({ ROLES: value }).ROLES, roles);
    });
  }

  for (const value of ['web', 'api,', 'api;worker', 'api,scheduler']) {
    it(`refuses ${JSON.stringify(value)} naming ROLES`, () => {
      const error = configError({ ROLES: value });
      assert.equal(error.problems.length, 1);
      assert.match(error.problems[0]!, /^ROLES\.\d+: Invalid option: expected one of "api"\|"worker"$/);
    });
  }
});

describe('loadConfig errors', () => {
  it('reports every bad variable in one ConfigError', () => {
    const error = configError({
      PORT: 'eighty',
      PUBLIC_URL: 'ftp://files.example.org',
      LOG_LEVEL: 'loud',
      URL_SIGNING_SECRET: 'short-secret',
      WORKER_CONCURRENCY: '2.5',
      QUEUE_MAX_ATTEMPTS: '1000',
    });
    assert.deepEqual(problemNames(error), [
      'PORT',
      'PUBLIC_URL',
      'LOG_LEVEL',
      'URL_SIGNING_SECRET',
      'WORKER_CONCURRENCY',
      'QUEUE_MAX_ATTEMPTS',
    ]);
    assert.ok(error.problems.includes('URL_SIGNING_SECRET: must be at least 32 characters'));
    assert.ok(error.problems.includes('WORKER_CONCURRENCY: must be a whole number'));
    assert.equal(error.message, `invalid configuration:\n  ${error.problems.join('\n  ')}`);
  });

  it('never echoes an offending value in the message or the problem list', () => {
    const values = {
      URL_SIGNING_SECRET: 'hunter2-SECRET-value',
      PORT: 'port-7f3a9c',
      PUBLIC_URL: 'ftp://secret-host-0b1e.example',
      LOG_LEVEL: 'level-d41d8c',
      ROLES: 'role-e3b0c4',
      MAX_UPLOAD_BYTES: 'bytes-5feceb',
    };
    const error = configError(values);
    assert.equal(error.problems.length, 6);
    for (const value of Object.values(values)) {
      assert.equal(error.message.includes(value), false, `message leaks ${value}`);
      for (const problem of error.problems) assert.equal(problem.includes(value), false);
    }
  });

  it('refuses out-of-range numbers', () => {
    assert.deepEqual(
      problemNames(
        configError({ PORT: '65536', UPLOAD_URL_TTL_SECONDS: '9', RATE_LIMIT_POLL_SECONDS: '-1' }),
      ),
      ['PORT', 'UPLOAD_URL_TTL_SECONDS', 'RATE_LIMIT_POLL_SECONDS'],
    );
  });

  it('refuses a signing secret of 31 characters', () => {
    assert.deepEqual(configError({ URL_SIGNING_SECRET: 'k'.repeat(31) }).problems, [
      'URL_SIGNING_SECRET: must be at least 32 characters',
    ]);
  });
});

describe('loadConfig mail', () => {
  it('MAIL=smtp needs a server; SMTP_URL and SMTP_HOST exclude each other; a password needs a user', () => {
    assert.deepEqual(configError({ MAIL: 'smtp' }).problems, [
      'SMTP_URL: MAIL=smtp needs SMTP_URL or SMTP_HOST',
    ]);
    assert.deepEqual(
      problemNames(
        configError({
          SMTP_URL: 'smtp://mail.example.org',
          SMTP_HOST: 'mail.example.org',
          SMTP_PASSWORD: 'pw',
        }),
      ),
      ['SMTP_HOST', 'SMTP_PASSWORD'],
    );
  });

  it('accepts an smtp(s) URL and the host group, and parses the TLS switches', () => {
    const byUrl = loadConfig({ MAIL: 'smtp', SMTP_URL: 'smtps://u:p%40ss@mail.example.org:465' });
    assert.equal(byUrl.SMTP_URL, 'smtps://u:p%40ss@mail.example.org:465');
    const byHost = loadConfig({
      MAIL: 'smtp',
      SMTP_HOST: 'mail.example.org',
      SMTP_PORT: '2525',
      SMTP_USER: 'u',
      SMTP_PASSWORD: 'p',
      SMTP_TLS: 'none',
      SMTP_TLS_REJECT_UNAUTHORIZED: 'false',
      MAIL_FROM: 'Results <results@example.org>',
    });
    assert.equal(byHost.SMTP_PORT, 2525);
    assert.equal(byHost.SMTP_TLS, 'none');
    assert.equal(byHost.SMTP_TLS_REJECT_UNAUTHORIZED, false);
  });

  it('refuses a non-SMTP URL, an unknown TLS mode and a sender without an address, without echoing them', () => {
    const error = configError({
      SMTP_URL: 'http://u:hunter2@mail.example.org',
      SMTP_TLS: 'maybe',
      MAIL_FROM: 'nobody-at-all',
    });
    assert.deepEqual(problemNames(error), ['MAIL_FROM', 'SMTP_URL', 'SMTP_TLS']);
    assert.equal(error.message.includes('hunter2'), false);
  });
});

describe('loadConfig scale-out (PostgreSQL, S3)', () => {
  const secret = 'x'.repeat(32);
  it('accepts DATABASE_URL with a shared signing secret; pool size and migrate-on-start have defaults', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgresql://lm:pw@db:5432/listmatch',
      URL_SIGNING_SECRET: secret,
    });
    assert.equal(config.DATABASE_URL, 'postgresql://lm:pw@db:5432/listmatch');
    assert.equal(config.DATABASE_POOL_SIZE, 10);
    assert.equal(config.MIGRATE_ON_START, true);
  });

  it('needs a shared signing secret with DATABASE_URL, and never echoes the URL', () => {
    const error = configError({ DATABASE_URL: 'postgres://lm:hunter2@db/x' });
    assert.deepEqual(problemNames(error), ['URL_SIGNING_SECRET']);
    assert.doesNotMatch(error.message, /hunter2/);
    const bad = configError({ DATABASE_URL: 'mysql://lm:hunter2@db/x', URL_SIGNING_SECRET: secret });
    assert.doesNotMatch(bad.message, /hunter2/);
  });

  it('accepts the S3 group with a shared signing secret', () => {
    const config = loadConfig({
      S3_ENDPOINT: 'https://s3.internal',
      S3_BUCKET: 'listmatch-data',
      S3_ACCESS_KEY_ID: 'AKIA',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_PREFIX: 'prod/',
      URL_SIGNING_SECRET: secret,
    });
    assert.equal(config.S3_BUCKET, 'listmatch-data');
    assert.equal(config.S3_PREFIX, 'prod/');
  });

  it('needs the whole S3 group, a bucket with any of it, and a shared secret; never echoes values', () => {
    assert.deepEqual(problemNames(configError({ S3_BUCKET: 'listmatch-data', URL_SIGNING_SECRET: secret })), [
      'S3_ENDPOINT',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
    ]);
    assert.deepEqual(problemNames(configError({ S3_ACCESS_KEY_ID: 'AKIA', URL_SIGNING_SECRET: secret })), [
      'S3_BUCKET',
    ]);
    const s3 = {
      S3_BUCKET: 'listmatch-data',
      S3_ENDPOINT: 'https://s3',
      S3_ACCESS_KEY_ID: 'a',
      S3_SECRET_ACCESS_KEY: 'b',
    };
    assert.deepEqual(problemNames(configError(s3)), ['URL_SIGNING_SECRET']);
  });

  it('refuses a database URL of another scheme and a malformed bucket', () => {
    assert.deepEqual(
      problemNames(
        configError({ DATABASE_URL: 'mysql://db/x', S3_BUCKET: 'Bad_Bucket', URL_SIGNING_SECRET: secret }),
      ),
      ['DATABASE_URL', 'S3_BUCKET'],
    );
  });
});

describe('loadConfig publicUrl', () => {
  it('defaults to http://localhost:<PORT>', () => {
    assert.equal(loadConfig({ PORT: '9090' }).publicUrl, 'http://localhost:9090');
  });

  it('uses PUBLIC_URL when given, whatever PORT is', () => {
    const config = loadConfig({ PORT: '9090', PUBLIC_URL: 'https://lm.example.org' });
    assert.equal(config.publicUrl, 'https://lm.example.org');
    assert.equal(config.PUBLIC_URL, 'https://lm.example.org');
  });

  it('removes trailing slashes', () => {
    assert.equal(loadConfig({ PUBLIC_URL: 'https://lm.example.org/' }).publicUrl, 'https://lm.example.org');
    assert.equal(
      loadConfig({ PUBLIC_URL: 'https://lm.example.org/listmatch//' }).publicUrl,
      'https://lm.example.org/listmatch',
    );
  });

  it('refuses a PUBLIC_URL that is not http or https', () => {
    assert.deepEqual(problemNames(configError({ PUBLIC_URL: 'ftp://lm.example.org' })), ['PUBLIC_URL']);
    assert.deepEqual(problemNames(configError({ PUBLIC_URL: 'not a url' })), ['PUBLIC_URL']);
  });
});

describe('loadConfig DELIVERY', () => {
  const sftp = {
    DELIVERY: 'sftp',
    SFTP_HOST: 'files.example.org',
    SFTP_USERNAME: 'listmatch',
    SFTP_PRIVATE_KEY_FILE: '/etc/listmatch/id_ed25519',
    SFTP_HOST_KEY_SHA256: `SHA256:${'A'.repeat(43)}`,
  };

  it('accepts sftp with host, user, key file and host key fingerprint', () => {
    const config = loadConfig({ ...sftp, SFTP_PORT: '2222' });
    assert.equal(config.DELIVERY, 'sftp');
    assert.equal(config.SFTP_PORT, 2222);
  });

  it('names every variable sftp needs and lacks', () => {
    assert.deepEqual(problemNames(configError({ DELIVERY: 'sftp', SFTP_HOST: 'h' })), [
      'SFTP_USERNAME',
      'SFTP_PRIVATE_KEY_FILE',
      'SFTP_HOST_KEY_SHA256',
    ]);
  });

  it('refuses a host key that is not a SHA256 fingerprint, without echoing it', () => {
    const error = configError({ ...sftp, SFTP_HOST_KEY_SHA256: 'MD5:aa:bb' });
    assert.deepEqual(problemNames(error), ['SFTP_HOST_KEY_SHA256']);
    assert.doesNotMatch(error.message, /MD5:aa:bb/);
  });

  it('refuses an unknown delivery mode', () => {
    assert.deepEqual(problemNames(configError({ DELIVERY: 's3' })), ['DELIVERY']);
  });
});

describe('loadConfig META (social platform)', () => {
  it('accepts an ad account with or without act_ and a token or a token file', () => {
    const config = loadConfig({
      META_AD_ACCOUNT_ID: 'act_123456',
      META_ACCESS_TOKEN: 'EAAB-token',
      META_API_VERSION: 'v24.0',
    });
    assert.equal(config.META_AD_ACCOUNT_ID, 'act_123456');
    const fromFile = loadConfig({
      META_AD_ACCOUNT_ID: '123456',
      META_ACCESS_TOKEN_FILE: '/run/secrets/meta-token',
      META_API_VERSION: 'v25.0',
      META_GRAPH_URL: 'http://127.0.0.1:9999',
    });
    assert.equal(fromFile.META_ACCESS_TOKEN_FILE, '/run/secrets/meta-token');
    assert.equal(fromFile.META_API_VERSION, 'v25.0');
  });

  it('needs an ad account with a token, a token and a version with an ad account, and one token source only', () => {
    assert.deepEqual(problemNames(configError({ META_ACCESS_TOKEN: 't' })), ['META_AD_ACCOUNT_ID']);
    assert.deepEqual(problemNames(configError({ META_AD_ACCOUNT_ID: '1', META_API_VERSION: 'v24.0' })), [
      'META_ACCESS_TOKEN',
    ]);
    assert.deepEqual(problemNames(configError({ META_AD_ACCOUNT_ID: '1', META_ACCESS_TOKEN: 't' })), [
      'META_API_VERSION',
    ]);
    assert.deepEqual(
      problemNames(
        configError({
          META_AD_ACCOUNT_ID: '1',
          META_API_VERSION: 'v24.0',
          META_ACCESS_TOKEN: 't',
          META_ACCESS_TOKEN_FILE: 'f',
        }),
      ),
      ['META_ACCESS_TOKEN_FILE'],
    );
  });

  it('refuses a malformed version or ad account without echoing them', () => {
    const error = configError({
      META_API_VERSION: '24',
      META_AD_ACCOUNT_ID: 'acct-secret-9',
      META_ACCESS_TOKEN: 't',
    });
    assert.deepEqual(problemNames(error), ['META_API_VERSION', 'META_AD_ACCOUNT_ID']);
    assert.ok(!error.message.includes('acct-secret-9'));
  });
});

describe('loadConfig file-drop platforms', () => {
  it('leaves both platforms unconfigured by default', () => {
    const config = loadConfig({});
    assert.equal(config.POLITICALDSP_URL, undefined);
    assert.equal(config.MBP_URL, undefined);
  });

  it('accepts a URL with a token or with a token file', () => {
    const config = loadConfig({
      POLITICALDSP_URL: 'https://api.politicaldsp.example',
      POLITICALDSP_TOKEN: 'pdsp_secret_value',
      MBP_URL: 'https://mbp.example/',
      MBP_TOKEN_FILE: '/run/secrets/mbp_token',
      FILE_DROP_TIMEOUT_SECONDS: '20',
    });
    assert.equal(config.POLITICALDSP_TOKEN, 'pdsp_secret_value');
    assert.equal(config.MBP_TOKEN_FILE, '/run/secrets/mbp_token');
    assert.equal(config.FILE_DROP_TIMEOUT_SECONDS, 20);
  });

  it('needs exactly one of token and token file with a URL, and a URL with either; never echoes a token', () => {
    const error = configError({
      POLITICALDSP_URL: 'https://api.politicaldsp.example',
      MBP_TOKEN: 'mbp_secret_value',
      MBP_TOKEN_FILE: '/run/secrets/mbp_token',
    });
    assert.deepEqual(problemNames(error), ['POLITICALDSP_TOKEN', 'MBP_TOKEN_FILE']);
    assert.deepEqual(problemNames(configError({ MBP_TOKEN: 'mbp_secret_value' })), ['MBP_URL']);
    assert.doesNotMatch(error.message, /mbp_secret_value/);
  });

  it('refuses a platform URL that is not http or https', () => {
    assert.deepEqual(problemNames(configError({ MBP_URL: 'ftp://mbp.example', MBP_TOKEN: 't' })), [
      'MBP_URL',
    ]);
  });
});
