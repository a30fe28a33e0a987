import type { Metrics } from '../observability/metrics.js';

/**
 * Runs one job or scheduled tick, timed in commerce_job_duration_seconds; a failure is counted in
 * commerce_job_failures_total (`final` when no attempt is left) and rethrown.
 */
export async function measureJobRun(
  metrics: Metrics,
  name: string,
  final: boolean,
  run: () => Promise<void>,
): Promise<void> {
  const end = metrics.jobDuration.startTimer({ name });
  try {
    await run();
    end({ result: 'succeeded' });
  } catch (error) {
    end({ result: 'failed' });
    metrics.jobFailures.inc({ name, final: String(final) });
    throw error;
  }
}
