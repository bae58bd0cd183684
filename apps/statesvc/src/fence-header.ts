import { HttpError } from './http-error.ts';

/** Node's lower-case name of `X-Orrery-Fence` (FENCE_HEADER in @orrery/spec). */
export const FENCE_HEADER_NAME = 'x-orrery-fence';

// Decimal digits, no sign, no leading zero; 16 digits at most, then the safe-integer bound.
const FENCE_TEXT = /^[1-9][0-9]{0,15}$/;

/**
 * The write's fence (docs/state.md "Fencing"), or undefined when the header is absent (the write
 * is not checked). Anything but one positive safe integer is 400 `fence_invalid`, so a typo never
 * silently turns a fenced write into an unchecked one.
 */
export function fenceOf(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header)) throw new HttpError('fence_invalid', 'X-Orrery-Fence was sent more than once; send the one fence you claimed');
  const text = header.trim();
  const n = Number(text);
  if (!FENCE_TEXT.test(text) || !Number.isSafeInteger(n)) {
    throw new HttpError('fence_invalid', 'X-Orrery-Fence must be the fence POST /v1/fences/{key} answered: a positive integer (decimal digits, at most 9007199254740991)');
  }
  return n;
}
