import type { EventEmitter } from 'node:events';

/** Resolves when a writable that refused a write can take more ('drain'), or is gone ('close'). */
export function drained(writable: EventEmitter): Promise<void> {
  return new Promise<void>((resolve) => {
    const go = () => {
      writable.off('drain', go);
      writable.off('close', go);
      resolve();
    };
    writable.on('drain', go);
    writable.on('close', go);
  });
}
