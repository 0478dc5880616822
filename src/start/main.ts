import { ConfigError, loadConfig } from '../config.ts';
import { startService } from './server.ts';

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
