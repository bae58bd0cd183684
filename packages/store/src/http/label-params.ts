/**
 * The `label=key=value` query parameters of the store's list route, as the labels `list` matches.
 * A parameter without `=`, with an empty key, or naming one key twice with different values is
 * refused: read as something else it would widen or narrow the list without saying so.
 */
export class LabelParamError extends Error {
  readonly status = 400;
  readonly code = 'invalid_label_selector';
}

export function parseLabelParams(params: readonly string[]): Record<string, string> | undefined {
  // A Map, then fromEntries: assigning labels["__proto__"] would set the prototype instead.
  const labels = new Map<string, string>();
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0) throw new LabelParamError(`label "${param}" has no value: write label=key=value (one parameter per label)`);
    const key = param.slice(0, eq);
    // Everything after the first "=" is the value, so a value may hold "=" itself.
    const value = param.slice(eq + 1);
    if (key === '') throw new LabelParamError(`label "${param}" has an empty key: write label=key=value`);
    const earlier = labels.get(key);
    if (earlier !== undefined && earlier !== value) {
      throw new LabelParamError(`label "${key}" is given twice with different values ("${earlier}", "${value}"): an object has one value per label`);
    }
    labels.set(key, value);
  }
  return labels.size ? Object.fromEntries(labels) : undefined;
}
