'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter, useSearchParams } from 'next/navigation';
import { Suspense, useState, type FormEvent } from 'react';
import { loginRetryDelayMs, retryLoginAfter } from '../../lib/network-failure.ts';
import { sameOriginRedirect } from '../../lib/same-origin-redirect.ts';
import { useTRPC } from '../../lib/trpc.ts';

function LoginForm() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const router = useRouter();
  const params = useSearchParams();
  const [method, setMethod] = useState<'token' | 'password'>('token');
  const [token, setToken] = useState('');
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const login = useMutation(
    trpc.auth.login.mutationOptions({
      // A connection lost under the request is tried again; an answer (a wrong token) never is.
      retry: retryLoginAfter,
      retryDelay: loginRetryDelayMs,
      onSuccess: async () => {
        // The page's first session check may still be on its way, answered before this login:
        // invalidating alone would wait for that "no session" (a query without data keeps its
        // fetch) and the nav would send us back here. Drop what is in flight, then fetch again.
        await qc.cancelQueries();
        await qc.invalidateQueries();
        // Only a path on this origin: never an open redirect (`/\evil.example` included).
        router.replace(sameOriginRedirect(params.get('next'), window.location.origin));
      },
    }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    login.mutate(method === 'token' ? { method, token } : { method, user, password });
  };
  return (
    <form className="card login" onSubmit={submit} aria-label="Log in">
      <h1>Log in to Orrery</h1>
      <fieldset className="segmented">
        <legend className="sr-only">Log in with</legend>
        <label>
          <input type="radio" name="method" checked={method === 'token'} onChange={() => setMethod('token')} data-testid="login-method-token" /> Admin token
        </label>
        <label>
          <input type="radio" name="method" checked={method === 'password'} onChange={() => setMethod('password')} data-testid="login-method-password" /> User and password
        </label>
      </fieldset>
      {method === 'token' ? (
        <label>
          Admin token
          <input type="password" name="token" data-testid="login-token" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} required />
          <small>from <code>.orrery/secrets/admin.token</code> (orrery up) or the chart&apos;s admin secret</small>
        </label>
      ) : (
        <>
          <label>
            User
            <input name="user" data-testid="login-user" autoComplete="username" value={user} onChange={(e) => setUser(e.target.value)} required />
          </label>
          <label>
            Password
            <input type="password" name="password" data-testid="login-password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
          </label>
        </>
      )}
      {login.error ? (
        <p role="alert" className="error">
          {login.error.message}
        </p>
      ) : null}
      <button type="submit" className="primary" disabled={login.isPending}>
        {login.isPending ? 'Logging in…' : 'Log in'}
      </button>
    </form>
  );
}

export default function LoginPage() {
  return (
    <Suspense>
      <LoginForm />
    </Suspense>
  );
}
