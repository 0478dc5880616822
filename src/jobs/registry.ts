import type { JobModule } from './job-module.ts';

/** The job types the worker runs. Startup fails when an expected type has no handler. */
export class JobRegistry {
  private readonly modules = new Map<string, JobModule>();
  /** Modules that run every type `<their type>.<name>` (one queue per voter shard). */
  private readonly families = new Map<string, JobModule>();

  register<P>(module: JobModule<P>): this {
    if (this.modules.has(module.type)) throw new Error(`job type ${module.type} registered twice`);
    this.modules.set(module.type, module as unknown as JobModule);
    return this;
  }

  /** Registers a module for the types `<module.type>.<name>`, whatever the name (not claimed by default). */
  registerFamily<P>(module: JobModule<P>): this {
    if (this.families.has(module.type)) throw new Error(`job family ${module.type} registered twice`);
    this.families.set(module.type, module as unknown as JobModule);
    return this;
  }

  get(type: string): JobModule | undefined {
    const exact = this.modules.get(type);
    if (exact !== undefined) return exact;
    const dot = type.indexOf('.');
    return dot === -1 ? undefined : this.families.get(type.slice(0, dot));
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
