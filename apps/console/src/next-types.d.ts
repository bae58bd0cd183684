// Next's ambient types (CSS modules, images) without the generated next-env.d.ts, which points
// into .next/ and so would break `npm run typecheck` on a clone that was never built.
/// <reference types="next" />
/// <reference types="next/image-types/global" />
