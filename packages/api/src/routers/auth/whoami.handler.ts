import { publicQuery } from '../../trpc.ts';

/** No input. Answers `{who: null}` without a session rather than failing, so the console can redirect to login. */
export const whoami = publicQuery('The caller: name and role, or null without a session.').query(({ ctx }) =>
  ctx.principal ? { who: ctx.principal.who, role: ctx.principal.role, via: ctx.principal.via } : { who: null, role: null, via: null },
);
