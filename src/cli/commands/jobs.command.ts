import type { Command } from 'commander';
import { type JobState, jobStates } from '../../domain/client-jobs/job-types.ts';
import { DELIVER_FOLDER_JOB, jobMessage } from '../../domain/ports/job-catalog.ts';
import { FOLDER_DELIVERY_MAX_ATTEMPTS } from '../../jobs/deliver-folder.job.ts';
import type { CliContext } from '../cli-context.ts';
import { isoTime, printTable } from '../output.ts';

/** `listmatch jobs list|show`. */
export function jobsCommands(program: Command, context: CliContext): void {
  const jobs = program.command('jobs').description('inspect jobs');
  jobs
    .command('list')
    .option('--key <id>', 'only jobs of this key id')
    .option('--state <state>', `only jobs in this state (${jobStates.join(', ')})`)
    .option('--limit <n>', 'at most n jobs', '50')
    .option('--json', 'print JSON')
    .action(async (options: { key?: string; state?: string; limit: string; json?: boolean }) => {
      if (options.state !== undefined && !(jobStates as readonly string[]).includes(options.state)) {
        throw new Error(`unknown state "${options.state}"`);
      }
      const list = await listJobs(context, options);
      printTable(
        list.map((job) => ({
          id: job.id,
          kind: job.kind,
          key: job.keyId,
          filename: job.filename,
          state: job.state,
          rows: job.summary?.rows ?? null,
          matched: job.summary?.matchedRows ?? null,
          created: isoTime(job.createdAt),
          error: job.error,
        })),
        options.json === true,
      );
    });
  jobs
    .command('show <id>')
    .description('a job and its queue messages (processing, webhook, notices): attempts and last error')
    .action(async (id: string) => {
      const job = await (await jobStore(context)).getJob(id);
      if (!job) throw new Error(`no job ${id}`);
      // The queue rows are the dead-letter record: a webhook or notice that gave up shows `dead`
      // with the reason of its last attempt.
      const messages = (await (await context.services()).queue.messagesForJob(id)).map((m) => ({
        type: m.type,
        state: m.state,
        attempts: `${m.attempts}/${m.maxAttempts}`,
        lastError: m.lastError,
        created: isoTime(m.createdAt),
        updated: isoTime(m.updatedAt),
      }));
      console.log(JSON.stringify({ ...job, queue: messages }, null, 2));
    });
  jobs
    .command('deliver <id>')
    .description('queue the folder delivery of a completed job again (e.g. after a dead letter)')
    .action(async (id: string) => {
      const job = await (await jobStore(context)).getJob(id);
      if (!job) throw new Error(`no job ${id}`);
      if (job.kind !== 'smartmatch' || job.state !== 'complete') {
        throw new Error(
          `job ${id} is ${job.state}; only a complete list-matching job has a result to deliver`,
        );
      }
      await (await context.services()).queue.enqueue(
        jobMessage(DELIVER_FOLDER_JOB, { v: 1, jobId: id }, { maxAttempts: FOLDER_DELIVERY_MAX_ATTEMPTS }),
      );
      console.log(`queued the folder delivery of ${id}; a running worker takes it`);
    });
}

const jobStore = async (context: CliContext) => (await context.services()).jobStore;

async function listJobs(context: CliContext, options: { key?: string; state?: string; limit: string }) {
  return await (await jobStore(context)).listJobs({
    ...(options.key ? { keyId: options.key } : {}),
    ...(options.state ? { state: options.state as JobState } : {}),
    limit: Math.max(1, Number(options.limit) || 50),
  });
}
