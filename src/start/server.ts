import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { buildApp } from '../http/app.ts';
import { closeServer } from '../http/close-server.ts';
import type { Worker } from '../jobs/worker.ts';
import { compose, type Services } from './compose.ts';

export interface RunningService {
  services: Services;
  /** All routes with the api role; only the operations routes (health, metrics) without it. */
  app: FastifyInstance;
  worker: Worker | null;
  url: string;
  stop(): Promise<void>;
}

/** Starts the roles of `config.ROLES` in this process; stops gracefully on SIGTERM/SIGINT. */
export async function startService(
  config: Config,
  options: { handleSignals?: boolean; logStream?: { write(line: string): void } } = {},
): Promise<RunningService> {
  const services = await compose(config);
  // A worker-only process listens too, for its health probes and its own metrics.
  const app: FastifyInstance = buildApp(services, {
    operationsOnly: !config.ROLES.includes('api'),
    ...(options.logStream === undefined ? {} : { logStream: options.logStream }),
  });
  const logger: FastifyBaseLogger = app.log;
  const worker = config.ROLES.includes('worker') ? services.createWorker(logger) : null;
  const arrivals = config.ROLES.includes('worker') ? services.createUploadArrivals(logger) : null;
  let url: string;
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
  for (const note of services.privacyNotes) logger.warn(note);
  worker?.start();
  arrivals?.start();
  if (config.LOOKUP_WARM && services.lookups) {
    // In the background: the service answers meanwhile, a lookup that comes first waits for the
    // same load. A failure here is the first lookup's to report (it tries again).
    services.lookups.warm().catch((error: unknown) => {
      logger.warn({ err: error }, 'the voter file could not be loaded for lookups at start');
    });
  }
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
      await closeServer(app, config.SHUTDOWN_GRACE_SECONDS * 1000);
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
