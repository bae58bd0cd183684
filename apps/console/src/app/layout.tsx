import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Nav } from '../components/nav.tsx';
import { Providers } from './providers.tsx';
import './globals.css';

export const metadata: Metadata = { title: 'Orrery console', description: 'Functions, state, sticky routing, registry clusters and audit of an Orrery platform' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
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
