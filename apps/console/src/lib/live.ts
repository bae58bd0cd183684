/** How often lists and charts refresh (the issue asks for ≤ 2 s). */
export const LIVE_INTERVAL_MS = 2_000;
