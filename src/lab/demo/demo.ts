import { ConfigError, loadConfig } from '../../config.ts';
import { startService } from '../../start/server.ts';
import { demoInstructions, prepareDemo } from './demo-setup.ts';

/** `npm run demo`: the service on embedded defaults with a synthetic voter file and a demo key. */
try {
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
  const running = await startService(config);
  const { key, samplePath, voters } = await prepareDemo(running.services);
  console.log(`voter file: ${voters} synthetic records`);
  console.log(demoInstructions(config.publicUrl, key, samplePath));
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(`listmatch: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
