import type { NextConfig } from 'next';

// The console is UI only: the admin API runs in the operator and is reached through the
// /trpc proxy route (ORRERY_API_URL, read at run time so one build serves any port).
const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The repo's `npm run typecheck` and `npm run lint` cover this app; the build need not repeat them.
  typescript: { ignoreBuildErrors: true },
  transpilePackages: ['@orrery/spec'],
};

export default config;
