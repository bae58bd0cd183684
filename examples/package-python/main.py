"""A Python function with a dependency (docs/packages.md): `humanize` comes from the built
package's .python-packages, installed once per archive by the platform's builder (pip)."""
import humanize


def handler(request, ctx):
    raw = request.query.get("bytes", "123456789")
    if not raw.isdigit():
        return {"error": '"bytes" must be a whole number, e.g. ?bytes=2048'}, 400
    return {"bytes": int(raw), "natural": humanize.naturalsize(int(raw))}
