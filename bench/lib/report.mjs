// Writes the measured part of docs/benchmarks.md: everything between the two markers is replaced on each full
// run; the text around them (method, profile analysis, changes) is kept as written.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import prettier from 'prettier';
import { CPU_TARGET } from './scenarios.mjs';

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';
const SERVER_NAMES = {
  app: 'service',
  'app-b': 'service, earlier build',
  express: 'Express baseline',
  'node-http': 'node:http baseline',
};

const fixed = (value, digits) => (value === null || value === undefined ? '–' : value.toFixed(digits));

function resultsSection(report) {
  const { machine, options } = report;
  const lines = [
    START,
    '',
    `Measured on ${report.date.slice(0, 10)} (${report.date.slice(11, 16)} UTC) with \`${report.command}\`, ` +
      `${(report.seconds / 60).toFixed(1)} minutes in all.`,
    '',
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}; Node ${machine.node}; ` +
      `${machine.database} on the same machine.`,
    `- One-minute load average ${report.loadAverage.before.toFixed(2)} before the run and ` +
      `${report.loadAverage.after.toFixed(2)} after it (the run itself keeps about two cores busy).`,
    `- Placement: ${
      machine.pinned
        ? 'each server pinned to core 0 and the load generator to core 1 with `taskset`; the database is not pinned'
        : 'not pinned (no `taskset`)'
    }.`,
    "- CPU µs/req: the server process's CPU time (user + system, from `/proc`) over the requests it answered; " +
      'steadier than req/s when other work shares the machine. DB CPU µs/req: the same for the database server ' +
      '(`mariadbd`), which also serves whatever else runs on the machine meanwhile.',
    `- Load: autocannon; first ${options.jitWarmup} s of mixed load per server (JIT warm-up), then per scenario a ` +
      `warm-up of ${options.warmup} s per server, then ${options.rounds} rounds of ` +
      `${options.duration} s per server, the servers alternating (the order rotates each round); the tables give ` +
      `the median of the rounds. Hot product: ${options.hotStock} units, ${options.hotStock * 2} orders per round.`,
    `- Data: ${report.dataSet.products} products in ${report.dataSet.categories} categories, ` +
      `${report.dataSet.users} users, ${report.dataSet.orders} orders; database pool ${report.poolSize} ` +
      'connections in each server; request logging off in every server.',
    '',
    '| Scenario | Server | req/s | p50 ms | p99 ms | CPU µs/req | DB CPU µs/req | non-2xx | peak RSS MiB |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const result of report.results) {
    for (const [name, s] of Object.entries(result.servers)) {
      const non2xx = result.key === 'hot' ? `${s.non2xx} (expected)` : String(s.non2xx);
      lines.push(
        `| ${result.title} | ${SERVER_NAMES[name] ?? name} | ${fixed(s.rps, 0)} | ${fixed(s.p50, 1)} | ${fixed(s.p99, 1)} | ` +
          `${fixed(s.cpuMicros, 0)} | ${fixed(s.databaseCpuMicros, 0)} | ${non2xx} | ${fixed(s.peakRssMiB, 0)} |`,
      );
    }
  }
  lines.push(
    '',
    '| Scenario | service / Express | target | CPU service / Express | target | service / node:http | verdict |',
    '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
  );
  for (const result of report.results) {
    const app = result.servers.app;
    const express = result.servers.express;
    const cpuRatio = app?.cpuMicros && express?.cpuMicros ? app.cpuMicros / express.cpuMicros : null;
    let verdict = '–';
    if (result.target !== null && (result.ratioExpress === null || cpuRatio === null)) {
      verdict = '**not measured**';
    } else if (result.target !== null) {
      const met = result.ratioExpress >= result.target && cpuRatio <= CPU_TARGET;
      verdict = met ? 'met' : '**missed**';
    }
    if (result.key === 'hot') {
      const exact = Object.values(result.servers).every((s) => s.exact);
      verdict += exact ? '; exact in every round, every server' : '; **not exact**';
    }
    lines.push(
      `| ${result.title} | ${fixed(result.ratioExpress, 2)} | ${result.target === null ? '–' : `≥ ${result.target.toFixed(2)}`} | ` +
        `${fixed(cpuRatio, 2)} | ≤ ${CPU_TARGET.toFixed(2)} | ${fixed(result.ratioNodeHttp, 2)} | ${verdict} |`,
    );
  }
  if (report.results.some((result) => result.servers['app-b'] !== undefined)) {
    lines.push(
      '',
      '| Scenario | req/s: earlier build → service | CPU µs/req: earlier build → service |',
      '| --- | ---: | ---: |',
    );
    for (const { title, servers } of report.results) {
      const [before, after] = [servers['app-b'], servers.app];
      if (before === undefined || after === undefined) continue;
      lines.push(
        `| ${title} | ${fixed(before.rps, 0)} → ${fixed(after.rps, 0)} | ` +
          `${fixed(before.cpuMicros, 0)} → ${fixed(after.cpuMicros, 0)} |`,
      );
    }
  }
  const hot = report.results.find((r) => r.key === 'hot');
  if (hot !== undefined) {
    const rounds = Object.values(hot.servers).flatMap((s) => s.rounds.map((r) => r.hot));
    const { stock } = rounds[0];
    const every = (check) => rounds.every(check);
    lines.push(
      '',
      `Hot product, ${rounds.length} rounds (${hot.servers.app?.rounds.length ?? '?'} per server): ` +
        [
          `${every((h) => h.successes === stock) ? 'every' : '**not every**'} round placed exactly ${stock} orders`,
          `${every((h) => h.refused === stock) ? 'refused exactly' : '**did not refuse exactly**'} ${stock} with 400`,
          `${every((h) => h.finalStock === 0) ? 'left the stock at 0' : '**left stock behind or below 0**'}`,
          `${every((h) => h.orderItems === stock) ? `and wrote exactly ${stock} order items` : '**wrote a different number of order items**'}.`,
        ].join(', '),
    );
  }
  lines.push('', END);
  return lines.join('\n');
}

export async function writeReport(path, report) {
  const section = resultsSection(report);
  let text = existsSync(path)
    ? readFileSync(path, 'utf8')
    : `# Benchmarks\n\n## Results\n\n${START}\n${END}\n`;
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  text =
    start === -1 || end === -1
      ? `${text.trimEnd()}\n\n## Results\n\n${section}\n`
      : `${text.slice(0, start)}${section}${text.slice(end + END.length)}`;
  const options = (await prettier.resolveConfig(path)) ?? {};
  writeFileSync(path, await prettier.format(text, { ...options, filepath: path }));
}
