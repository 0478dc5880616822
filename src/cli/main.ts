import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.ts';
import { isAppError } from '../domain/errors.ts';
import { createCliContext } from './cli-context.ts';
import { audiencesCommands } from './commands/audiences.command.ts';
import { evalCommand } from './commands/eval.command.ts';
import { generateCommands } from './commands/generate.command.ts';
import { jobsCommands } from './commands/jobs.command.ts';
import { keysCommands } from './commands/keys.command.ts';
import { matchCommand } from './commands/match.command.ts';
import { migrateCommand } from './commands/migrate.command.ts';
import { votersCommands } from './commands/voters.command.ts';

/** `listmatch`: the operator's command line. Configuration comes from the same environment as the service. */
const context = createCliContext();
const program = new Command('listmatch')
  .description('list matching and audience onboarding service: operator commands')
  .showHelpAfterError()
  .exitOverride();

keysCommands(program, context);
votersCommands(program, context);
jobsCommands(program, context);
audiencesCommands(program, context);
matchCommand(program, context);
evalCommand(program, context);
migrateCommand(program);
generateCommands(program);
program
  .command('serve')
  .description('start the service (roles from ROLES)')
  .action(async () => {
    // The server (Fastify and the HTTP layer) loads only for the commands that run it.
    const { startService } = await import('../start/server.ts');
    await startService(loadConfig());
  });
program
  .command('demo')
  .description('start the service with a synthetic voter file and print a demo key')
  .action(async () => {
    const { startService } = await import('../start/server.ts');
    const { demoInstructions, prepareDemo } = await import('../start/demo-setup.ts');
    const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env });
    const running = await startService(config);
    const { key, samplePath } = await prepareDemo(running.services);
    console.log(demoInstructions(config.publicUrl, key, samplePath));
  });

try {
  await program.parseAsync(process.argv);
  const name = program.args[0];
  if (name !== 'serve' && name !== 'demo') await context.close();
} catch (error) {
  await context.close();
  if (error instanceof CommanderError) process.exit(error.exitCode);
  if (error instanceof ConfigError || isAppError(error) || error instanceof Error) {
    console.error(`listmatch: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
