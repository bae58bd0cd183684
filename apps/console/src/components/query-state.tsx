/** What a panel shows while its query loads or after it failed (the error's message says what to do). */
export function QueryState({ isLoading, error }: { isLoading: boolean; error: { message: string } | null }) {
  if (error) return <p role="alert" className="error">{error.message}</p>;
  if (isLoading) return <p className="muted">Loading…</p>;
  return null;
}
