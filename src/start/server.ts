import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import pino from 'pino';
import type { Config } from '../config.ts';
import { buildApp } from '../http/app.ts';
import type { Worker } from '../jobs/worker.ts';
import { compose, type Services } from './compose.ts';

export interface RunningService {
  services: Services;
  app: FastifyInstance | null;
  worker: Worker | null;
  url: string | null;
  stop(): Promise<void>;
}

/** Starts the roles of `config.ROLES` in this process; stops gracefully on SIGTERM/SIGINT. */
export async function startService(
  config: Config,
  options: { handleSignals?: boolean } = {},
): Promise<RunningService> {
  const services = await compose(config);
  let app: FastifyInstance | null = null;
  let logger: FastifyBaseLogger;
  if (config.ROLES.includes('api')) {
    app = buildApp(services);
    logger = app.log;
  } else {
    logger = pino({ level: config.LOG_LEVEL }) as unknown as FastifyBaseLogger;
  }
  const worker = config.ROLES.includes('worker') ? services.createWorker(logger) : null;
  const arrivals = config.ROLES.includes('worker') ? services.createUploadArrivals(logger) : null;
  let url: string | null = null;
  if (app !== null) {
    try {
      url = await app.listen({ port: config.PORT, host: config.HOST });
    } catch (error) {
      await services.close();
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        throw new Error(`port ${config.PORT} is already in use: stop the other process or set PORT`, {
          cause: error,
        });
      }
      throw error;
    }
  }
  worker?.start();
  arrivals?.start();
  logger.info(
    {
      roles: config.ROLES,
      url,
      dataDir: config.DATA_DIR,
      metadata: services.metadataKind,
      storage: services.storageKind,
    },
    'listmatch started',
  );

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      logger.info('shutting down');
      await app?.close();
      await arrivals?.stop();
      await worker?.stop(config.SHUTDOWN_GRACE_SECONDS * 1000);
      await services.close();
    })();
    return stopping;
  };
  if (options.handleSignals !== false) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        stop().then(
          () => process.exit(0),
          (error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
      });
    }
  }
  return { services, app, worker, url, stop };
}
