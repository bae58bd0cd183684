import type { NextConfig } from 'next';

// The console is UI only: the admin API runs in the operator and is reached through the
// /trpc proxy route (ORRERY_API_URL, read at run time so one build serves any port).
const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The repo's `npm run typecheck` and `npm run lint` cover this app; the build need not repeat them.
  typescript: { ignoreBuildErrors: true },
  // @orrery/api: only its pure request guards (@orrery/api/http-guards), used by the /trpc route.
  transpilePackages: ['@orrery/spec', '@orrery/api'],
  // No page of the console may be framed (clickjacking of its one-click actions), sniffed or
  // leak its URL (deep links name namespaces and functions) to other sites.
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'Content-Security-Policy', value: "frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'" },
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'same-origin' },
        ],
      },
    ];
  },
};

export default config;
