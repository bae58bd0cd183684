/** A URL fit for a status line, platform.json or a log: its password (if any) replaced by "***". */
export function urlWithoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '***';
    return u.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
  } catch {
    return url;
  }
}

/** True when a URL carries a password (then it must not go on a command line). */
export function urlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false;
  }
}
