/** Node's timers overflow past this (about 24.8 days) and would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Runs `work` every `intervalMs`, one run at a time, without keeping the process alive; `stop` waits for a run
 * in progress. `work` must not throw (log instead).
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly work: () => Promise<void>) {}

  start(intervalMs: number): void {
    this.timer = setInterval(
      () => {
        this.running = this.running.then(this.work);
      },
      Math.min(intervalMs, MAX_TIMER_MS),
    );
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }
}
