import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Nav } from '../components/nav.tsx';
import { THEME_BOOT_SCRIPT } from '../lib/theme.ts';
import { Providers } from './providers.tsx';
import './globals.css';

export const metadata: Metadata = { title: 'Orrery console', description: 'Functions, state, sticky routing, registry clusters and audit of an Orrery platform' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    // The boot script sets data-theme on <html> before React hydrates, so React must not
    // complain that the server's <html> had none.
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* Before the first paint: the stored theme or the system's, so dark mode never flashes light. */}
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body>
        <Providers>
          <div className="shell">
            <Nav />
            <main className="main">{children}</main>
          </div>
        </Providers>
      </body>
    </html>
  );
}
