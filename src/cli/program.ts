import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.ts';
import { isAppError } from '../domain/errors.ts';
import { type CliContext, createCliContext } from './cli-context.ts';

/**
 * `listmatch`: the operator's command line, entered through main.ts once the module compile cache
 * is on. Configuration comes from the same environment as the service.
 */
const context = createCliContext();
const program = new Command('listmatch')
  .description('list matching and audience onboarding service: operator commands')
  .showHelpAfterError()
  .exitOverride();

/**
 * Each command's module, loaded only when that command runs (or for the help of all of them):
 * `listmatch match` then holds the matching code and not the evaluation, generators, SQL
 * stores and HTTP clients of the others (about 60 MB of a process that holds a voter file).
 */
const COMMANDS: Record<string, (program: Command, context: CliContext) => Promise<void>> = {
  keys: async (p, c) => (await import('./commands/keys.command.ts')).keysCommands(p, c),
  voters: async (p, c) => (await import('./commands/voters.command.ts')).votersCommands(p, c),
  jobs: async (p, c) => (await import('./commands/jobs.command.ts')).jobsCommands(p, c),
  audiences: async (p, c) => (await import('./commands/audiences.command.ts')).audiencesCommands(p, c),
  match: async (p, c) => (await import('./commands/match.command.ts')).matchCommand(p, c),
  eval: async (p, c) => (await import('./commands/eval.command.ts')).evalCommand(p, c),
  migrate: async (p) => (await import('./commands/migrate.command.ts')).migrateCommand(p),
  generate: async (p) => (await import('./commands/generate.command.ts')).generateCommands(p),
  submit: async (p) => (await import('./commands/submit.command.ts')).submitCommands(p),
  audience: async (p) => (await import('./commands/submit.command.ts')).audienceCommands(p),
};
const asked = process.argv[2];
for (const [name, register] of Object.entries(COMMANDS)) {
  if (asked === undefined || !(asked in COMMANDS) || asked === name) await register(program, context);
}
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
    const { demoInstructions, prepareDemo } = await import('../lab/demo/demo-setup.ts');
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
