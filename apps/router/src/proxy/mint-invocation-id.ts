/**
 * Invocation ids for requests to `onWorkerLoss: replay` revisions (`Orrery-Invocation-Id`,
 * @orrery/spec wire/invocation-id.ts): 128 random bits from the CSPRNG as 32 lower-case hex
 * digits. The bits are drawn 256 ids at a time into one buffer (as node's randomUUID caches its
 * entropy), so an id costs one hex string and no system call. Unguessable, because an id names
 * the recorded ctx.state answers a replay would get.
 */
import { randomFillSync } from 'node:crypto';

const ID_BYTES = 16;
const IDS_PER_DRAW = 256;
const entropy = Buffer.alloc(ID_BYTES * IDS_PER_DRAW);
let next = entropy.length;

export function mintInvocationId(): string {
  if (next === entropy.length) {
    randomFillSync(entropy);
    next = 0;
  }
  const id = entropy.toString('hex', next, next + ID_BYTES);
  next += ID_BYTES;
  return id;
}
