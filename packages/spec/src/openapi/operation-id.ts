/**
 * A stable operationId from method and path (client generators name their methods after it):
 * `GET /v1/state/{key}` → `getV1StateByKey`, `POST /api/v1/registry/register` →
 * `postApiV1RegistryRegister`. Derived, not hand-named, so a new route cannot lack one.
 */
export function operationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => {
      const param = /^\{(.+)\}$/.exec(segment);
      const parts = (param ? param[1]! : segment).split(/[^A-Za-z0-9]+/).filter(Boolean);
      return param ? ['by', ...parts] : parts;
    });
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join('');
}
