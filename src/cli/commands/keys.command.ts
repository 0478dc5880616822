import type { Command } from 'commander';
import type { ContactField, Entitlements, ProfileDelivery } from '../../domain/keys/key-types.ts';
import { contactFields, profileDeliveries } from '../../domain/keys/key-types.ts';
import { LookupAdmin } from '../../domain/lookups/lookup-admin.ts';
import { LOOKUP_RIGHTS, parseLookupRights } from '../../domain/lookups/lookup-rights.ts';
import type { CliContext } from '../cli-context.ts';
import { isoTime, parseAppendedFields, printTable } from '../output.ts';

const onOff = (value: string): boolean => {
  if (/^(on|true|yes|1)$/i.test(value)) return true;
  if (/^(off|false|no|0)$/i.test(value)) return false;
  throw new Error(`expected on or off, got "${value}"`);
};

/** `listmatch keys …` and `listmatch profiles …`. */
export function keysCommands(program: Command, context: CliContext): void {
  const keys = program.command('keys').description('API keys: create, list, revoke, change rights');
  keys
    .command('create')
    .requiredOption('--name <name>', 'a name for the key (client or purpose)')
    .option('--no-list-matching', 'without the list-matching right')
    .option('--no-onboarding', 'without the onboarding right')
    .option('--direct-upload', 'approve direct upload (owner_adid)', false)
    .option('--json', 'print JSON')
    .description(
      'create a key and its webhook signing secret; both are printed once (the key is stored only as a hash)',
    )
    .action(
      async (options: {
        name: string;
        listMatching: boolean;
        onboarding: boolean;
        directUpload: boolean;
        json?: boolean;
      }) => {
        const { key, record, webhookSecret } = await (await context.services()).keys.createKey({
          name: options.name,
          entitlements: {
            listMatching: options.listMatching,
            onboarding: options.onboarding,
            directUpload: options.directUpload,
          },
        });
        if (options.json) {
          console.log(
            JSON.stringify(
              {
                id: record.id,
                name: record.name,
                key,
                webhook_secret: webhookSecret,
                entitlements: record.entitlements,
              },
              null,
              2,
            ),
          );
        } else {
          console.log(`created ${record.id} (${record.name})`);
          console.log(`API key (shown once, store it now): ${key}`);
          console.log(`Webhook signing secret (shown once; verifies webhook calls): ${webhookSecret}`);
        }
      },
    );
  keys
    .command('list')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      printTable(
        (await (await context.services()).keys.list()).map((k) => ({
          id: k.id,
          name: k.name,
          prefix: `${k.displayPrefix}…`,
          list_matching: k.entitlements.listMatching,
          onboarding: k.entitlements.onboarding,
          direct_upload: k.entitlements.directUpload,
          created: isoTime(k.createdAt),
          revoked: isoTime(k.revokedAt),
        })),
        options.json === true,
      );
    });
  keys
    .command('revoke <key>')
    .description(
      'revoke a key by id or name; it stops working at once, with every URL it obtained (its results are deleted)',
    )
    .action(async (key: string) => {
      const { record, withdrawnJobs } = await (await context.services()).revokeKey(key);
      console.log(
        `revoked ${record.id} (${record.name}); the files of ${withdrawnJobs} finished job(s) were deleted`,
      );
    });
  keys
    .command('webhook-secret <key>')
    .description(
      'create the webhook signing secret of a key that has none, or replace it with --rotate; printed once',
    )
    .option(
      '--rotate',
      'replace the existing secret; the old one keeps signing next to it for 24 hours',
      false,
    )
    .option('--immediately', 'with --rotate: drop the old secret at once (it leaked)', false)
    .option('--json', 'print JSON')
    .action(async (key: string, options: { rotate: boolean; immediately: boolean; json?: boolean }) => {
      const { record, webhookSecret, previousValidUntil } = await (
        await context.services()
      ).keys.createWebhookSecret(key, {
        rotate: options.rotate,
        ...(options.immediately ? { overlapMs: 0 } : {}),
      });
      const previous = isoTime(previousValidUntil);
      if (options.json) {
        console.log(
          JSON.stringify(
            { id: record.id, webhook_secret: webhookSecret, previous_secret_signs_until: previous },
            null,
            2,
          ),
        );
      } else {
        console.log(`webhook signing secret of ${record.id} (shown once, store it now): ${webhookSecret}`);
        if (previous !== null) console.log(`the previous secret also signs calls until ${previous}`);
      }
    });
  keys
    .command('update <key>')
    .description('change the rights of a key')
    .option('--list-matching <on|off>', 'list matching', onOff)
    .option('--onboarding <on|off>', 'audience onboarding', onOff)
    .option('--direct-upload <on|off>', 'direct upload approval (owner_adid)', onOff)
    .action(async (key: string, options: Partial<Entitlements>) => {
      const record = await (await context.services()).keys.setEntitlements(key, options);
      console.log(`${record.id}: ${JSON.stringify(record.entitlements)}`);
    });

  keys
    .command('lookups <key>')
    .description(
      `grant the person and voter lookups: rights ${LOOKUP_RIGHTS.join(', ')} (or all, none) and a daily quota of persons`,
    )
    .option('--rights <list>', 'comma-separated lookup rights, all or none')
    .option('--daily-quota <n>', 'persons per UTC day, or "default" for LOOKUP_DAILY_QUOTA')
    .action(async (key: string, options: { rights?: string; dailyQuota?: string }) => {
      const services = await context.services();
      const admin = new LookupAdmin(services.lookupStore, services.keys);
      const quota = options.dailyQuota;
      const grant = await admin.grant(key, {
        ...(options.rights === undefined ? {} : { rights: parseLookupRights(options.rights) }),
        ...(quota === undefined ? {} : { dailyQuota: quota === 'default' ? null : Number(quota) }),
      });
      console.log(
        `${grant.keyId}: lookups ${grant.rights.length === 0 ? 'none' : grant.rights.join(',')}, daily quota ${grant.dailyQuota ?? 'default'}`,
      );
    });
  keys
    .command('usage')
    .description('who looked up how many persons: lookups per key, UTC day and endpoint')
    .option('--days <n>', 'the last n UTC days, today included', '30')
    .option('--json', 'print JSON')
    .action(async (options: { days: string; json?: boolean }) => {
      const services = await context.services();
      const days = Number(options.days);
      if (!(Number.isInteger(days) && days >= 1)) throw new Error('--days must be a whole number of days');
      const names = new Map((await services.keys.list()).map((k) => [k.id, k.name]));
      printTable(
        (await new LookupAdmin(services.lookupStore, services.keys).usage(days)).map((row) => ({
          key: row.keyId,
          name: names.get(row.keyId) ?? '',
          day: row.day,
          endpoint: row.right,
          requests: row.requests,
          persons: row.persons,
        })),
        options.json === true,
      );
    });

  const profiles = program
    .command('profiles')
    .description('per key and profile: appended fields and contact fields');
  profiles
    .command('set <key>')
    .option('--profile <id>', 'profile id', 'default')
    .option(
      '--append <fields>',
      'voter-file fields to append, comma-separated; source:name writes the column as vb.name',
    )
    .option(
      '--contact <fields>',
      `contact fields the client may request: ${contactFields.join(',')} (or none)`,
    )
    .option(
      '--match-threshold <score>',
      'lowest match score (0-100) this profile accepts, or "default" for the service\'s MATCH_THRESHOLD',
    )
    .option('--max-matches-cap <n>', 'highest max_matches (1-10) the client may ask for, or "none"')
    .option(
      '--webhook-hosts <hosts>',
      'hosts (host or host:port, comma-separated) the client\'s webhooks may call, or "any"',
    )
    .option('--delivery <target>', `where results are dropped: ${profileDeliveries.join(' or ')}`)
    .action(
      async (
        key: string,
        options: {
          profile: string;
          append?: string;
          contact?: string;
          matchThreshold?: string;
          maxMatchesCap?: string;
          webhookHosts?: string;
          delivery?: string;
        },
      ) => {
        const appendedFields = options.append === undefined ? undefined : parseAppendedFields(options.append);
        const contact = options.contact === undefined ? undefined : parseContact(options.contact);
        const threshold = options.matchThreshold;
        const matchThreshold =
          threshold === undefined ? undefined : threshold === 'default' ? null : Number(threshold);
        if (matchThreshold !== undefined && matchThreshold !== null && Number.isNaN(matchThreshold)) {
          throw new Error('--match-threshold must be a number from 0 to 100 or "default"');
        }
        const cap = options.maxMatchesCap;
        const maxMatchesCap = cap === undefined ? undefined : cap === 'none' ? null : Number(cap);
        if (maxMatchesCap !== undefined && maxMatchesCap !== null && Number.isNaN(maxMatchesCap)) {
          throw new Error('--max-matches-cap must be a whole number from 1 to 10 or "none"');
        }
        const hosts = options.webhookHosts;
        const webhookHosts =
          hosts === undefined
            ? undefined
            : hosts.trim() === 'any'
              ? []
              : hosts.split(',').map((h) => h.trim());
        const delivery = options.delivery;
        if (delivery !== undefined && !(profileDeliveries as readonly string[]).includes(delivery)) {
          throw new Error(`--delivery must be ${profileDeliveries.join(' or ')}`);
        }
        const profile = await (await context.services()).keys.setProfile(key, options.profile, {
          ...(appendedFields ? { appendedFields } : {}),
          ...(contact ? { contactFields: contact } : {}),
          ...(matchThreshold !== undefined ? { matchThreshold } : {}),
          ...(maxMatchesCap !== undefined ? { maxMatchesCap } : {}),
          ...(webhookHosts !== undefined ? { webhookHosts } : {}),
          ...(delivery !== undefined ? { delivery: delivery as ProfileDelivery } : {}),
        });
        console.log(JSON.stringify(profile, null, 2));
      },
    );
  profiles
    .command('list [key]')
    .option('--json', 'print JSON')
    .action(async (key: string | undefined, options: { json?: boolean }) => {
      printTable(
        (await (await context.services()).keys.listProfiles(key)).map((p) => ({
          key: p.keyId,
          profile: p.profileId,
          appended: p.appendedFields.map((f) => (f.source === f.as ? f.source : `${f.source}:${f.as}`)),
          contact: p.contactFields,
          threshold: p.matchThreshold ?? 'default',
          'max matches': p.maxMatchesCap ?? 10,
          'webhook hosts': p.webhookHosts.length === 0 ? 'any' : p.webhookHosts,
          delivery: p.delivery,
        })),
        options.json === true,
      );
    });
}

function parseContact(value: string): ContactField[] {
  if (value.trim() === 'none') return [];
  const fields = value.split(',').map((f) => f.trim().toLowerCase());
  for (const field of fields) {
    if (!(contactFields as readonly string[]).includes(field)) {
      throw new Error(`unknown contact field "${field}"; expected ${contactFields.join(', ')}`);
    }
  }
  return fields as ContactField[];
}
