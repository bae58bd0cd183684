/**
 * A level-triggered reconcile loop over a whole kind: `pass` runs one at a time, on every kick
 * and every interval; kicks that arrive during a pass fold into one more pass right after it,
 * so a burst of watch events costs at most two passes.
 */
export class SerialPass {
  private busy = false;
  private again = false;
  private stoppedFlag = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** True once stop() was called: a long pass checks it to end early. */
  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** First pass now, then one every `intervalMs`. */
  start(intervalMs: number): void {
    this.kick();
    this.timer = setInterval(() => this.kick(), intervalMs);
  }

  kick(): void {
    if (this.stoppedFlag) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    void (async () => {
      try {
        do {
          this.again = false;
          await this.pass();
        } while (this.again && !this.stoppedFlag);
      } catch (err) {
        this.onError(err);
      } finally {
        this.busy = false;
      }
    })();
  }

  /** No pass starts after this; waits up to `drainMs` for the running one to finish. */
  async stop(drainMs: number): Promise<void> {
    this.stoppedFlag = true;
    clearInterval(this.timer);
    const deadline = Date.now() + drainMs;
    while (this.busy && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  }
}
