/**
 * Calls per batched request from the browser: the admin API refuses bigger batches (400
 * batch_too_large, `MAX_BATCH_SIZE` in @orrery/api), so the batch link splits at the same size.
 * A copy, not an import: the browser bundle must not pull the API's server modules.
 */
export const CONSOLE_MAX_BATCH_SIZE = 16;
