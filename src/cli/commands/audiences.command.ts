import type { Command } from 'commander';
import { onboardingNoticeMessage } from '../../domain/notices/onboarding-notices.ts';
import type { CliContext } from '../cli-context.ts';

/** `listmatch audiences show|mark-ready`: onboarding progress, and the DSP's "ready" e-mail relayed. */
export function audiencesCommands(program: Command, context: CliContext): void {
  const audiences = program.command('audiences').description('audience onboarding jobs');
  audiences
    .command('show <job>')
    .description("an onboarding job's progress: stage, counts, the platform's audience id")
    .action(async (jobId: string) => {
      const run = await (await context.services()).onboarding.get(jobId);
      if (run === null)
        throw new Error(`no onboarding progress for ${jobId} (not an onboarding job, or not started)`);
      console.log(JSON.stringify(run, null, 2));
    });
  audiences
    .command('mark-ready <job>')
    .description(
      'the political DSP e-mailed that the audience is ready: record it and tell the client (status_email)',
    )
    .action(async (jobId: string) => {
      const services = await context.services();
      const job = await services.jobStore.getJob(jobId);
      const run = await services.onboarding.get(jobId);
      if (job === null || job.kind !== 'onboarding' || run === null)
        throw new Error(`${jobId} is not an onboarding job`);
      if (run.stage !== 'awaiting_external' || job.state !== 'complete') {
        throw new Error(`${jobId} is ${run.stage}, not awaiting the platform's notice; nothing to mark`);
      }
      await services.onboarding.update(jobId, { stage: 'ready', updatedAt: Date.now() }, [
        onboardingNoticeMessage(job, 'ready', { counts: run.counts }),
      ]);
      console.log(`${jobId}: marked ready; the client's status_email is told by a running worker`);
    });
}
