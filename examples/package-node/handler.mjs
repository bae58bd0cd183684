// A function with a dependency (docs/packages.md): `ms` comes from the built package's
// node_modules, installed once per archive by the platform's builder.
import ms from 'ms';

export default async (request) => {
  const url = new URL(request.url);
  const duration = url.searchParams.get('d') ?? '2 days';
  const millis = ms(duration);
  if (millis === undefined) return Response.json({ error: `"${duration}" is not a duration like "2 days" or "90s"` }, { status: 400 });
  return Response.json({ duration, millis, short: ms(millis) });
};
