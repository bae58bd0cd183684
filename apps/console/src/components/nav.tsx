'use client';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { useEffect } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC } from '../lib/trpc.ts';
import { useSession } from '../lib/session.ts';
import { ThemeToggle } from './theme-toggle.tsx';

const PAGES = [
  { href: '/', label: 'Overview' },
  { href: '/functions', label: 'Functions' },
  { href: '/state', label: 'State' },
  { href: '/sticky', label: 'Sticky' },
  { href: '/registry', label: 'Registry' },
  { href: '/statesync', label: 'StateSync' },
  { href: '/audit', label: 'Audit log' },
];

/** Side navigation, the caller's badge, logout; sends a caller without a session to /login. */
export function Nav() {
  const pathname = usePathname();
  const router = useRouter();
  const trpc = useTRPC();
  const qc = useQueryClient();
  const { whoami, loading } = useSession();
  const logout = useMutation(trpc.auth.logout.mutationOptions({ onSuccess: () => qc.clear() }));
  useEffect(() => {
    if (!loading && whoami && whoami.who === null && pathname !== '/login') router.replace(`/login?next=${encodeURIComponent(pathname)}`);
  }, [loading, whoami, pathname, router]);
  if (pathname === '/login') return null;
  return (
    <nav className="nav" aria-label="Main">
      <div className="brand">Orrery</div>
      <ul>
        {PAGES.map((p) => {
          const active = p.href === '/' ? pathname === '/' : pathname === p.href || pathname.startsWith(`${p.href}/`);
          return (
            <li key={p.href}>
              <Link href={p.href} aria-current={active ? 'page' : undefined} className={active ? 'active' : undefined}>
                {p.label}
              </Link>
            </li>
          );
        })}
      </ul>
      <div className="who">
        {whoami?.who ? (
          <>
            <span data-testid="who">{whoami.who}</span> <span className={`badge role-${whoami.role}`} data-testid="role">{whoami.role}</span>
            <button type="button" className="link" onClick={() => logout.mutate({}, { onSettled: () => router.replace('/login') })}>
              Log out
            </button>
          </>
        ) : null}
        <ThemeToggle />
      </div>
    </nav>
  );
}
