import type { JobModule } from './job-module.ts';

/** The job types the worker runs. Startup fails when an expected type has no handler. */
export class JobRegistry {
  private readonly modules = new Map<string, JobModule>();

  register<P>(module: JobModule<P>): this {
    if (this.modules.has(module.type)) throw new Error(`job type ${module.type} registered twice`);
    this.modules.set(module.type, module as unknown as JobModule);
    return this;
  }

  get(type: string): JobModule | undefined {
    return this.modules.get(type);
  }

  types(): string[] {
    return [...this.modules.keys()];
  }

  /** Throws unless every type that the service enqueues has a handler. */
  assertHandles(types: readonly string[]): void {
    const missing = types.filter((t) => !this.modules.has(t));
    if (missing.length > 0) throw new Error(`no handler registered for job type(s): ${missing.join(', ')}`);
  }
}
