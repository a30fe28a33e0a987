import request from 'supertest';

/** One sample of a Prometheus text exposition: `name{label="value",...} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key] = value;
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** A scrape: the raw text and the value of the series with exactly these labels (undefined when absent). */
export interface Scrape {
  text: string;
  samples: Sample[];
  value(name: string, labels?: Record<string, string>): number | undefined;
}

export async function scrape(baseUrl: string): Promise<Scrape> {
  const res = await request(baseUrl).get('/metrics').expect(200);
  const text = res.text;
  const samples = parseSamples(text);
  return {
    text,
    samples,
    value(name, labels = {}) {
      return samples.find(
        (sample) =>
          sample.name === name &&
          Object.keys(labels).length === Object.keys(sample.labels).length &&
          Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
      )?.value;
    },
  };
}
