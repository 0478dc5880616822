import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context.ts';

/** `listmatch voters import|stats`. */
export function votersCommands(program: Command, context: CliContext): void {
  const voters = program.command('voters').description('the operator voter file');
  voters
    .command('import <file>')
    .description(
      'import a voter-file CSV (added to the current file unless --replace); switches atomically when whole',
    )
    .option('--replace', 'replace the current voter file instead of adding to it', false)
    .option('--json', 'print the report as JSON')
    .action(async (file: string, options: { replace: boolean; json?: boolean }) => {
      const bar = process.stderr.isTTY
        ? new SingleBar({
            format: 'importing [{bar}] {percentage}% | {value}/{total} MB | ETA {eta}s',
            stream: process.stderr,
          })
        : null;
      let started = false;
      const report = await (await context.services()).voters.importFile(file, {
        replace: options.replace,
        onProgress: (read, total) => {
          if (bar === null) return;
          const mb = (n: number) => Math.round(n / 1e5) / 10;
          if (!started) {
            bar.start(mb(total), 0);
            started = true;
          }
          bar.update(mb(read));
        },
      });
      bar?.stop();
      if (options.json) {
        console.log(JSON.stringify(report, null, 2));
        return;
      }
      const rate = Math.round(report.rowsRead / Math.max(report.durationMs / 1000, 0.001));
      console.log(
        `voter file ${report.version}: ${report.imported} rows imported, ${report.carriedOver} kept from the previous version`,
      );
      console.log(
        `read ${report.rowsRead} rows in ${(report.durationMs / 1000).toFixed(1)} s (${rate} rows/s)`,
      );
      if (report.rejected > 0)
        console.log(`rejected ${report.rejected} rows: ${JSON.stringify(report.rejectedByReason)}`);
      if (report.warnings > 0)
        console.log(`corrected ${report.warnings} values: ${JSON.stringify(report.warningsByKind)}`);
      if (report.rejected + report.warnings > 0)
        console.log(`line numbers and reasons: ${report.reportPath}`);
    });
  voters
    .command('stats')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const stats = await (await context.services()).voters.stats();
      if (options.json) console.log(JSON.stringify(stats, null, 2));
      else if (stats === null) console.log('no voter file imported yet (listmatch voters import FILE.csv)');
      else
        console.log(
          `voter file ${stats.version}: ${stats.rows} rows${stats.shards === undefined ? '' : ` in ${stats.shards} shards`}, imported ${stats.importedAt}\ncolumns: ${stats.columns.join(', ')}`,
        );
    });
}
