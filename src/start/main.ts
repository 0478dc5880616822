import { enableModuleCompileCache } from './compile-cache.ts';

enableModuleCompileCache();
// Imported after the compile cache is on, so that it covers them.
const { ConfigError, loadConfig } = await import('../config.ts');
const { startService } = await import('./server.ts');

/** `npm start`: the api and/or worker roles of ROLES, configured from the environment. */
try {
  await startService(loadConfig());
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(`listmatch: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
