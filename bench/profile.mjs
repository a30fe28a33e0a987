// Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time by function and by package.
// Usage: node bench/profile.mjs <file.cpuprofile> [top] [last-ms] [requests]
// With last-ms, only the samples of the profile's last last-ms milliseconds count (the measured load, without
// the start-up and the warm-up that --cpu-prof also records).
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** Where a function lives: a package under node_modules, the service's own code, Node's internals or V8. */
function ownerOf(url, functionName) {
  if (SPECIAL.has(functionName)) return functionName;
  if (url === '') return '(native)';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1];
  if (url.startsWith('node:')) return 'node internals';
  if (url.includes('/dist/src/')) return 'service (dist/src)';
  return url;
}

function shortUrl(url) {
  const match = /node_modules\/(.*)$/.exec(url);
  if (match) return match[1];
  const dist = /\/(dist\/.*)$/.exec(url);
  return dist ? dist[1] : url;
}

/** Self time per function and per owner, in ms and as a share of the busy (non-idle) time. */
export function summariseProfile(profile, { top = 25, lastMs = Infinity } = {}) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const from = profile.endTime - lastMs * 1000;
  const self = new Map();
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    if (time < from) continue;
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const functions = new Map();
  const owners = new Map();
  // Node's internals and natives charged to the package that called them (the nearest owning frame above).
  const callers = new Map();
  const callerOf = (id) => {
    for (let at = id; at !== undefined; at = parentOf.get(at)) {
      const { url, functionName } = byId.get(at).callFrame;
      const owner = ownerOf(url, functionName);
      if (owner !== 'node internals' && owner !== '(native)') return owner;
    }
    return 'node internals';
  };
  let total = 0;
  let idle = 0;
  for (const [id, micros] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    total += micros;
    if (functionName === '(idle)') {
      idle += micros;
      continue;
    }
    const name = functionName || '(anonymous)';
    const key = `${name} ${shortUrl(url)}:${lineNumber + 1}`;
    functions.set(key, (functions.get(key) ?? 0) + micros);
    const owner = ownerOf(url, functionName);
    owners.set(owner, (owners.get(owner) ?? 0) + micros);
    const caller = callerOf(id);
    callers.set(caller, (callers.get(caller) ?? 0) + micros);
  }
  const busy = total - idle;
  const rank = (map, n) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, micros]) => ({ name, ms: micros / 1000, share: micros / busy }));
  return {
    totalMs: total / 1000,
    busyMs: busy / 1000,
    idleShare: idle / total,
    functions: rank(functions, top),
    owners: rank(owners, 20),
    callers: rank(callers, 20),
  };
}

/** With `requests` (how many the profiled window served), each line also gives the CPU µs per request. */
export function formatSummary(summary, requests) {
  const perRequest = (share) =>
    requests ? `${((share * summary.busyMs * 1000) / requests).toFixed(1).padStart(7)} µs/req  ` : '';
  const pct = (share) => `${(share * 100).toFixed(1).padStart(5)} %  ${perRequest(share)}`;
  const lines = [
    `busy ${summary.busyMs.toFixed(0)} ms of ${summary.totalMs.toFixed(0)} ms (idle ${(summary.idleShare * 100).toFixed(1)} %)` +
      (requests
        ? `, ${requests} requests: ${((summary.busyMs * 1000) / requests).toFixed(0)} µs of CPU each`
        : ''),
    '',
    'self time by owner:',
    ...summary.owners.map((row) => `  ${pct(row.share)}${row.name}`),
    '',
    'self time by owner, with the Node internals and natives each one calls:',
    ...summary.callers.map((row) => `  ${pct(row.share)}${row.name}`),
    '',
    'top functions by self time:',
    ...summary.functions.map((row) => `  ${pct(row.share)}${row.name}`),
  ];
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (file === undefined) {
    console.error('usage: node bench/profile.mjs <file.cpuprofile> [top]');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const top = Number(process.argv[3] ?? 25);
  const lastMs = process.argv[4] === undefined ? Infinity : Number(process.argv[4]);
  const requests = process.argv[5] === undefined ? undefined : Number(process.argv[5]);
  console.log(formatSummary(summariseProfile(profile, { top, lastMs }), requests));
}
