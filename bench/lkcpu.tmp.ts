// temporary: CPU per registration check by thread (api) and of this sender process
import { readdirSync, readFileSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { openLoop } from './lib/open-loop.ts';
import { createApiKeyWithId, runCli, startService } from './lib/processes.ts';
const dataDir = process.env['D']!;
const csv = process.env['CSV']!;
const mode = process.env['MODE'] ?? 'auto';
const lines = createInterface({ input: createReadStream(csv) });
let header: string[] | null = null; let n = 0; const voters: Record<string, string>[] = [];
for await (const line of lines) { if (!header) { header = line.split(','); continue; } if (n++ % 200 !== 0) continue; const c = line.split(','); voters.push(Object.fromEntries(header.map((h, i) => [h, c[i] ?? '']))); }
const { key, id } = await createApiKeyWithId(dataDir);
await runCli(['keys', 'lookups', id, '--rights', 'all', '--daily-quota', '0'], { dataDir, timeoutMs: 30000 });
const service = await startService({ dataDir, env: { LOOKUP_RATE_PER_SECOND: '100000' } });
const ticks = (pid: number) => { const out: Record<string, number> = {}; for (const t of readdirSync(`/proc/${pid}/task`)) { const s = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8'); const name = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); out[`${name}`] = (out[name] ?? 0) + Number(f[11]) + Number(f[12]); } return out; };
const self = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const checks = voters.map((v) => `/voter/voter-registration-check?first_name=${encodeURIComponent(v['first_name']!)}&last_name=${encodeURIComponent(v['last_name']!)}&state=${v['state']}&zip_code=${v['zip']}&dob=${v['dob']!.slice(0, 4)}*`);
let k = 0;
const req = { method: 'GET', setupRequest: (r: any) => ({ ...r, path: checks[k++ % checks.length] }) };
await autocannon({ url: service.url, headers: { 'x-api-key': key }, connections: 10, amount: 3000, requests: [req] } as any);
for (let round = 0; round < 2; round++) {
  const t0 = ticks(service.pid); const s0 = self();
  let done = 0;
  if (mode === 'auto') { const r = await autocannon({ url: service.url, headers: { 'x-api-key': key }, connections: 50, duration: 8, requests: [req] } as any); done = r['2xx']; console.log('rate', (done / 8).toFixed(0), 'p99', r.latency.p99); }
  else { const r = await openLoop({ url: service.url, paths: checks, headers: { 'x-api-key': key }, rate: Number(process.env['RATE'] ?? 1500), durationSeconds: 8, connections: 50 }); done = r.ok; console.log('rate', r.rate.toFixed(0), 'p50', r.p50.toFixed(1), 'p99', r.p99.toFixed(1)); }
  const t1 = ticks(service.pid); const s1 = self();
  const per: string[] = [];
  for (const name of Object.keys(t1)) { const d = (t1[name]! - (t0[name] ?? 0)) * 10; if (d > 50) per.push(`${name}=${(d * 1000 / done).toFixed(0)}µs`); }
  console.log('per request:', per.join(' '), `sender=${((s1 - s0) * 1000 / done).toFixed(0)}µs`);
}
await service.stop();
