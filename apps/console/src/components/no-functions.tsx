/** The first command a new user needs; `orrery deploy` makes a Function from one handler file. */
export const DEPLOY_COMMAND = 'orrery deploy NAME --code ./handler.mjs';

/** The empty state where functions are listed (Functions page, Overview): how to get the first one. */
export function NoFunctions() {
  return (
    <p className="muted" data-testid="no-functions">
      No functions yet. Deploy one with <code>{DEPLOY_COMMAND}</code>, or apply a manifest with <code>orrery apply -f FILE</code>.
    </p>
  );
}
