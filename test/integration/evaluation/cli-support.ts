import { mock } from 'node:test';
import { Command } from 'commander';
import { evalCommand } from '../../../src/cli/commands/eval.command.ts';

/** Runs `listmatch …` with the eval command in this process; returns what it printed. */
export async function runCli(args: string[]): Promise<string> {
  const program = new Command('listmatch').exitOverride().configureOutput({ writeErr: () => {} });
  evalCommand(program, {
    services: () => {
      throw new Error('eval must not touch DATA_DIR');
    },
    voters: () => {
      throw new Error('eval must not touch DATA_DIR');
    },
    close: async () => {},
  });
  let printed = '';
  const log = mock.method(console, 'log', (...parts: unknown[]) => {
    printed += `${parts.join(' ')}\n`;
  });
  try {
    await program.parseAsync(['node', 'listmatch', ...args]);
  } finally {
    log.mock.restore();
  }
  return printed;
}
